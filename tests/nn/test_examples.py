"""The examples run and pass their own checks (examples/extending_nn.py,
examples/extending_torch_function.py, examples/main.py)."""

from __future__ import annotations

import os
import pathlib
import runpy
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_extending_nn_example_prints_the_notes_repr(capsys):
    runpy.run_path(str(EXAMPLES / "extending_nn.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "Linear(input_features=4, output_features=3, bias=True)" in out
    assert "gradcheck through the note's Linear: True" in out


def test_extending_torch_function_example_prints_the_notes_lines(capsys):
    runpy.run_path(str(EXAMPLES / "extending_torch_function.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "ScalarTensor(N=2, value=4)" in out
    assert "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\ntensor([[2, 4]," in out
    assert "Function Log: torch.rand(*(10,), **{'requires_grad': True})" in out
    assert out.rstrip().endswith("every example of the note's __torch_function__ sections: OK")


@pytest.mark.slow
def test_main_example_reaches_97_percent(tmp_path):
    pytest.importorskip("sklearn")
    plot = tmp_path / "loss.png"
    root = str(EXAMPLES.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    # a subprocess: main.py pins BLAS/Numba threads through the environment before importing NumPy
    run = subprocess.run([sys.executable, str(EXAMPLES / "main.py"), "--no-torch", "--plot", str(plot)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = run.stdout.replace("\r", "\n").splitlines()
    assert any(line.startswith("epoch 15  loss") for line in lines)
    assert any("[" + "#" * 30 + "]" in line for line in lines)  # the progress bar
    acc = float(next(ln for ln in lines if ln.startswith("final test accuracy")).split()[-1][:-1])
    assert acc >= 97.0
    assert plot.exists() or "matplotlib is not installed" in run.stdout
