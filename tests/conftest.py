"""Suite-wide settings.

Every kernel :func:`cosched.compile.kernels` hands out is checked against its signature
on every call (:class:`cosched.compile.Checked`), here and in the child processes tests
start: a caller passing an array the compiled code would misread fails its test.
"""

from __future__ import annotations

import os

os.environ["COSCHED_CHECK_KERNELS"] = "1"
