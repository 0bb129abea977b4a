"""The kernel cache never serves stale machine code (Note [Kernel cache layout]).

A copy of the package runs a kernel in fresh processes: the first compiles, the second loads
from the cache, and after an edit of a helper the kernel inlines from another module (or of a
_jit.py flag) the next one compiles again and runs the new code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import numtorch

PKG = Path(numtorch.__file__).resolve().parent
# softmax's _exp_sum inlines vmath.exp64 from another module: Numba's own key misses that edit
RUN = """
import json, sys
import numpy as np
import numtorch
from numtorch.kernels.cpu.reduction import softmax
y = np.empty(2)
s = softmax._exp_sum(np.zeros(2), 0.0, y)
st = softmax._exp_sum.stats
print(json.dumps({"sum": float(s), "hits": sum(st.cache_hits.values()),
                  "misses": sum(st.cache_misses.values()), "path": st.cache_path}))
"""


@pytest.fixture()
def copy(tmp_path):
    dst = tmp_path / "src"
    shutil.copytree(PKG, dst / "numtorch", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["NUMTORCH_KERNEL_CACHE"] = str(tmp_path / "cache")

    def run():
        out = subprocess.run([sys.executable, "-c", RUN], cwd=dst, env=env, capture_output=True,
                             text=True, timeout=120, check=True)  # fmt: skip
        return json.loads(out.stdout.strip().splitlines()[-1])

    return dst / "numtorch", tmp_path / "cache", run


def _digests(cache: Path) -> set:
    return {p.name for p in cache.iterdir() if p.is_dir() and p.name.startswith("v")}


def test_helper_edit_recompiles_and_stale_folders_go(copy):
    pkg, cache, run = copy
    first = run()
    assert (first["hits"], first["misses"], first["sum"]) == (0, 1, 2.0)
    (old,) = _digests(cache)
    assert Path(first["path"]) == cache / old / "numba" / "cpu_reduction"
    second = run()
    assert (second["hits"], second["misses"]) == (1, 0)

    # exp64(x) now returns exp(x + log 2): a process running the old machine code sums 2.0.
    # Folders idle past the grace period and the old flat layout's files are swept meanwhile;
    # a folder another install used lately and the wrapper code cache stay.
    vmath = pkg / "kernels" / "cpu" / "pointwise" / "vmath.py"
    src = vmath.read_text()
    assert src.count("def exp64(x):\n") == 1
    shifted = "def exp64(x):\n    x = x + 0.6931471805599453\n"
    vmath.write_text(src.replace("def exp64(x):\n", shifted))
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(cache / old / ".used", (day_ago, day_ago))
    other = cache / "v0.0.1-0123456789abcdef"
    (other / "numba").mkdir(parents=True)
    (other / ".used").touch()
    legacy = cache / "pw_add_bifc_0123456789abcdef.py"
    legacy.write_text("")
    os.utime(legacy, (day_ago, day_ago))
    api = next(cache.glob("api_*.marshal"))
    third = run()
    assert (third["hits"], third["misses"], round(third["sum"], 9)) == (0, 1, 4.0)
    new = Path(third["path"]).parent.parent.name
    assert _digests(cache) == {new, other.name} and new != old
    assert not legacy.exists() and api.exists()


def test_digest_covers_every_kernel_source_and_version(tmp_path, monkeypatch):
    from numtorch.kernels import _cache

    version = numtorch.__version__
    monkeypatch.setattr(_cache, "_STATE", {})
    base = _cache.source_digest()
    assert base.startswith(f"v{version}-")
    monkeypatch.setattr(_cache, "_STATE", {})
    monkeypatch.setattr(numtorch, "__version__", "9.9.9")
    assert _cache.source_digest().startswith("v9.9.9-")
    monkeypatch.setattr(numtorch, "__version__", version)
    no_cache = shutil.ignore_patterns("__pycache__")
    shutil.copytree(PKG / "kernels", tmp_path / "kernels", ignore=no_cache)
    digests = []
    for edit in (None, "cpu/pointwise/scalar.py", "_codegen.py", "_jit.py"):
        if edit:
            f = tmp_path / "kernels" / edit
            f.write_text(f.read_text() + "\n")
        monkeypatch.setattr(_cache, "_STATE", {})
        monkeypatch.setattr(_cache, "KERNELS", str(tmp_path / "kernels"))
        digests.append(_cache.source_digest())
    assert len(set(digests)) == 4


def test_numba_cache_dir_is_the_root_when_set(tmp_path, monkeypatch):
    from numtorch.kernels import _cache

    monkeypatch.setattr(_cache, "_STATE", {})
    monkeypatch.setenv("NUMTORCH_KERNEL_CACHE", str(tmp_path / "k"))
    digest = _cache.source_digest()
    assert _cache.numba_dir(str(tmp_path / "nb")) == str(tmp_path / "nb" / "numtorch" / digest)
    assert (tmp_path / "nb" / "numtorch" / digest / ".used").exists()
    monkeypatch.setattr(_cache, "_STATE", {})
    assert _cache.numba_dir("") == str(tmp_path / "k" / digest / "numba")


def test_serial_and_parallel_twins_compile_and_cache_apart():
    # one body, two kernels: the parallel twin has its own qualname, so its cache files (named
    # by qualname, not keyed on the parallel flag) never answer for the serial kernel
    import numpy as np

    from numtorch.kernels.cpu import sparse

    serial, par = sparse.spmm_rows, sparse.spmm_rows_parallel
    assert serial.py_func.__code__ is par.py_func.__code__
    assert par.py_func.__qualname__ == serial.py_func.__qualname__ + "_parallel"
    assert not serial.targetoptions.get("parallel") and par.targetoptions.get("parallel")
    rowptr = np.array([0, 2, 3], np.int64)
    cols, vals = np.array([0, 2, 1], np.int64), np.array([1.0, 2.0, 3.0])
    dense = np.arange(6.0).reshape(3, 2)
    want = np.array([[1 * 0 + 2 * 4, 1 * 1 + 2 * 5], [3 * 2, 3 * 3]], float)
    for k in (serial, par):
        out = np.zeros((2, 2))
        k(rowptr, cols, vals, dense, out)
        np.testing.assert_array_equal(out, want)


def test_racing_saves_of_two_signatures_keep_their_own_data(tmp_path, monkeypatch):
    # Note [Data files named by their key]: two processes that both read the index before either
    # wrote it must not write their machine code to one numbered file.
    from numba.core.caching import IndexDataCacheFile

    from numtorch.kernels._jit import _KernelCacheLocator

    monkeypatch.setattr(_KernelCacheLocator, "_ready", {str(tmp_path)})
    f = IndexDataCacheFile(str(tmp_path), "kern-12.py311", ("stamp", 1))
    stale = f._load_index
    monkeypatch.setattr(f, "_load_index", dict)  # each save sees the index as it was: empty
    ka, kb = ("sig(float32)", "magic", "code"), ("sig(int64)", "magic", "code")
    f.save(ka, "float32 machine code")
    f.save(kb, "int64 machine code")
    assert len(list(tmp_path.glob("kern-12.py311.*.nbc"))) == 2
    monkeypatch.setattr(f, "_load_index", stale)
    assert f.load(kb) == "int64 machine code"  # the index write that won
    assert f.load(ka) is None  # the lost index entry: a recompile, never the other's code
    f.save(ka, "float32 machine code")
    assert (f.load(ka), f.load(kb)) == ("float32 machine code", "int64 machine code")


def test_numba_caches_outside_numtorch_keep_numbered_files(tmp_path):
    from numba.core.caching import IndexDataCacheFile

    f = IndexDataCacheFile(str(tmp_path), "user-3.py311", ("stamp", 1))
    f.save(("sig",), "code")
    assert [p.name for p in tmp_path.glob("*.nbc")] == ["user-3.py311.1.nbc"]
