"""Peak resident memory of training, numtorch beside PyTorch, each library in a fresh process.

    python benchmarks/memory.py                       # 1,000 digits CNN steps, both libraries
    python benchmarks/memory.py --steps 300 --every 50 --json mem.json

Each library runs examples/main.py's model (the "digits CNN Adam step" workload of compare.py)
for ``--steps`` steps in a child interpreter with every thread count at 1, and samples its
resident set size (``/proc/self/statm``) every ``--every`` steps. Reported per library: RSS
after import and after building the model, the process's peak RSS (``ru_maxrss``), the RSS at
step 100 and at the last step, and the growth between them (a leak shows as growth that does
not stop). The issue's target: peak within 1.2x of PyTorch's and flat after the first 100 steps.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import json, os, resource, sys
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[v] = "1"
sys.path.insert(0, {root!r})
page = os.sysconf("SC_PAGE_SIZE")

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page

name, steps, every = {name!r}, {steps}, {every}
import importlib
L = importlib.import_module(name)
L.set_num_threads(1)
out = {{"import": rss()}}
from benchmarks.workloads import _digits_cnn
step = _digits_cnn(name)
out["model"] = rss()
trace = []
for i in range(1, steps + 1):
    step()
    if i % every == 0 or i == steps:
        trace.append((i, rss()))
out["trace"] = trace
out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print("RESULT " + json.dumps(out))
"""


def measure(name: str, steps: int, every: int) -> dict:
    """One library's figures from a fresh interpreter (see the module docstring)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CHILD.format(root=root, name=name, steps=steps, every=every)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def growth(res: dict, after: int = 100) -> int:
    """Bytes the RSS grew from the first sample at or after step ``after`` to the last sample."""
    trace = res["trace"]
    start = next((r for i, r in trace if i >= after), trace[-1][1])
    return trace[-1][1] - start


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--every", type=int, default=100)
    p.add_argument("--json", help="write the figures here")
    a = p.parse_args(argv)
    libs = ["numtorch"]
    try:
        import importlib.util

        if importlib.util.find_spec("torch") is not None:
            libs.append("torch")
    except ValueError:
        pass
    res = {name: measure(name, a.steps, a.every) for name in libs}
    mib = 1 << 20
    print(f"digits CNN, {a.steps} Adam steps, 1 thread (MiB)")
    print(f"  {'library':9} {'import':>8} {'model':>8} {'step 100':>9} {'last':>8} {'growth':>8} {'peak':>8}")
    for name, r in res.items():
        at100 = next((v for i, v in r["trace"] if i >= 100), r["trace"][-1][1])
        print(f"  {name:9} {r['import'] / mib:8.1f} {r['model'] / mib:8.1f} {at100 / mib:9.1f} "
              f"{r['trace'][-1][1] / mib:8.1f} {growth(r) / mib:8.1f} {r['peak'] / mib:8.1f}")  # fmt: skip
    if "torch" in res:
        ratio = res["numtorch"]["peak"] / res["torch"]["peak"]
        print(f"  peak numtorch / PyTorch: {ratio:.2f}x (target <= 1.2x)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
