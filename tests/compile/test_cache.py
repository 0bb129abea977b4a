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


# Note [Cache loads skip Numba's registry refresh]: a process that only loads kernels from the
# disk cache never imports Numba's lowering registries (nor numba.np.linalg: Note [Numba's
# BLAS probe]); one that then compiles a new kernel does, and both kinds of kernel (the
# parallel ones included) give the right values.
WARM = """
import json, sys
import numpy as np
import numtorch
x = numtorch.linspace(-1.0, 3.0, 1 << 19)  # past PARALLEL_THRESHOLD: the parallel variant
cf = numtorch.compile(lambda x, y: ((x * 2 + y).sigmoid() - 0.5).abs() * y)
got = [cf(x, x).numpy(), cf(x, x).numpy(), (x * 3).numpy()]
registries = ("numba.typed.typeddict", "numba.np.linalg")  # imported by a refresh only
refreshed = any(m in sys.modules for m in registries)
if sys.argv[1] == "more":
    got.append(numtorch.atan2(x, x + 1).numpy())  # a kernel this cache has not seen: compiled
print(json.dumps({"refreshed": [refreshed, all(m in sys.modules for m in registries)],
                  "got": [float(np.sum(g, dtype=np.float64)) for g in got]}))
"""


def test_warm_start_loads_kernels_without_numba_refresh_and_still_compiles(tmp_path):
    import numpy as np

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(NUMTORCH_KERNEL_CACHE=str(tmp_path / "cache"), NUMBA_NUM_THREADS="2")

    def run(mode):
        out = subprocess.run([sys.executable, "-c", WARM, mode], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=300, check=True)  # fmt: skip
        return json.loads(out.stdout.strip().splitlines()[-1])

    first, second = run("fill"), run("more")
    assert first["refreshed"] == [True, True]  # an empty cache compiles, which refreshes
    assert second["refreshed"] == [False, True]
    x = np.linspace(-1.0, 3.0, 1 << 19, dtype=np.float32)
    chain = np.abs(1 / (1 + np.exp(-(x * 2 + x))) - 0.5) * x
    want = [chain.sum(dtype=np.float64)] * 2 + [(x * 3).sum(dtype=np.float64)]
    want.append(np.arctan2(x, x + 1).sum(dtype=np.float64))
    np.testing.assert_allclose(second["got"], want, rtol=1e-5)
    np.testing.assert_allclose(first["got"], want[:3], rtol=1e-5)
