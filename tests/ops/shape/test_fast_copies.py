"""The fast calls of flip/fliplr/flipud, roll, rot90, triu/tril and diag (Note [Shape-copy fast
calls]) against their bodies: same values (bit for bit), dtype, shape, strides, view-ness and
errors; plain calls take the fast route, and gradients, modes, out= and bad arguments take the
body."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.shape import fast_copies as fc
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

CORES = {"flip": fc._flip, "fliplr": fc._fliplr, "flipud": fc._flipud, "roll": fc._roll, "rot90": fc._rot90,
         "triu": fc._CORES["triu", "self, diagonal=0"], "tril": fc._CORES["tril", "self, diagonal=0"],
         "diag": fc._diag, "repeat_interleave": fc._repeat_interleave, "diag_embed": fc._diag_embed,
         "diff": fc._diff}  # fmt: skip


def _bindings(name):
    out = [
        b
        for b in BINDINGS
        if b.module in ("torch", "Tensor") and b.name == name and b.fast is not None
    ]
    assert out, "no fast call installed"
    return out


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _same(r, want):
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r.storage_offset() == want.storage_offset() and r._is_view() == want._is_view()
    if want._base is not None:  # a view of the op's own copy (rot90, repeat_interleave)
        assert r._base.shape == want._base.shape and r._base.stride() == want._base.stride()
    assert r.numpy().tobytes() == want.numpy().tobytes()


def _inputs():
    rng = np.random.default_rng(0)
    for shape in [(2, 3, 4), (5, 3), (7,), (1, 1, 3), (2000, 3), (4, 1, 2, 3)]:
        a = rng.standard_normal(shape)
        a.flat[0] = np.nan
        yield torch.from_numpy(a.astype(np.float32))
    yield torch.arange(24).reshape(2, 3, 4)
    yield torch.arange(12).reshape(3, 4) > 5
    yield torch.zeros(2, 3, 4).transpose(0, 2)  # non-contiguous
    yield torch.zeros(0, 3)
    yield torch.tensor(3.0)


ARGS = {
    "flip": [((0, 2),), ([1],), (0,), ((-1,),), ((0, 0),), ((3,),), ((),), ((0.0,),), ([0, 1, 2],), ((-4,),)],
    "fliplr": [()],
    "flipud": [()],
    "roll": [(1,), (-7,), (0,), ((2,),), (1, 0), (3, -1), ((1,), (1,)), ((1, 2), (0, 1)), (1, 5), (1.0,), ((1, 2),),
             (5, (0,)), ([], None)],
    "rot90": [(-1, (2, 0)), (1, (0, 1)), (2, (0, -1)), (3, (1, 2)), (0, (0, 1)), (5, (0, 1)), (1, (0, 0)),
              (1, (0, 1, 2)), (1, (0, 3)), (1.0, (0, 1)), (1, None), (-3, [1, 0])],
    "triu": [(1,), (0,), (-1,), (5,), (-9,), (1.0,)],
    "tril": [(1,), (0,), (-1,), (5,), (-9,), (True,)],
    "diag": [(0,), (1,), (-2,), (9,), (-9,), (1.5,)],
    "repeat_interleave": [(2,), (1,), (3, 0), (2, -1), (2, 1), (0,), (-1,), (2, 5), (2.0,), (True,),
                          (torch.tensor([1, 2]), 0)],
    "diag_embed": [(), (1,), (-2,), (0, -2, -1), (1, 1, 2), (0, -1, -2), (0, 0, 1), (0, 5, 6), (1.0,), (0, -2, -2)],
    "diff": [(), (0,), (2, 0), (3, -1), (5, 1), (1, -2), (-1,), (1, 4), (1.0,), (True,), (1, 0, None, None),
             (1, -1, torch.zeros(1)), (0, 0, None, torch.zeros(2))],
}  # fmt: skip


def _full(fn, args):
    ba = inspect.signature(fn).bind(*args)
    ba.apply_defaults()
    return tuple(ba.arguments.values())


@pytest.mark.parametrize("name", sorted(ARGS))
def test_fast_call_matches_body(name):
    ran = 0
    for b in _bindings(name):
        fn = getattr(torch, name) if b.module == "torch" else getattr(torch.Tensor, name)
        for x in _inputs():
            for args in ARGS[name]:
                full = _full(fn, (x, *args))
                want = _outcome(b.body, *full)
                _same(_outcome(fn, x, *args), want)
                r = _outcome(CORES[name], *full)
                if r is not None:
                    ran += 1
                    _same(r, want)
    assert ran > 10


def test_grad_modes_and_out_take_the_body():
    x = torch.randn(3, 4, requires_grad=True)
    calls = [("flip", (x, (0,))), ("fliplr", (x,)), ("flipud", (x,)), ("roll", (x, 1)), ("rot90", (x, 1, (0, 1))),
             ("triu", (x, 1)), ("tril", (x, 0)), ("diag", (x, 0)), ("repeat_interleave", (x, 2, 1)), ("diag_embed", (x, 1)),
             ("diff", (x, 2, 0))]  # fmt: skip
    for name, args in calls:
        assert CORES[name](*args) is None
        r = getattr(torch, name)(*args)
        assert r.grad_fn is not None
        r.sum().backward()
        plain = (args[0].detach(), *args[1:])
        assert CORES[name](*plain) is not None
        with LoggingTensorMode(), capture_logs() as logs:
            getattr(torch, name)(*plain)
        assert logs, name
    assert x.grad is not None
    assert fc._repeat_interleave(x.detach(), 2, None, 24) is None  # output_size: the body's check
    assert torch.repeat_interleave(x.detach(), 2, output_size=24).shape == (24,)
    out = torch.empty(3, 4)
    assert fc._CORES["triu", "input, diagonal=0, *, out=None"](x.detach(), 0, out) is None
    torch.triu(x.detach(), 0, out=out)
    assert np.array_equal(out.numpy(), np.triu(x.detach().numpy()))


def test_copy__matches_body():
    (b,) = [b for b in BINDINGS if b.module == "Tensor" and b.name == "copy_"]
    assert b.fast is not None
    for dst_fn, src_fn in [(lambda: torch.zeros(2, 3), lambda: torch.arange(6.0).reshape(2, 3)),
                           (lambda: torch.zeros(2, 3), lambda: torch.arange(3.0)),  # broadcast: the body
                           (lambda: torch.zeros(2, 3), lambda: torch.arange(6).reshape(2, 3)),  # cast: the body
                           (lambda: torch.zeros(3, 2).t(), lambda: torch.arange(6.0).reshape(2, 3)),
                           (lambda: torch.zeros(2, 3), lambda: torch.arange(6.0).reshape(3, 2).t()),
                           (lambda: torch.zeros(2, 2), lambda: torch.arange(6.0).reshape(2, 3)),  # shapes differ
                           (lambda: torch.zeros(0, 3), lambda: torch.zeros(0, 3))]:  # fmt: skip
        d1, d2, s = dst_fn(), dst_fn(), src_fn()
        v1, v2 = d1._version, d2._version
        r1, r2 = _outcome(d1.copy_, s), _outcome(lambda t, u: b.body(t, u, False), d2, s)
        if isinstance(r2, tuple):
            assert r1 == r2
            continue
        assert r1 is d1 and r2 is d2 and np.array_equal(d1.numpy(), d2.numpy())
        assert d1._version - v1 == d2._version - v2 == 1
    x = torch.zeros(2, 3)
    assert fc._copy_(x, x) is None  # itself: the body (a version bump only)
    assert fc._copy_(x[:, :2], x[:, 1:]) is None  # shared memory: the body's overlap checks
    assert fc._copy_(x, 1.0) is None
    assert fc._copy_(x, torch.ones(2, 3)) is x and x.sum().item() == 6.0
    w = torch.zeros(2, 3, requires_grad=True)
    src = torch.ones(2, 3, requires_grad=True)
    assert fc._copy_(w, src) is None and fc._copy_(torch.zeros(2, 3), src) is None
    y = torch.zeros(2, 3).requires_grad_(False)
    r = y.clone().copy_(src)
    assert r.grad_fn is not None
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.copy_(src)
    with torch.inference_mode():
        inf = torch.zeros(2, 3)
    with pytest.raises(
        RuntimeError, match="Inplace update to inference tensor outside InferenceMode"
    ):
        inf.copy_(torch.ones(2, 3))
    with LoggingTensorMode(), capture_logs() as logs:
        torch.zeros(2, 3).copy_(torch.ones(2, 3))
    assert any("copy_" in line for line in logs)


def test_diff_fast_route_special_values_and_dtypes():
    x = torch.tensor([[float("inf"), float("inf"), 1.0, float("nan")], [-0.0, 0.0, -1e38, 3e38]])
    b = [b for b in _bindings("diff") if b.module == "torch"][0]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inf - inf: no RuntimeWarning
        for n, d in [(1, -1), (2, -1), (1, 0), (3, 1)]:
            r = fc._diff(x, n, d)
            assert r is not None
            _same(r, b.body(x, n, d, None, None))
    for dt in (torch.float64, torch.int32, torch.int64):
        y = (torch.arange(12) ** 3 * 7919).reshape(3, 4).to(dt)
        _same(fc._diff(y, 2, 1), b.body(y, 2, 1, None, None))
    for dt in (torch.float16, torch.bfloat16, torch.int8, torch.bool, torch.complex64):
        assert fc._diff(torch.ones(3, 4).to(dt), 1, -1) is None  # the body
    r = fc._diff(x, 0, 0)
    assert r is not None and r._data is not x._data and r._base is None  # n=0: the clone


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.bool_, np.complex64])
def test_narrow_rows_by_columns(dtype, monkeypatch):
    # Note [Narrow rows by columns]: many narrow rows flipped (either end) or rotated copy one
    # column at a time; bits, shape and strides as the body's
    calls = []
    real = fc.by_columns
    monkeypatch.setattr(fc, "by_columns", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(1)
    for shape in [(5000, 3), (4096, 2), (5000, 4), (4100, 3, 1), (1500, 3, 4), (5000, 5), (4095, 3)]:
        a = rng.standard_normal(shape) * 100
        if np.dtype(dtype).kind == "c":
            a = a + 1j * a[::-1]
        x = torch.from_numpy(a.astype(dtype))
        for name, args in [("flipud", ()), ("fliplr", ()), ("flip", ((x.dim() - 1,),)), ("flip", ((0,),)),
                           ("rot90", (1, (0, 1))), ("rot90", (-1, (0, x.dim() - 1)))]:  # fmt: skip
            b = [b for b in _bindings(name) if b.module == "torch"][0]
            want = b.body(x, *_full(getattr(torch, name), (x, *args))[1:])
            _same(getattr(torch, name)(x, *args), want)
    n = len(calls)
    assert n >= 10  # the route ran: (5000, 3), (4100, 3, 1) by rows and columns, ...
    calls.clear()
    torch.flipud(torch.zeros(4095, 3)), torch.fliplr(torch.zeros(5000, 5)), torch.flipud(torch.zeros(5000, 2))
    assert not calls  # too few rows, too wide, a whole 8-byte row: NumPy's copy

def test_copy__owning_arrays_skip_the_overlap_test(monkeypatch):
    seen = []
    real = np.may_share_memory
    monkeypatch.setattr(fc.np, "may_share_memory", lambda a, b: seen.append(1) or real(a, b))
    x = torch.zeros(2, 3)
    src = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x._data.base is None and src._data.base is None
    assert fc._copy_(x, src) is x and x.tolist() == src.tolist() and seen == []  # no overlap test
    big = torch.arange(12.0)
    assert fc._copy_(x, big[6:].reshape(2, 3)) is x and seen == [1]  # a view: NumPy's test
    assert x.tolist() == [[6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]
    assert fc._copy_(x, x) is None  # one array: the body
    assert fc._copy_(x, x.detach()) is None  # the same memory through another tensor: the body
