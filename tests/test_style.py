"""House-style limits that a reviewer should not have to count (STYLE.md rule 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

import numtorch

ROOT = Path(numtorch.__file__).parent
HARD_CAP, KERNEL_CAP = 800, 400


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_stays_under_its_line_cap(path):
    cap = KERNEL_CAP if "kernels" in path.relative_to(ROOT).parts else HARD_CAP
    n = len(path.read_text().splitlines())
    assert n <= cap, f"{path.relative_to(ROOT)} has {n} lines (cap {cap}): split it by concern"


def test_torch_is_never_imported_by_the_package():
    offenders = [
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.py")
        if any(
            line.strip().startswith(("import torch", "from torch"))
            for line in p.read_text().splitlines()
        )
    ]
    assert offenders == []


# ---- numtorch/ops: one package per area, imports pointing one way ---------------------------------
OPS = ROOT / "ops"


def _modname(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(pkg_dir: Path) -> dict:
    """Module -> modules of ``pkg_dir`` it imports, at top level or inside functions (ast only).
    ``from pkg import name`` depends on ``pkg.name`` when that is a module, else on ``pkg``."""
    import ast

    files = {_modname(p, pkg_dir): p for p in sorted(pkg_dir.rglob("*.py"))}
    graph = {m: set() for m in files}
    for mod, path in files.items():
        base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                up = base[: len(base) - node.level + 1] if node.level else []
                prefix = ".".join(up + [node.module] if node.module else up)
                subs = [f"{prefix}.{a.name}" for a in node.names]
                targets = subs + ([prefix] if any(s not in files for s in subs) else [])
            else:
                continue
            graph[mod].update(t for t in targets if t in files and t != mod)
    return graph


def import_circles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, circles = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    circles.append(sorted(comp))
    return circles


def test_the_circle_finder_finds_circles(tmp_path):
    pkg = tmp_path / "ops"
    (pkg / "area").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import area, leaf\n")
    (pkg / "leaf.py").write_text("import numpy\n")
    (pkg / "area" / "__init__.py").write_text("from . import core, spoke\n")
    (pkg / "area" / "core.py").write_text("from ..leaf import x\n\ndef f():\n    from .spoke import g\n")
    (pkg / "area" / "spoke.py").write_text("from .core import f\n")
    (pkg / "other.py").write_text("from .area import name_not_a_module\n")
    graph = import_graph(pkg)
    assert graph["ops.other"] == {"ops.area"}
    assert import_circles(graph) == [["ops.area.core", "ops.area.spoke"]]
    (pkg / "area" / "core.py").write_text("from ..leaf import x\n")
    assert import_circles(import_graph(pkg)) == []
    (pkg / "area" / "spoke.py").write_text("from . import f\n")  # the package, which imports spoke
    assert import_circles(import_graph(pkg)) == [["ops.area", "ops.area.spoke"]]


def test_ops_has_no_import_circle():
    assert import_circles(import_graph(OPS)) == []


# Imports every area of numtorch/ops with ``numtorch`` and ``numtorch.ops`` stubbed out, so that
# nothing has been imported before it: an area that relies on another one's import order, or on a
# circle that the usual ``import numtorch`` order happens to resolve, fails here. Importing any
# module of an area runs the area's __init__ first, so one interpreter per area covers each module
# imported alone; the check that __init__ imported every module keeps that true.
_ALONE = """
import importlib, pathlib, sys, types
root = pathlib.Path(sys.argv[1])
for name, path in (("numtorch", root), ("numtorch.ops", root / "ops")):
    stub = types.ModuleType(name)
    stub.__path__ = [str(path)]
    sys.modules[name] = stub
importlib.import_module(sys.argv[2])
print("\\n".join(m for m in sys.modules if m.startswith(sys.argv[2])))
"""


def test_each_ops_area_imports_alone():
    import subprocess
    import sys

    areas = sorted(_modname(p, ROOT) for p in OPS.iterdir() if p.suffix == ".py" and p.stem != "__init__")
    areas += sorted(_modname(p / "__init__.py", ROOT) for p in OPS.iterdir() if (p / "__init__.py").exists())
    procs = {
        a: subprocess.Popen([sys.executable, "-c", _ALONE, str(ROOT), a], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
        for a in areas
    }
    for area, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{area} does not import alone:\n{err[-2000:]}"
        pkg = OPS / area.split(".")[-1]
        if pkg.is_dir():
            expected = {_modname(p, ROOT) for p in pkg.rglob("*.py")}
            missing = expected - set(out.split())
            assert not missing, f"{area}/__init__.py does not import {sorted(missing)}"


def test_ops_never_import_the_public_package():
    # Note [Composite bodies are below the Python API]: an op body that reaches numtorch.<fn>
    # shows a mode or a patched function a second call; ops call aten overloads or bodies
    import ast

    offenders = []
    for path in sorted((ROOT / "ops").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name == "numtorch" for a in node.names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
