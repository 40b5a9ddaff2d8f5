"""CPU seconds of each way to parse an SWF trace's job lines, and of loading numba.

    python benchmarks/bench_parsers.py ../shared/traces/HPC2N-2002-2.2-cln.swf.gz --core 1

Each measurement runs in a fresh process pinned to one core (``time.process_time``
around the call; the import of the parser's library is timed apart): cosched's four
fast parsers (Python's tokeniser, the numpy parser of ``_swf_vector``, pandas' C
parser, the compiled parser as numba compiles it just in time, ``compiled``, and as
compiled ahead of time, ``aot``, when ``cosched.compile`` has built it) and numpy's
``loadtxt`` and ``fromstring``, on the text after the header, decompressed beforehand.
The import of pandas; for numba: the import, then the first cached kernel (LLVM
starts), then a second one; loading the kernels compiled ahead of time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import gzip, io, json, sys, time
path, what = sys.argv[1], sys.argv[2]
data = gzip.open(path).read() if path.endswith('.gz') else open(path, 'rb').read()
t0 = time.process_time()
import numpy as np
from cosched.workload import swf
lines, start = swf._split_header(data)
body = data[start:]
t1 = time.process_time()
if what == 'python':
    out = swf._python_parse(body)
elif what == 'pandas':
    import pandas
    swf.PYTHON_PARSE_BYTES = 0
    t1 = time.process_time()
    out = swf._fast_parse(body)
elif what == 'aot':
    from cosched import compile as cc
    kernels = cc.load(group='swf')
    t1 = time.process_time()
    out = None if kernels is None else swf._kernel_parse(body, 1, build=False)
elif what == 'compiled':
    from cosched import compile as cc
    cc.ENABLED = False
    parse_block = cc.jitted('cosched.workload._swf_kernel').parse_block
    one = np.frombuffer(b'1' + b' 1' * 17 + b'\\n', dtype=np.uint8)
    parse_block(one, swf._SIGNED, swf._FRACTIONAL)
    t1 = time.process_time()
    out = swf._kernel_parse(body, 1)
elif what == 'numpy':
    from cosched.workload._swf_vector import parse_text
    out = parse_text(body)
elif what == 'loadtxt':
    out = np.loadtxt(io.BytesIO(body), dtype=np.float64, comments=';', ndmin=2)
elif what == 'fromstring':
    out = np.fromstring(body, sep=' ')
t2 = time.process_time()
print(json.dumps({'lines': body.count(b'\\n'), 'seconds': t2 - t1, 'ok': out is not None}))
"""

NUMBA = """
import json, time
import numpy as np
t0 = time.process_time()
import numba
t1 = time.process_time()
from cosched.workload import swf
from cosched.workload._swf_kernel import parse_block
parse_block(np.frombuffer(b'1' + b' 1' * 17 + b'\\n', dtype=np.uint8), swf._SIGNED, swf._FRACTIONAL)
t2 = time.process_time()
from cosched.engine.compiled import bound_loop
from cosched.policies.easy import EASY_PASS, EasyParams
n, i64 = 3, np.int64
bound_loop(EASY_PASS, compiled=True)(
    np.arange(3.0), np.ones(3), np.ones(3), np.ones(3, dtype=i64), np.zeros((3, 0)), 4,
    EasyParams(-1), np.full(n, np.nan), np.full(n, np.nan),
    np.zeros(3, dtype=i64), np.zeros(0, dtype=i64), np.zeros(4, dtype=i64), np.zeros(0))
t3 = time.process_time()
print(json.dumps({'import numba': t1 - t0, 'first kernel': t2 - t1, 'second kernel': t3 - t2}))
"""

AOT = """
import json, time
import numpy as np
t0 = time.process_time()
from cosched import compile as cc
t1 = time.process_time()
kernels = cc.load(group='swf')
t2 = time.process_time()
if kernels is None:
    print(json.dumps({}))
else:
    print(json.dumps({'import cosched': t1 - t0, 'load aot kernels': t2 - t1}))
"""

PANDAS = """
import json, time
import numpy as np
t0 = time.process_time()
import pandas
print(json.dumps({'import pandas': time.process_time() - t0}))
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--core", type=int, default=0)
    args = p.parse_args()
    pin = ["taskset", "-c", str(args.core), sys.executable, "-c"]
    for what in ("python", "numpy", "pandas", "compiled", "aot", "loadtxt", "fromstring"):
        cmd = [*pin, CHILD, args.trace, what]
        got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        per_line = got["seconds"] / max(got["lines"], 1) * 1e6
        state = "" if got["ok"] else "  (gave up on this text)"
        print(f"{what:<12}{got['seconds']:>7.3f} s  {per_line:>5.2f} us a line{state}")
    for code in (PANDAS, NUMBA, AOT):
        out = subprocess.run([*pin, code], check=True, capture_output=True, text=True).stdout
        for name, secs in json.loads(out).items():
            print(f"{name:<16}{secs:>7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
