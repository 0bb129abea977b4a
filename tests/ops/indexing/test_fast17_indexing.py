"""Session 17's indexing fast-call changes (docs/PERFORMANCE.md, perf17f): plans that keep a
kernel's compiled entry (searchsorted/bucketize, gather/scatter_add along the last dim, the
offsets of scatter), the slab geometry of index_copy/add/fill, and the one-pass kernels of take,
scatter, masked_fill and masked_scatter. Each route must be the one taken on a plain call and
give the body's bits; modes, gradients, autocast, forward AD and bad arguments take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import forward_ad
from numtorch.ops import _fast_guard as G
from numtorch.ops.indexing import fast_fill, fast_index, fast_search, masked
from numtorch.ops.indexing.core import K
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _x(*shape, dtype=torch.float32, seed=0):
    a = np.random.default_rng(seed + sum(shape)).standard_normal(shape) * 3
    return torch.from_numpy(a).to(dtype)


def _body(name, *args, module="torch"):
    body = binding(name, module).body
    return outcome(getattr(body, "__wrapped__", body), *args)  # past fast_fill's number route


def _declines(core, args, grad_arg=0):
    """``core`` declines under a mode, autocast, a forward-AD level and a gradient to record."""
    assert core(*args) is not None
    with LoggingTensorMode(), capture_logs():
        assert core(*args) is None
    with torch.autocast("cpu"):
        assert core(*args) is None
    with forward_ad.dual_level():
        assert core(*args) is None
    g = list(args)
    g[grad_arg] = g[grad_arg].double().requires_grad_() if g[grad_arg].dtype == torch.float32 else g[grad_arg]
    if g[grad_arg].requires_grad:
        assert core(*g) is None


def _counting(monkeypatch, module, store):
    """Every compiled entry a plan of ``store`` (a dict of lists) holds from now on counts its calls."""
    seen = []
    real = fast_index._entry

    def entry(mod, name, args):
        r, e = real(mod, name, args)
        return r, (lambda *a: seen.append(name) or e(*a))

    monkeypatch.setattr(module, "_entry", entry)
    store.clear()
    return seen


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_searchsorted_plan_keeps_the_entry(dt, monkeypatch):
    seen = _counting(monkeypatch, fast_search, fast_search._SEARCH)
    seq = torch.tensor([[1, 3, 3, 5, 7], [0, 2, 4, 6, 8]]).to(dt)
    v = torch.tensor([[3, 6, 0], [8, 9, -1]]).to(dt)
    for _ in range(3):
        for kw in ({}, {"right": True}, {"side": "right"}):
            same(torch.searchsorted(seq, v, **kw), _body("searchsorted", seq, v, False, kw.get("right", False),
                                                         kw.get("side"), None, None))  # fmt: skip
            same(torch.bucketize(v, seq[0], **{k: w for k, w in kw.items() if k == "right"}),
                 _body("bucketize", v, seq[0], False, kw.get("right", False), None))  # fmt: skip
    assert len(seen) >= 6  # the kept entries ran the later calls
    _declines(fast_search._searchsorted, (seq, v), grad_arg=1)


def test_gather_and_scatter_add_last_dim_plans(monkeypatch):
    seen = _counting(monkeypatch, fast_index, fast_index._LAST)
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64):  # one shape, four entries
        x = _x(3, 4, dtype=dt)
        i = torch.tensor([[3, 3], [2, 0], [1, 1]])
        src = _x(3, 2, dtype=dt, seed=1)
        for _ in range(2):
            same(torch.gather(x, 1, i), _body("gather", x, 1, i, False, None))
            same(torch.gather(x, -1, i), _body("gather", x, -1, i, False, None))
            same(torch.scatter_add(x, 1, i, src), _body("scatter_add", x, 1, i, src, None))
            same(x.scatter_add(1, i, src), _body("scatter_add", x, 1, i, src, module="Tensor"))
            for red, incl in (("sum", True), ("sum", False), ("amax", True), ("mean", True)):
                same(torch.scatter_reduce(x, 1, i, src, red, include_self=incl),
                     _body("scatter_reduce", x, 1, i, src, red, incl, None))  # fmt: skip
        # out of range, strided input, a strided source: the body's outcome
        bad = torch.tensor([[4, 0], [0, 0], [0, 0]])
        same(outcome(torch.gather, x, 1, bad), _body("gather", x, 1, bad, False, None))
        same(torch.gather(x.t().contiguous().t(), 1, i), _body("gather", x.t().contiguous().t(), 1, i, False, None))
        s2 = _x(2, 3, dtype=dt).t()
        same(torch.scatter_add(x, 1, i, s2), _body("scatter_add", x, 1, i, s2, None))
    assert seen.count("gather_last") >= 8 and seen.count("scatter_add_last") >= 16  # scatter_reduce "sum" too
    x, i = _x(3, 4), torch.tensor([[3, 3], [2, 0], [1, 1]])
    _declines(fast_index._gather, (x, 1, i))
    _declines(fast_index._scatter_add, (x, 1, i, _x(3, 2)))


def test_scatter_assigns_in_order_by_put_flat_and_scatter_2d(monkeypatch):
    names = []
    real = fast_index._call
    monkeypatch.setattr(fast_index, "_call", lambda *a: names.append(a[1]) or real(*a))
    for dt in (torch.float32, torch.int64, torch.int32, torch.float16, torch.bool):
        kernel = dt in (torch.float32, torch.int64, torch.int32)
        for x, i, src in (
            (_x(3, 4, dtype=dt), torch.tensor([[2, 2, 0, 0], [2, 1, 2, 2]]), _x(2, 4, dtype=dt, seed=2)),
            (_x(3, 4, dtype=dt), torch.tensor([[2, 2], [2, 1]]), _x(3, 5, dtype=dt, seed=2).t()),  # a larger, strided src
            (_x(2, 3, 4, dtype=dt), torch.tensor([[[1, 1, 0, 0]], [[1, 0, 1, 1]]]), _x(2, 2, 4, dtype=dt, seed=2)),
        ):  # repeated indices: the last write wins (sums in order), as NumPy's
            for dim in (0, 1):
                names.clear()
                same(outcome(torch.scatter, x, dim, i, src), _body("scatter", x, dim, i, src, None, None, None))
                same(outcome(x.scatter, dim, i, src), _body("scatter", x, dim, i, src, None, None, module="Tensor"))
                same(outcome(torch.scatter_add, x, dim, i, src), _body("scatter_add", x, dim, i, src, None))
                if dim == 0 and kernel:
                    assert ("scatter_2d" if x.dim() == 2 else "put_flat") in names
        bad = torch.tensor([[3, 0, 0, 0]])
        x, src = _x(3, 4, dtype=dt), _x(2, 4, dtype=dt)
        same(outcome(torch.scatter, x, 0, bad, src), _body("scatter", x, 0, bad, src, None, None, None))
        same(outcome(torch.scatter_add, x, 0, bad, src), _body("scatter_add", x, 0, bad, src, None))
    _declines(fast_index._scatter, (_x(3, 4), 0, torch.tensor([[2, 0]]), _x(1, 2)))


def test_take_flat_kernel_and_route(monkeypatch):
    rng = np.random.default_rng(5)
    for n in (1, 7, 40):
        src = rng.standard_normal(n)
        idx = rng.integers(-n, n, 13)
        out = np.empty(13)
        assert K.take_flat(src, idx, out, n) == -1
        assert np.array_equal(out, src[idx])
        assert K.take_flat(src, np.array([0, n, 1], np.int64), out, n) == 1
        assert K.take_flat(src, np.array([-n - 1], np.int64), out, n) == 0
    names = []
    real = fast_index._call
    monkeypatch.setattr(fast_index, "_call", lambda *a: names.append(a[1]) or real(*a))
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64):
        x = _x(3, 4, dtype=dt)
        for idx in (torch.tensor([[0, -1], [5, 11]]), torch.tensor(-12), torch.tensor([12]), torch.tensor([-13])):
            names.clear()
            same(outcome(torch.take, x, idx), _body("take", x, idx, None))
            assert names[:1] == ["take_flat"]
    _declines(fast_index._take, (_x(3, 4), torch.tensor([0, -1])))


def test_masked_fill_and_masked_scatter_kernels(monkeypatch):
    names = []
    real = fast_fill._call
    monkeypatch.setattr(fast_fill, "_call", lambda *a: names.append(a[1]) or real(*a))
    monkeypatch.setattr(fast_index, "_call", lambda *a: names.append(a[1]) or real(*a))
    m = torch.tensor([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
    for dt in (torch.float32, torch.float64, torch.int64):
        x = _x(3, 4, dtype=dt)
        for mask in (m, m.t().contiguous().t()):
            for value in (-2, 2.5, float("inf"), torch.tensor(7.0, dtype=dt)):
                names.clear()
                want = _body("masked_fill", x, mask, value)
                same(outcome(torch.masked_fill, x, mask, value), want)
                same(outcome(x.masked_fill, mask, value), want)
                num = value.item() if isinstance(value, torch.Tensor) else value
                taken = not isinstance(want, tuple) and fast_index.scalar(num, dt) is not None
                assert names.count("fill_where") == 2 * taken, (dt, value)
                assert taken or not (dt == torch.float32 and num == -2)  # the sweep's case takes it
            names.clear()
            src = _x(3, 4, dtype=dt, seed=3)
            same(torch.masked_scatter(x, mask, src), _body("masked_scatter", x, mask, src))
            same(torch.masked_scatter(x, mask, src.t()), _body("masked_scatter", x, mask, src.t()))
            assert names.count("scatter_where") == 2
            few = _x(5, dtype=dt)  # fewer source elements than True: the body's error
            same(outcome(torch.masked_scatter, x, mask, few), _body("masked_scatter", x, mask, few))
    x = _x(3, 4)
    _declines(fast_fill._masked_fill, (x, m, 1.5))
    _declines(fast_index._masked_scatter, (x, m, _x(3, 4)))
    big = np.zeros(5, np.float32)
    assert not K.scatter_where(big, np.ones(5, np.bool_), np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("name", ["index_copy", "index_add", "index_fill"])
def test_index_slab_plan(name, monkeypatch):
    made = []
    real = fast_index._slab_plan
    monkeypatch.setattr(fast_index, "_slab_plan", lambda *k: made.append(k) or real(*k))
    fast_index._SLABS.clear()
    core = getattr(fast_index, "_" + name)
    for dt in (torch.float32, torch.int64, torch.float16):
        x = _x(2, 3, 4, dtype=dt)
        for dim, idx in ((0, torch.tensor([1, 0, 1])), (1, torch.tensor([2, 0])), (-1, torch.tensor([3, 3, 0])),
                         (2, torch.tensor([4])), (1, torch.tensor([-1, 0]))):  # fmt: skip
            shape = list(x.shape)
            shape[dim] = idx.numel()
            third = 2.5 if name == "index_fill" else _x(*shape, dtype=dt, seed=4)
            for _ in range(2):
                want = _body(name, x, dim, idx, third) if name == "index_fill" else _body(name, x, dim, idx, third,
                                                                                          *((1,) if name == "index_add" else ()), None)  # fmt: skip
                same(outcome(getattr(torch, name), x, dim, idx, third), want)
                r = core(x, dim, idx, third)
                if r is not None:
                    same(r, want)
    assert len(made) == len(set(made))  # one plan per geometry, kept
    x = _x(2, 3, 4)
    _declines(core, (x, 1, torch.tensor([2, 0]), 2.5 if name == "index_fill" else _x(2, 2, 4)))


def test_argwhere_rows_entry_per_dtype_and_rank():
    masked._AW_ENTRIES.clear()
    for sh in [(3, 4), (5,), (2, 3, 4)]:
        for dt in (np.float32, np.int64, np.bool_):
            a = (np.arange(np.prod(sh)).reshape(sh) % 3).astype(dt)
            for _ in range(2):
                r = torch.nonzero(torch.from_numpy(a))
                assert np.array_equal(r.numpy(), np.argwhere(a)) and r.is_contiguous()
    assert len(masked._AW_ENTRIES) == 9


def test_pair_is_free_and_recordless_of_both():
    x, y = _x(2), _x(3)
    assert G.pair(x, y) == (G.free() and G.recordless(x) and G.recordless(y)) is True
    w = _x(2).double().requires_grad_()
    assert not G.pair(x, w) and not G.pair(w, x)
    with torch.no_grad():
        assert G.pair(x, w)
    assert not G.pair(x, torch.zeros(2, dtype=torch.uint32))
    with LoggingTensorMode():
        assert not G.pair(x, y)
    with forward_ad.dual_level():
        assert not G.pair(x, y)


def test_index_put_2d_kernel(monkeypatch):
    names = []
    real = fast_index._call
    monkeypatch.setattr(fast_index, "_call", lambda *a: names.append(a[1]) or real(*a))
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64, torch.float16):
        x = _x(3, 4, dtype=dt)
        for ind in ((torch.tensor([0, 2, 0, 0]), torch.tensor([1, 1, 3, 1])),  # repeated: in order
                    (torch.tensor([0, -1]), torch.tensor([1, 2])),  # negative: the body wraps it
                    (torch.tensor([0, 3]), torch.tensor([1, 2]))):  # fmt: skip
            k = ind[0].numel()
            for v in (_x(k, dtype=dt, seed=6), torch.tensor([2.5]).to(dt), torch.tensor(1.5).to(dt),
                      _x(2 * k, dtype=dt)[::2]):  # fmt: skip
                for acc in (False, True):
                    names.clear()
                    want = _body("index_put", x, ind, v, acc)
                    same(outcome(torch.index_put, x, ind, v, acc), want)
                    same(outcome(x.index_put, ind, v, acc), _body("index_put", x, ind, v, acc, module="Tensor"))
                    kernel = dt in (torch.float32, torch.float64, torch.int32, torch.int64)
                    assert ("index_put_2d" in names) == kernel
    x = _x(3, 4)
    ind = (torch.tensor([0, 2]), torch.tensor([1, 1]))
    _declines(fast_index._index_put, (x, ind, _x(2), True))
