"""Note [Ufunc route]: a plain same-dtype call of the table's ops is NumPy's ufunc, bit for bit
the kernel's result; everything else keeps the kernel or the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise._ufunc_route import UFUNCS
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

_OPS = {"add": "add.Tensor", "sub": "sub.Tensor", "rsub": "rsub.Tensor", "mul": "mul.Tensor", "div": "div.Tensor",
        "copysign": "copysign.Tensor", "round": "round.default"}  # fmt: skip
_DTYPES = {
    "b": [np.bool_],
    "i": [np.uint8, np.int8, np.int16, np.int32, np.int64],
    "f": [np.float32, np.float64],
}


def _elementwise(name):
    packet = getattr(torch.ops.aten, name)
    ov = _OPS.get(
        name, "Tensor" if UFUNCS[name][0].nin == 2 and "Tensor" in packet.overloads() else "default"
    )
    op = getattr(packet, ov.rpartition(".")[2])
    return op, op.impls["cpu"].__self__


def _special(dt) -> np.ndarray:
    dt = np.dtype(dt)
    if dt.kind == "f":
        u = f"u{dt.itemsize}"
        qnan = np.array([0x7FC00001, 0xFFC00002, 0x7FC00000] if dt.itemsize == 4 else
                        [0x7FF8000000000001, 0xFFF8000000000002, 0x7FF8000000000000], u).view(dt)  # fmt: skip
        with np.errstate(all="ignore"):
            v = np.array(
                [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    0.5,
                    1.5,
                    2.5,
                    -2.5,
                    3e38,
                    -3e38,
                    1e-40,
                    -1e-310,
                    np.inf,
                    -np.inf,
                    7.0,
                    1e300,
                    -0.49999997,
                ]
            )
            return np.concatenate([v.astype(dt), qnan])
    if dt.kind == "b":
        return np.array([False, True])
    ii = np.iinfo(dt)
    return np.array(
        sorted({0, 1, 2, 3, 7, ii.max, ii.min, ii.max - 1, (ii.min + 1) if ii.min else 100}), dt
    )


def _operands(name, dt, shape):
    v = _special(dt)
    if UFUNCS[name][0].nin == 1:
        return [np.resize(v, shape)]
    a, b = np.meshgrid(v, v)
    n = int(np.prod(shape))
    reps = -(-n // a.size)
    return [np.resize(np.tile(x.ravel(), reps), shape) for x in (a, b)]


def _cases():
    for name, (_uf, cats, _, _) in UFUNCS.items():
        for c in cats:
            for dt in _DTYPES[c]:
                yield name, dt


def _spy(ew, dt):
    calls = []
    uf, res, q = ew._uf[dt]
    ew._uf[dt] = (lambda *a, **k: calls.append(1) or uf(*a, **k), res, q)
    return calls


@pytest.mark.parametrize("name,dt", list(_cases()), ids=lambda v: getattr(v, "__name__", v))
def test_ufunc_route_is_the_kernel_bit_for_bit(name, dt):
    op, ew = _elementwise(name)
    for shape in [(251,), (16, 16), (2, 3, 4), (1,)]:
        ops = [torch.from_numpy(x) for x in _operands(name, dt, shape)]
        params = [1] if len(op._schema.arguments) > len(ops) else []
        want = ew(ops, params)  # the kernel (general path or learned signature)
        got = op.fast(*ops, *params)  # the learned ufunc route
        tdt = ops[0].dtype
        assert tdt in ew._uf, "the ufunc route was not learned"
        calls = _spy(ew, tdt)
        try:
            got = op.fast(*ops, *params)
        finally:
            ew._uf[tdt] = (UFUNCS[name][0], *ew._uf[tdt][1:])
        assert calls, "the ufunc route was not taken"
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert got._data.flags.c_contiguous and got._data.__class__ is np.ndarray
        g, w = got._data.copy(), want._data.copy()
        if len(ops) == 2 and g.dtype.kind == "f":
            # which payload a NaN op NaN keeps is each loop's own: NumPy's vector body and its
            # tail pick different operands (Note [Ufunc route])
            both = np.isnan(ops[0]._data) & np.isnan(ops[1]._data)
            assert np.isnan(g[both]).all() and np.isnan(w[both]).all()
            g[both] = w[both] = 0
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("name", ["logical_not", "add", "copysign"])
def test_large_operands_keep_the_kernel(name):
    # NumPy's loops are slower per element than the kernels (logical_not 10x): small ones only
    from numtorch.ops.pointwise._ufunc_route import UFUNC_MAX

    op, ew = _elementwise(name)
    assert UFUNC_MAX < 4096
    for n in (64, UFUNC_MAX, UFUNC_MAX + 1, 4096, 131072):
        ops = [torch.randn(n) for _ in range(len(op._schema.arguments) - (name == "add"))]
        params = [1] if name == "add" else []
        op.fast(*ops, *params)  # learns the signature and the route
        calls = _spy(ew, torch.float32)
        try:
            op.fast(*ops, *params)
        finally:
            ew._uf[torch.float32] = (UFUNCS[name][0], *ew._uf[torch.float32][1:])
        assert bool(calls) == (n <= UFUNC_MAX)


def test_no_warnings_and_zero_dim():
    a = torch.tensor([3e38, 0.0, 1.0, -1.0])
    b = torch.tensor([3e38, 0.0, 0.0, np.inf])
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = [
                a + b,
                a * b,
                a / b,
                a - b,
                torch.sqrt(b - a),
                torch.reciprocal(b),
                torch.logical_xor(a / b, b),
            ]
    assert r[0].tolist() == [np.inf, 0.0, 1.0, np.inf]
    assert np.isnan(r[2][1].item()) and r[2][2].item() == np.inf
    s = torch.tensor(2.0)
    for _ in range(2):  # 0-d: the kernel (a ufunc returns a NumPy scalar)
        z = s + s
        assert z._data.__class__ is np.ndarray and z.shape == () and z.item() == 4.0


def test_other_calls_keep_the_body():
    _, ew = _elementwise("add")
    x = torch.arange(6.0).reshape(2, 3)
    x + x  # learn
    calls = _spy(ew, torch.float32)
    try:
        assert (x + x.t().contiguous().t()).tolist() == [[0, 2, 4], [6, 8, 10]]  # strided other
        assert torch.add(x, x, alpha=2).tolist() == [[0, 3, 6], [9, 12, 15]]
        assert (x + x.double()).dtype is torch.float64
        assert (x + x[0]).shape == (2, 3) and not calls  # a broadcast: the row kernel (Note [Broadcast ufunc route])
        assert (x + torch.tensor(1.0)).tolist() == [[1, 2, 3], [4, 5, 6]] and len(calls) == 1  # a 0-d operand: the ufunc
        o = torch.empty(2, 3)
        assert torch.add(x, x, out=o) is o and o.tolist() == [[0, 2, 4], [6, 8, 10]]
        g = x.clone().requires_grad_(True)
        y = g + x
        assert y.grad_fn is not None
        assert len(calls) == 2  # the recorded call's forward computes by the same route
        y.sum().backward()
        assert g.grad.tolist() == [[1.0] * 3] * 2
        with capture_logs() as logs, LoggingTensorMode():
            x + x
        assert any("add.Tensor" in line for line in logs)  # the mode saw the call
        n = len(calls)
        with torch.inference_mode():
            assert (x + x).is_inference()  # the ufunc route keeps inference tensors
        assert len(calls) == n + 1
        assert not (x + x).is_inference() and len(calls) == n + 2

        class Sub(torch.Tensor):
            pass

        assert type(x.as_subclass(Sub) + x) is Sub
    finally:
        ew._uf[torch.float32] = (np.add, *ew._uf[torch.float32][1:])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        torch.ones(3, dtype=torch.bool) - torch.ones(3, dtype=torch.bool)
