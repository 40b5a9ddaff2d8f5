"""Multi-core node sharing with malleable configurations.

Importing the package registers the policies ``nodeshare`` and ``nodeshare-easy``
(:mod:`cosched.nodeshare.policies`). The model is in :mod:`.interference`, the
configurations in :mod:`.configurations`, Algorithm 1 in :mod:`.placement`, the paper's
extra outputs in :mod:`.outputs` and the reproduction's cell function in :mod:`.experiment`.
"""

from cosched.nodeshare.policies import Coscheduling, CoschedulingBackfill

__all__ = ["Coscheduling", "CoschedulingBackfill"]
