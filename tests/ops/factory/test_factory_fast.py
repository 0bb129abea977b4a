"""Note [Factory fast path]: ops without a tensor argument run their CPU kernel from op.fast;
a dispatch mode, a vmap level, another device or a bfloat16 dtype take slow_dispatch."""

from __future__ import annotations

import pytest

import numtorch as torch
from numtorch.ops._registry import OPS
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _spied(monkeypatch, name):
    op = OPS[name]
    op.fast(*_ARGS[name])  # generated on first use
    seen = []

    def spy(o, vals):
        seen.append(o)
        return _slow(o, vals)

    from numtorch._dispatch import slow_dispatch as _slow

    monkeypatch.setitem(op.fast.__globals__, "_slow", spy)
    return seen


_ARGS = {
    "aten::zeros": ([2], None, None, None, None),
    "aten::full": ([2], 1.5, None, None, None, None),
    "aten::arange": (5, None, None, None, None),
}


_CALLS = {
    "aten::zeros": lambda **kw: torch.zeros(2, 3, **kw),
    "aten::full": lambda **kw: torch.full((2,), 1.5, **kw),
    "aten::arange": lambda **kw: torch.arange(5, **kw),
}


@pytest.mark.parametrize("name", sorted(_ARGS))
def test_plain_cpu_factories_skip_the_keys(monkeypatch, name):
    seen = _spied(monkeypatch, name)
    call = _CALLS[name]
    want = call(device="meta")  # the keys: device_type_of reads device=
    assert want.is_meta and len(seen) == 1
    r = call()
    assert r.shape == want.shape and r.dtype is want.dtype and not r.is_meta
    assert call(device="cpu", dtype=torch.float64).dtype is torch.float64
    assert len(seen) == 1


def test_bfloat16_modes_and_vmap_take_the_keys(monkeypatch):
    seen = _spied(monkeypatch, "aten::zeros")
    z = torch.zeros(3, dtype=torch.bfloat16)
    assert z.dtype is torch.bfloat16 and z.tolist() == [0.0, 0.0, 0.0] and len(seen) == 1
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.zeros(2)
    assert any("aten.zeros" in ln for ln in logs) and len(seen) == 2
    torch.func.vmap(lambda x: x + torch.zeros(3))(torch.ones(2, 3))
    assert len(seen) == 3
    r = torch.zeros(2, requires_grad=True)  # the binding sets requires_grad afterwards
    assert r.requires_grad and r.grad_fn is None and len(seen) == 3
