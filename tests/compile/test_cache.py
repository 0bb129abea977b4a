"""A second process loads a fused kernel from the disk cache (Note [Fused kernels])."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numtorch

ROOT = Path(numtorch.__file__).resolve().parent.parent
RUN = """
import json
import numtorch
from numtorch._compile import fusion
cf = numtorch.compile(lambda x, y: ((x * 2 + y).sigmoid() - 0.5).abs() * y)
x, y = numtorch.randn(1000), numtorch.randn(1000)
cf(x, y)
cf(x, y)
(region,) = [s for e in cf.cache.values() for s in e.steps if isinstance(s, fusion.Region)]
st = region.kc.stats
print(json.dumps({"hits": sum(st.cache_hits.values()), "misses": sum(st.cache_misses.values()),
                  "file": region.mod.__file__}))
"""


def test_second_process_loads_fused_kernel_from_disk(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["NUMTORCH_KERNEL_CACHE"] = str(tmp_path / "cache")

    def run():
        out = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=300, check=True)  # fmt: skip
        return json.loads(out.stdout.strip().splitlines()[-1])

    first, second = run(), run()
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert first["file"] == second["file"] and first["file"].startswith(str(tmp_path / "cache"))
