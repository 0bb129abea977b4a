"""python -m numtorch.utils.collect_env prints the report."""

from __future__ import annotations

import subprocess
import sys

import numtorch
from numtorch.utils import collect_env


def test_report_fields():
    info = collect_env.get_env_info()
    for key in ("numtorch version", "numpy version", "numba version", "llvmlite version", "Python version",
                "numtorch threads (Numba)", "Numba cache", "numtorch kernel cache", "CUDA available", "GPU"):  # fmt: skip
        assert key in info
    assert info["numtorch version"] == numtorch.__version__


def test_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "numtorch.utils.collect_env"], capture_output=True, text=True, check=True)
    assert "numba version:" in out.stdout and "numtorch kernel cache:" in out.stdout
