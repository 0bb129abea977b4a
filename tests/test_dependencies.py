"""What a fresh install has: numtorch imports nothing beyond numpy, numba, llvmlite and ml_dtypes.

A reference or helper that needs another package (scipy, torch, numba-cuda) imports it inside
the function that uses it, so ``import numtorch`` and ``numtorch.testing`` work on a machine
where only the run-time dependencies are installed (the test extra adds none that numtorch needs).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numtorch

ROOT = Path(numtorch.__file__).parent
ALLOWED = {"numpy", "numba", "llvmlite", "ml_dtypes", "numtorch"}


def _module_level_imports(tree: ast.Module):
    """Imports executed when the module is imported: module body, including if/try blocks,
    but not function or class bodies' functions (those run later, on use)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Import):
            yield node.lineno, [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, [node.module]
        stack.extend(ast.iter_child_nodes(node))


def _third_party(name: str) -> bool:
    top = name.split(".")[0]
    return top not in ALLOWED and top not in sys.stdlib_module_names and top != "__future__"


def test_package_imports_only_its_declared_dependencies_at_import_time():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for lineno, names in _module_level_imports(tree):
            offenders += [f"{path.relative_to(ROOT)}:{lineno} imports {n}" for n in names if _third_party(n)]
    assert offenders == [], "import these lazily inside the function that needs them:\n" + "\n".join(offenders)


def test_the_check_sees_a_module_level_import():
    tree = ast.parse("import os\ntry:\n    from scipy import special\nexcept ImportError:\n    pass\n"
                     "def f():\n    import torch\n")
    found = [n for _, names in _module_level_imports(tree) for n in names if _third_party(n)]
    assert found == ["scipy"]


def test_import_numtorch_and_its_testing_tables_without_scipy():
    # a subprocess in which scipy (and torch) cannot be imported, as on a fresh machine
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('scipy', 'torch', 'sklearn', 'matplotlib'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numtorch, numtorch.testing._opinfo as o\n"
        "print(len(o.op_db))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout.split()[-1]) > 400


def test_import_numtorch_leaves_heavy_modules_for_first_use():
    # start-up budget (README, numtorch.compile: compile time): Numba and its LLVM load at the
    # first kernel (Note [Kernel cache layout]), urllib's http/email/ssl at numtorch.hub's first
    # download, scipy never at import
    code = "import sys, numtorch\nprint(' '.join(sorted(sys.modules)))\n"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    loaded = set(res.stdout.split())
    heavy = {"numba", "llvmlite", "scipy", "urllib.request", "http.client", "ssl", "email.parser"}
    assert loaded & heavy == set()
    assert "numtorch.hub" in loaded  # the check is not vacuous: the module that used to pull urllib
