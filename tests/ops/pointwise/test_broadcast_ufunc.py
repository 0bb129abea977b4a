"""Note [Broadcast ufunc route]: two C-contiguous same-dtype operands of different shapes run the
row kernel through its compiled entry once it has run for the shapes (the ufunc only for a 0-d
operand), bit for bit the dispatched row kernel's result; a program that only ever broadcasts
learns the op's signature (Note [Elementwise fast signatures])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise._ufunc_route import UFUNCS

from .test_ufunc_route import _DTYPES, _elementwise, _special, _spy

# rsub has no Tensor-Tensor dunder of its own; the shifts learn from the prepared path
_BINARY = [name for name, spec in UFUNCS.items() if spec[0].nin == 2 and name != "rsub" and "shift" not in name]


def _cases():
    for name in _BINARY:
        for c in UFUNCS[name][1]:
            for dt in _DTYPES[c]:
                yield name, dt


def _pairs(dt):
    v = _special(dt)
    k = len(v)
    square = np.resize(np.roll(v, 3), (k, k))
    # an outer broadcast both ways, a row (bias) and a column over a matrix
    return [(v[:, None].copy(), v[None, :].copy()), (square, v.copy()), (square, v[:, None].copy())]


def _bits(got, want, a, b):
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got._data.flags.c_contiguous
    g, w = got._data.copy(), want._data.copy()
    if g.dtype.kind == "f":  # which payload NaN op NaN keeps is each loop's own (Note [Ufunc route])
        both = np.isnan(np.broadcast_to(a, g.shape)) & np.isnan(np.broadcast_to(b, g.shape))
        assert np.isnan(g[both]).all() and np.isnan(w[both]).all()
        g[both] = w[both] = 0
    assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("name,dt", list(_cases()), ids=lambda v: getattr(v, "__name__", v))
def test_broadcast_ufunc_is_the_row_kernel_bit_for_bit(name, dt):
    op, ew = _elementwise(name)
    for a, b in _pairs(dt):
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        params = [1] if len(op._schema.arguments) > 2 else []
        op.fast(x, x, *params)  # learns the same-dtype signature and the ufunc
        tdt = x.dtype
        saved = ew._uf.pop(tdt)
        try:
            want = op.fast(x, y, *params)  # strided_call's row kernel
        finally:
            ew._uf[tdt] = saved
        op.fast(x, y, *params)  # the row kernel has run: its entry is kept
        plan = ew._bp.get((tdt, x._data.shape, y._data.shape))
        assert plan is not None and plan[3] is not None, "the row kernel's entry was not kept"
        calls = _spy(ew, tdt)
        try:
            got = op.fast(x, y, *params)
        finally:
            ew._uf[tdt] = saved
        assert not calls  # the row kernel, not the ufunc
        _bits(got, want, a, b)


def test_broadcasts_run_the_row_kernel_at_every_size():
    op, ew = _elementwise("add")
    x = torch.ones(512, 256)
    b = torch.arange(256, dtype=torch.float32)
    op.fast(x, x, 1)
    calls = _spy(ew, x.dtype)
    try:
        for _ in range(2):
            r = x + b
            small = x[:4] + b
    finally:
        ew._uf[x.dtype] = (np.add, *ew._uf[x.dtype][1:])
    assert not calls
    assert ew._bp[(x.dtype, (512, 256), (256,))][3] is not None
    assert np.array_equal(r._data, 1 + np.arange(256, dtype=np.float32)[None].repeat(512, 0))
    assert np.array_equal(small._data, r._data[:4])
    op, ew = _elementwise("logical_and")
    x = torch.ones(20, 20, dtype=torch.bool)
    op.fast(x, x)
    calls = _spy(ew, x.dtype)
    try:
        torch.logical_and(x, torch.tensor(True))  # 400 elements: past the slow loops' UFUNC_MAX
        torch.logical_and(x[:10], torch.tensor(True))  # a 0-d operand below it: the ufunc
    finally:
        ew._uf[x.dtype] = (np.logical_and, *ew._uf[x.dtype][1:])
    assert len(calls) == 1


def test_broadcast_calls_alone_learn_the_signature():
    _, ew = _elementwise("mul")
    dt = torch.float64
    saved = {k: dict(getattr(ew, k)) for k in ("_sig", "_uf", "_dtype_cache")}
    try:
        for k in saved:
            getattr(ew, k).clear()
        a = torch.tensor([[1.0], [2.0], [3.0]], dtype=dt)
        b = torch.tensor([4.0, 5.0], dtype=dt)
        r = a * b  # the general path, which learns from a broadcast call now
        assert (dt, dt, False) in ew._sig and dt in ew._uf
        r2 = a * b
        assert ew._bp[(dt, (3, 1), (2,))][3] is not None  # the row kernel's entry (Note [Inlined broadcast plans])
        assert np.array_equal(r._data, a._data * b._data) and np.array_equal(r2._data, r._data)
    finally:
        for k, v in saved.items():
            getattr(ew, k).clear()
            getattr(ew, k).update(v)


def test_broadcast_with_grad_and_modes_still_match():
    a = torch.tensor([[1.0], [2.0]], requires_grad=True)
    b = torch.tensor([3.0, -4.0, 0.5], requires_grad=True)
    (a * b).sum().backward()
    assert np.array_equal(a.grad._data, np.full((2, 1), -0.5, np.float32))
    assert np.array_equal(b.grad._data, np.full(3, 3.0, np.float32))
    assert torch.autograd.gradcheck(lambda x, y: x / y, (a.detach().double().requires_grad_(),
                                                       (b.detach().double() + 5).requires_grad_()))  # fmt: skip
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    with capture_logs() as logs, LoggingTensorMode():
        torch.add(a.detach(), b.detach())
    assert any("add" in line for line in logs)
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.ones(2, 3) + torch.ones(4)
