"""Note [Preserved layout cache] (empty_layout's preserve_format strides kept per shape, strides
and itemsize) and Note [Flips of views] (flip/fliplr/flipud of a non-contiguous input whose
preserved layout is C order): the bodies' layouts, values and errors, the fast route taken."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch._overlap import dense
from numtorch.ops._registry import BINDINGS
from numtorch.ops.shape import copy as cp
from numtorch.ops.shape import fast_copies as fc
from numtorch.ops.shape._format import preserve_format
from numtorch.ops.shape.core import _est

from .._fastcall import outcome, same


def _uncached(a: np.ndarray) -> tuple:
    # the element strides of empty_layout's array before the cache, step by step (an empty C
    # array has NumPy's zero strides)
    st = _est(a)
    if not dense(a.shape, st):
        st = cp._infer_dense_strides(a.shape, st)
    return _est(np.empty(a.shape)) if st == cp._c_strides(a.shape) else st


def _views():
    base = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    yield base
    yield base.transpose(3, 1, 0, 2)
    yield base[:, ::2, :, 1:4]
    yield base[:, :, :1, :]
    yield np.broadcast_to(np.float32(2.0), (4, 5))
    yield np.broadcast_to(np.arange(5.0), (3, 5))
    yield np.broadcast_to(np.arange(3.0)[:, None], (3, 5))
    yield base.reshape(6, 20).T[::3]
    yield np.zeros((0, 3), np.int16).T
    yield np.zeros((), np.float64)
    yield np.lib.stride_tricks.as_strided(
        np.zeros(8, np.int8), (2, 1, 3), (3, 7, 1)
    )  # a size-1 dim's odd stride
    yield np.zeros((3, 4), np.complex64)[:, ::-1]
    yield np.zeros((3, 4), np.float64).view(np.float32)[:, ::2]


def test_preserved_layout_is_the_uncached_one():
    cp._PRESERVED.clear()
    for a in _views():
        for _ in range(2):  # the second from the table
            out = cp.empty_layout(a, preserve_format)
            assert out.shape == a.shape and out.dtype == a.dtype
            assert _est(out) == _uncached(a), (a.shape, a.strides)
            assert out.base is None or out.base.flags.c_contiguous
            for npd in (np.float64, np.int8):  # to()'s new dtype: the same element strides
                assert _est(cp.empty_layout(a, preserve_format, np.dtype(npd))) == _uncached(a)
    assert len(cp._PRESERVED) == len(list(_views()))


def test_preserved_layout_table_is_bounded_and_keyed_by_itemsize(monkeypatch):
    monkeypatch.setattr(cp, "_PRESERVED_MAX", 4)
    cp._PRESERVED.clear()
    for n in range(2, 12):
        cp.empty_layout(np.zeros((n, 3)).T, preserve_format)
        assert len(cp._PRESERVED) <= 4
    # the same shape and byte strides, another itemsize: other element strides
    a = np.zeros((4, 6), np.float64)[:, ::2]
    b = np.zeros((4, 12), np.float32)[:, ::4]
    assert a.shape == b.shape and a.strides == b.strides
    assert _est(cp.empty_layout(a, preserve_format)) == _uncached(a)
    assert _est(cp.empty_layout(b, preserve_format)) == _uncached(b)


def test_clone_and_to_of_views_keep_the_body_layout():
    for a in _views():
        if min(a.strides, default=0) < 0:
            continue  # no tensor has negative strides
        t = torch.from_numpy(a) if a.flags.writeable else torch.from_numpy(a.copy()).expand(a.shape)
        if not a.flags.writeable and a.strides != t._data.strides:
            t = torch.ones((), dtype=t.dtype).expand(
                a.shape
            )  # broadcast_to's rows: strides of an expand
        for v in (t, t.expand(2, *t.shape) if t.dim() else t):
            for _ in range(2):
                c = v.clone()
                assert _est(c._data) == _uncached(v._data) and np.array_equal(c.numpy(), v.numpy())
                if v.dtype.is_floating_point:  # a conversion (to its own dtype: v itself)
                    to = torch.float32 if v.dtype is torch.float64 else torch.float64
                    d = v.to(to)
                    assert _est(d._data) == _uncached(v._data)
                    assert np.array_equal(
                        d.numpy(), v.numpy().astype(d.numpy().dtype), equal_nan=True
                    )


def _bindings(name):
    return [
        b
        for b in BINDINGS
        if b.module in ("torch", "Tensor") and b.name == name and b.fast is not None
    ]


def _same(r, want):
    same(r, want)
    if not isinstance(want, tuple):
        assert r._base is None and want._base is None


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int8,
          torch.uint8, torch.bool, torch.complex64]  # fmt: skip


def _flip_inputs(dt):
    x = torch.arange(-6.0, 6.0).reshape(3, 4).to(dt)
    yield torch.ones((), dtype=dt).expand(4, 5), True  # sum()'s gradient
    yield x[:, :1].expand(3, 4), True
    yield x[:, 1], True  # a strided column: C order preserved
    yield x.unsqueeze(0).expand(2, 3, 4), True
    yield x.t(), False  # a transpose keeps its strides: the body
    yield x, False  # contiguous: the existing fast call
    yield torch.ones((), dtype=dt).expand(0, 3), False  # empty: the body
    yield torch.ones((), dtype=dt), False


ARGS = {"flip": [((0,),), ([1],), ((0, 1),), ((-1,),), ((0, 0),), ((5,),), ((),), ((0.0,),)],
        "fliplr": [()], "flipud": [()]}  # fmt: skip
CORES = {"flip": fc._flip, "fliplr": fc._fliplr, "flipud": fc._flipud}


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(ARGS))
def test_flip_of_views_matches_body(name, dt, monkeypatch):
    taken = []
    real = fc._flip_view
    monkeypatch.setattr(fc, "_flip_view", lambda a, ds: taken.append(1) or real(a, ds))
    for b in _bindings(name):
        fn = getattr(torch, name) if b.module == "torch" else getattr(torch.Tensor, name)
        for x, fast in _flip_inputs(dt):
            fast = fast and dt is not torch.bfloat16  # neither fast call takes bfloat16
            for args in ARGS[name]:
                ba = inspect.signature(fn).bind(x, *args)
                ba.apply_defaults()
                want = outcome(b.body, *ba.arguments.values())
                before = len(taken)
                _same(outcome(fn, x, *args), want)
                if (
                    fast
                    and not isinstance(want, tuple)
                    and args != ((),)
                    and x.dim() >= (2 if name == "fliplr" else 1)
                ):
                    assert len(taken) > before, (name, x.shape, x.stride(), args)
                elif not fast:
                    assert len(taken) == before
    assert taken or dt is torch.bfloat16


def test_flip_of_views_under_grad_and_modes_take_the_body():
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    g = torch.ones(()).expand(3, 4)
    assert fc._flip(g, (0,)) is not None and fc._fliplr(g) is not None and fc._flipud(g) is not None
    x = torch.randn(3, 4, requires_grad=True)
    e = x.sum(0, keepdim=True).expand(3, 4)
    assert fc._flip(e, (0,)) is None and fc._fliplr(e) is None and fc._flipud(e) is None
    torch.flip(e, (1,)).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones((3, 4), np.float32) * 3)
    with LoggingTensorMode(), capture_logs() as logs:
        torch.flip(g, (0,))
    assert logs
    # flip's backward meets sum()'s expanded gradient: values and layout of a plain flip
    y = torch.randn(4, 5, requires_grad=True)
    torch.flip(y, (0,)).sum().backward()
    assert y.grad.stride() == (5, 1) and np.array_equal(y.grad.numpy(), np.ones((4, 5), np.float32))
