"""The fast calls of the tensor-list joins (Note [Tensor-list binding fast call]) against their
bodies: same values, dtype, shape and C-order strides, the same errors; plain calls take the
fast route, and modes, gradients, out= and tensor subclasses take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.shape import join_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

NAMES = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
         "column_stack"]  # fmt: skip
WITH_DIM = {"cat", "concat", "concatenate", "stack"}


def _binding(name):
    (b,) = [b for b in BINDINGS if b.module == "torch" and b.name == name]
    assert b.fast is not None, "no fast call installed"
    return b


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _t(*shape, dtype=torch.float32, start=0):
    n = int(np.prod(shape)) if shape else 1
    return torch.arange(start, start + n, dtype=dtype).reshape(shape)


def _lists():
    yield [_t(2, 3), _t(2, 3, start=6), _t(2, 1, start=12)]
    yield [_t(2, 3), _t(1, 3, start=6)]
    yield [_t(3), _t(2, start=3)]
    yield [_t(4), _t(4, start=4)]
    yield [_t(2, 3, 4), _t(2, 3, 4, start=24).transpose(0, 2).contiguous().transpose(0, 2)]
    yield [_t(3, 2).t(), _t(2, 3, start=6)]  # non-contiguous input
    yield [_t(2, 3, dtype=torch.int64), _t(2, 3, dtype=torch.int64, start=9)]
    yield [_t(2, 2) > 1, _t(2, 2) > 2]
    yield [_t(2, 3)]
    yield (_t(2, 3), _t(2, 3, start=1))  # a tuple
    yield [_t(0), _t(3)]  # a legacy empty tensor
    yield [_t(0, 3), _t(2, 3)]
    yield [_t(2, 0), _t(2, 0)]
    yield [_t(3), _t(3, 1)]  # ranks differ
    yield [_t(2, 3), _t(3, 3)]  # sizes differ off dim 1
    yield [_t(2, 3), _t(1, 1)]  # broadcastable sizes are still an error
    yield [_t(), _t()]  # 0-d
    yield [_t(2, 3), _t(2, 3, dtype=torch.float64)]  # dtypes promote: the body
    yield [_t(2, 3), 1.0]
    yield []


def _same(r, want):
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r.is_contiguous() and np.array_equal(r.numpy(), want.numpy())


@pytest.mark.parametrize("name", NAMES)
def test_fast_call_matches_body(name):
    b = _binding(name)
    fn = getattr(torch, name)
    dims = (0, 1, -1, 2, -3, 3) if name in WITH_DIM else (None,)
    fast_ran = 0
    for ts in _lists():
        for d in dims:
            args = (ts,) if d is None else (ts, d)
            want = _outcome(b.body, *args, None)
            _same(_outcome(fn, *args), want)
            fast_ran += b.fast[0](*args) is not None
    assert fast_ran >= 8  # the plain cases took the fast route


def test_plain_calls_take_the_fast_route(monkeypatch):
    def spy(*a):
        raise AssertionError("the body ran")

    for name in NAMES:  # the generated wrapper reads its body from its own namespace
        monkeypatch.setitem(getattr(torch, name).__globals__, "_body", spy)
    x, y = _t(2, 3), _t(2, 3, start=6)
    assert torch.cat([x, y], 1).shape == (2, 6) and torch.concat((x, y)).shape == (4, 3)
    assert torch.concatenate([x, y], -1).shape == (2, 6)
    assert torch.stack([x, y]).shape == (2, 2, 3) and torch.stack([x, y], 2).shape == (2, 3, 2)
    assert torch.hstack([x, y]).shape == (2, 6) and torch.dstack([x, y]).shape == (2, 3, 2)
    assert torch.vstack([x, y]).shape == torch.row_stack([x, y]).shape == (4, 3)
    assert torch.column_stack([_t(3), _t(3, 2)]).shape == (3, 3)
    with pytest.raises(AssertionError, match="the body ran"):  # the spy is live
        torch.cat([x, y], out=torch.empty(0))


def test_modes_grad_out_and_subclasses_take_the_body():
    x, y = _t(2, 3), _t(2, 3, start=6)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.cat([x, y]), torch.stack([x, y]), torch.vstack([x, y])
    seen = " ".join(logs)
    assert "aten.cat" in seen and "aten.stack" in seen
    w = _t(2, 3, dtype=torch.float64).requires_grad_(True)
    v = _t(2, 3, dtype=torch.float64, start=3)
    for name in NAMES:
        args = ([w, v], 1) if name in WITH_DIM else ([w, v],)
        assert _binding(name).fast[0](*args) is None
        r = getattr(torch, name)(*args)
        assert r.grad_fn is not None
        r.sum().backward()
    assert np.array_equal(w.grad.numpy(), np.full((2, 3), 9.0))  # nine joins, each once
    with torch.no_grad():
        assert torch.cat([w, v]).grad_fn is None
    out = torch.empty(0)
    assert torch.cat([x, y], 0, out=out) is out and out.shape == (4, 3)
    out = torch.empty(0)
    assert torch.stack([x, y], out=out) is out and out.shape == (2, 2, 3)

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(torch.cat([s, y])) is Sub and type(torch.hstack([y, s])) is Sub
    assert join_fast.cat([s, y], 0) is None


def test_inference_mode_result_is_an_inference_tensor():
    x = _t(2, 3)
    with torch.inference_mode():
        r = torch.cat([x, x])
    assert r.is_inference()


def test_autocast_region_takes_the_op():
    # cat/stack are on the CPU promote list: the key wraps op.fast, which the fast call skips
    x, y = _t(2, 3), _t(2, 3, dtype=torch.float64)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert join_fast.cat([x, x], 0) is None and join_fast.stack([x, x], 0) is None
        assert torch.cat([x, y]).dtype is torch.float64


def _meshgrid_inputs():
    a, b, c = _t(3), _t(2, start=3), _t(4, start=5)
    yield (a, b)
    yield (a, b, c)
    yield ([a, b],)  # one list argument
    yield (a,)
    yield (_t(), b)  # 0-d
    yield (_t(6)[::2], b)  # non-contiguous: the body
    yield (_t(0), b)  # empty: the body
    yield (_t(2, 2), b)  # 2-D: the body's error
    yield (a, _t(2, dtype=torch.float64))  # dtypes differ: the body's error
    yield (a, 1.0)


@pytest.mark.parametrize("indexing", ["ij", "xy", "yx"])
def test_meshgrid_fast_call_matches_body(indexing):
    b = _binding("meshgrid")
    ran = 0
    for args in _meshgrid_inputs():
        fresh = [x.clone() if isinstance(x, torch.Tensor) else x for x in args]
        if isinstance(args[0], list):
            fresh = ([x.clone() for x in args[0]],)
        want = _outcome(b.body, tuple(fresh), indexing)
        r = _outcome(lambda *a: torch.meshgrid(*a, indexing=indexing), *fresh)
        ran += b.fast[0](tuple(fresh), indexing) is not None
        if isinstance(want, tuple) and want and isinstance(want[0], type):
            assert r == want
            continue
        inputs = fresh[0] if isinstance(fresh[0], list) else fresh
        for g, w, x in zip(r, want, inputs, strict=True):
            assert (
                g.shape == w.shape
                and g.stride() == w.stride()
                and g.storage_offset() == w.storage_offset()
            )
            assert g._base is w._base is x and np.array_equal(g.numpy(), w.numpy())
            if not g.numel():
                continue
            v = x._version
            g[(0,) * g.dim()] = -7  # writes reach the input and bump its version
            assert x._version > v and x.reshape(-1)[0].item() == -7
    assert ran >= (5 if indexing != "yx" else 0)


def test_meshgrid_without_indexing_warns_and_grad_takes_the_body():
    with pytest.warns(UserWarning, match="indexing argument"):
        g = torch.meshgrid(_t(3), _t(2))
    assert g[0].shape == (3, 2)
    w = _t(3, dtype=torch.float64).requires_grad_(True)
    assert _binding("meshgrid").fast[0]((w, w), "ij") is None
    gx, gy = torch.meshgrid(w, w, indexing="ij")
    assert gx.grad_fn is not None
    assert torch.autograd.gradcheck(lambda t: torch.meshgrid(t, t, indexing="xy")[0], (w,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int8, torch.bool])
def test_narrow_rows_join_by_columns(dtype, monkeypatch):
    # Note [Narrow rows by columns]: many rows joined along a narrow last dim copy column by column
    calls = []
    real = join_fast.by_columns
    monkeypatch.setattr(join_fast, "by_columns", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(2)

    def t(*shape):
        return torch.from_numpy(rng.standard_normal(shape) * 50).to(dtype)

    a, b, c = t(5000, 3), t(5000, 2), t(5000, 1)
    for name, args in [("cat", ([a, b, c], 1)), ("cat", ([a, b], -1)), ("concatenate", ((a, c), 1)),
                       ("hstack", ([a, b],)), ("column_stack", ([t(5000), b],)), ("cat", ([a, t(5000, 0)], 1)),
                       ("cat", ([a.t().contiguous().t(), b], 1))]:  # fmt: skip
        r = getattr(torch, name)(*args)
        want = _binding(name).body(*args, None)  # out=None
        assert r.shape == want.shape and r.stride() == want.stride() and r.dtype == want.dtype
        assert r._data.tobytes() == want._data.tobytes()
    assert len(calls) >= 7 * 2
    calls.clear()
    for args in ([a, t(4000, 2)], [t(4000, 3), t(4000, 2)], [a, t(5000, 6)], [a, t(5000, 3, 1)]):
        r = _outcome(torch.cat, args, 1)
        assert r == _outcome(_binding("cat").body, args, 1, None) if isinstance(r, tuple) else r.shape[1] in (5, 9)
    assert not calls  # heights differ, too few rows, too wide, ranks differ


def test_broadcast_tensors_of_one_shape_are_the_inputs(monkeypatch):
    x, y = _t(2, 3), _t(2, 3, start=6)
    body = [b for b in BINDINGS if b.module == "torch" and b.name == "broadcast_tensors"][0]
    assert body.fast is not None
    for args in [(x, y), ([x, y],), ((x, y),), (x,)]:
        r, want = torch.broadcast_tensors(*args), body.body(args)
        assert isinstance(r, tuple) and len(r) == len(want) and all(u is v for u, v in zip(r, want, strict=True))
    assert join_fast.broadcast_tensors((x, y)) == (x, y)
    for args in [(x, _t(3)), (x, _t(2, 3, dtype=torch.int64).reshape(2, 3)[:, :2]), (x, 1.0), ()]:
        assert join_fast.broadcast_tensors(args) is None  # shapes differ, not tensors, none: the body
    assert [t.shape for t in torch.broadcast_tensors(x, _t(3))] == [(2, 3), (2, 3)]
    w = _t(2, 3, dtype=torch.float64).requires_grad_(True)
    assert join_fast.broadcast_tensors((w, w)) is None
    with LoggingTensorMode():
        assert join_fast.broadcast_tensors((x, y)) is None

    def spy(*a):
        raise AssertionError("the body ran")

    monkeypatch.setitem(torch.broadcast_tensors.__globals__, "_body", spy)
    assert torch.broadcast_tensors(x, y)[1] is y
    with pytest.raises(AssertionError, match="the body ran"):  # the spy is live
        torch.broadcast_tensors(x, _t(3))
