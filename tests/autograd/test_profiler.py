"""autograd.profiler: every dispatched op (forward and backward) becomes an event; record_function
ranges nest them; self time is total minus children; tables and traces come out."""

from __future__ import annotations

import json

import pytest

import numtorch
from numtorch.autograd import profiler


def test_ops_forward_and_backward_are_recorded_with_shapes():
    x = numtorch.ones(3, 3, requires_grad=True)
    x.sin()  # warm the kernels outside the profile
    with profiler.profile(record_shapes=True) as prof:
        y = (x @ x).sin().sum()
        y.backward()
    names = [e.name for e in prof.function_events]
    assert names[:3] == ["aten::mm", "aten::sin", "aten::sum"]
    assert "aten::cos" in names  # sin's backward
    mm = next(e for e in prof.function_events if e.name == "aten::mm")
    assert mm.input_shapes == [[3, 3], [3, 3]] and mm.cpu_time_total >= 0
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mm"].count == names.count("aten::mm")


def test_record_function_nests_and_self_time_excludes_children():
    x = numtorch.ones(4)
    with profiler.profile() as prof:
        with profiler.record_function("outer"):
            with profiler.record_function("inner"):
                x.exp()
            x.cos()
    ev = {e.name: e for e in prof.function_events}
    assert ev["inner"].cpu_parent is ev["outer"] and ev["aten::exp"].cpu_parent is ev["inner"]
    assert ev["aten::cos"].cpu_parent is ev["outer"]
    outer = ev["outer"]
    assert abs(outer.self_cpu_time_total - (outer.cpu_time_total - ev["inner"].cpu_time_total - ev["aten::cos"].cpu_time_total)) < 1e-6
    total = sum(e.self_cpu_time_total for e in prof.function_events)
    assert abs(total - outer.cpu_time_total) < 1e-6  # top-level range covers everything


def test_table_trace_and_errors(tmp_path):
    @profiler.record_function("fn")
    def f(t):
        return t * 2

    x = numtorch.ones(2)
    with profiler.profile() as prof:
        f(x)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    assert "Self CPU %" in table and "aten::mul" in table and "Self CPU time total:" in table
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        prof.key_averages().table(sort_by="bogus")
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert {e["name"] for e in json.loads(path.read_text())["traceEvents"]} == {"fn", "aten::mul"}
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        profiler.profile().key_averages()
    assert not numtorch.autograd.kineto_available()
    assert numtorch.autograd.ProfilerState.Disabled.value == 0 and numtorch.autograd.DeviceType.CPU.value == 0
    assert numtorch.autograd.profiler_legacy.profile is profiler.profile
