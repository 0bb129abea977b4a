"""examples/extending_torch_dispatch.py runs and passes its own checks (the note's logs)."""

from __future__ import annotations

import pathlib
import runpy

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "extending_torch_dispatch.py"


def test_dispatch_example_prints_the_notes_logs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "Dispatch Log: aten.rand.default(*([10],), **{'device': device(type='cpu'), 'pin_memory': False})" in out
    assert "Dispatch Log: aten.expand.default(*(tensor(1.), [10]), **{})" in out
    assert out.rstrip().endswith("the note's logs: same calls in the same order")
