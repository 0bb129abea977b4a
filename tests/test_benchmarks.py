"""The asv suite stays runnable: every benchmark's setup plus one call at its smallest params.

No timing is asserted here (a 2-core CI machine says nothing reliable about speed); this only
catches benchmarks broken by API changes, in seconds instead of at the next asv run. A setup
raising NotImplementedError is asv's "skipped" (an op still being written), so it skips here.
"""

from __future__ import annotations

import inspect
import itertools
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from benchmarks import common

ROOT = Path(__file__).resolve().parent.parent
MODULES = [m.__name__.rsplit(".", 1)[1] for m in common.bench_modules()]
PREFIXES = ("time_", "timeraw_", "track_", "mem_", "peakmem_")
# fresh-interpreter benchmarks: code is compiled, and run only where that is cheap
SLOW_RAW = {"timeraw_first_op_cold_cache", "FirstTrainStep.timeraw_first_step"}
COMPLETE_AREAS = ["pointwise"]  # every op in these areas must have a benchmark
OTHER_AREAS = ["reduction", "shape", "indexing", "linalg", "nn"]


def _smallest(values: list):
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return min(nums) if len(nums) == len(values) else values[0]


def _param_sets(obj, meth: str = "") -> list:
    """The smallest combination; every value of a ``lib`` axis (numtorch and the torch peer),
    except for fresh-interpreter benchmarks, where importing torch alone takes seconds."""
    params = getattr(obj, "params", None)
    if not params:
        return [()]
    if not isinstance(params[0], list):
        params = [params]
    names = getattr(obj, "param_names", [])
    every = "" if meth.startswith("timeraw_") else "lib"
    axes = [
        list(p) if n == every else [_smallest(list(p))] for p, n in zip(params, names, strict=False)
    ]
    if len(axes) < len(params):
        axes += [[_smallest(list(p))] for p in params[len(axes) :]]
    return list(itertools.product(*axes))


def _cases():
    for modname in MODULES:
        mod = sys.modules[f"benchmarks.{modname}"]
        for attr, obj in sorted(vars(mod).items()):
            if attr.startswith("_"):  # asv ignores these too
                continue
            if inspect.isclass(obj) and obj.__module__ == mod.__name__:
                for meth in sorted(m for m in dir(obj) if m.startswith(PREFIXES)):
                    for p in _param_sets(obj, meth):
                        yield pytest.param(
                            modname, obj, meth, p, id=f"{modname}.{attr}.{meth}{list(p)}"
                        )
            elif (
                inspect.isfunction(obj)
                and attr.startswith(PREFIXES)
                and obj.__module__ == mod.__name__
            ):
                yield pytest.param(modname, obj, None, (), id=f"{modname}.{attr}")


def _run_raw(code, label: str) -> None:
    stmt, setup = code if isinstance(code, tuple) else (code, "")
    compile(stmt, label, "exec")
    compile(setup, label, "exec")
    if label in SLOW_RAW or "import torch" in stmt:
        return
    proc = subprocess.run([sys.executable, "-c", f"{setup}\n{stmt}"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("modname, obj, meth, params", list(_cases()))
def test_benchmark_runs(modname, obj, meth, params):
    if meth is None:  # a module-level function benchmark
        try:
            if hasattr(obj, "setup"):
                obj.setup()
        except NotImplementedError as e:
            pytest.skip(str(e))
        result = obj()
        if obj.__name__.startswith("timeraw_"):
            _run_raw(result, obj.__name__)
        return
    bench = obj()
    try:
        if hasattr(bench, "setup"):
            bench.setup(*params)
    except NotImplementedError as e:
        pytest.skip(str(e))
    try:
        result = getattr(bench, meth)(*params)
        if meth.startswith("timeraw_"):
            _run_raw(result, f"{obj.__name__}.{meth}")
    finally:
        if hasattr(bench, "teardown"):
            bench.teardown(*params)


@pytest.mark.parametrize("modname", MODULES)
def test_params_match_param_names(modname):
    mod = sys.modules[f"benchmarks.{modname}"]
    for obj in vars(mod).values():
        if inspect.isclass(obj) and getattr(obj, "params", None):
            params = obj.params if isinstance(obj.params[0], list) else [obj.params]
            assert len(params) == len(obj.param_names), obj.__name__
            for p in params:
                assert p and len(set(map(repr, p))) == len(p), (obj.__name__, p)


@pytest.mark.parametrize("area", COMPLETE_AREAS)
def test_every_op_of_a_complete_area_is_benchmarked(area):
    assert common.area_ops(area), f"no ops found in area {area!r}: op_area() is out of date"
    assert common.uncovered(area) == [], f"ops without a benchmark in {area}"


@pytest.mark.parametrize("area", OTHER_AREAS)
def test_uncovered_ops_are_listed(area):
    missing = common.uncovered(area)
    if missing:
        warnings.warn(f"{area}: ops without a benchmark: {', '.join(missing)}", stacklevel=1)


def test_registry_params_follow_the_registry(monkeypatch):
    assert {"add", "mul"} <= set(common.registry_ops(tag="pointwise", arity=2))
    assert "exp" in common.registry_ops(tag="pointwise", arity=1)
    assert common.registry_ops(tag="no-such-tag") == ["<none>"]
    monkeypatch.setattr(common, "covered_ops", lambda: set())
    assert "add" in common.uncovered("pointwise")


def test_pending_turns_missing_features_into_skips():
    with pytest.raises(NotImplementedError):
        common.resolve("no_such_function_anywhere")
    with pytest.raises(NotImplementedError), common.pending():
        raise AttributeError("'Tensor' object has no attribute 'frobnicate'")
    with pytest.raises(AttributeError), common.pending():
        raise AttributeError("'dict' object has no attribute 'x'")


_NO_TORCH = "import sys; sys.modules['torch'] = None\n"


def test_suite_imports_without_torch():
    code = _NO_TORCH + (
        "import numtorch, benchmarks.common as c\n"
        "mods = c.bench_modules()\n"
        "import benchmarks.compare\n"
        "assert c.torch_or_none() is None\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("torch_absent", [False, True])
def test_compare_script_runs(tmp_path, torch_absent):
    if not torch_absent and common.torch_or_none() is None:
        pytest.skip("PyTorch is not installed")
    out = tmp_path / "r.json"
    argv = ["--quick", "--rounds", "1", "--batch-ms", "1", "--threads", "default",
            "--filter", "^tiny (add|mul)$", "--json", str(out)]  # fmt: skip
    code = (_NO_TORCH if torch_absent else "") + (
        f"import sys, runpy; sys.argv = ['compare.py', *{argv!r}]\n"
        "runpy.run_path('benchmarks/compare.py', run_name='__main__')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json

    res = json.loads(out.read_text())
    assert [r["name"] for r in res["results"]] == ["tiny add", "tiny mul"]
    assert all(r["seconds"].get("numtorch") for r in res["results"])
    assert all(("torch" in r["seconds"]) != torch_absent for r in res["results"])


def test_memory_script_runs(tmp_path):
    out = tmp_path / "mem.json"
    code = ("import sys, runpy; sys.argv = ['memory.py', '--steps', '3', '--every', '2', "
            f"'--json', {str(out)!r}]\nrunpy.run_path('benchmarks/memory.py', run_name='__main__')\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json

    from benchmarks import memory

    res = json.loads(out.read_text())
    assert ("torch" in res) == (common.torch_or_none() is not None)
    for r in res.values():
        assert [i for i, _ in r["trace"]] == [2, 3]  # every 2nd step and the last
        assert 0 < r["import"] <= r["model"] and all(v <= r["peak"] * 1.01 for _, v in r["trace"])
        assert memory.growth(r, after=2) == r["trace"][1][1] - r["trace"][0][1]
    assert "peak numtorch / PyTorch" in proc.stdout or "torch" not in res
