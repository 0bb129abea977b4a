"""The fast calls of gather, scatter, scatter_add, scatter_reduce and index_put (Note [Indexing
fast calls]) against their bodies: same values (bit for bit, repeated indices included), dtype,
shape, strides and errors; plain calls take the fast route, and gradients, out=, modes and
bad arguments take the body."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.indexing import fast_index
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _binding(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    assert b.fast is not None, "no fast call installed"
    return b


def _outcome(fn, *args):
    try:
        with torch.no_grad() if not any(getattr(a, "requires_grad", False) for a in args) else _Null():
            return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _same(r, want):
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r.numpy().tobytes() == want.numpy().tobytes()


def _x(*shape, dtype=torch.float32):
    a = np.random.default_rng(sum(shape)).standard_normal(shape) * 3
    return torch.from_numpy(a).to(dtype)


def _full(fn, args, kw=None):
    """``args`` with the public signature's defaults after them (a body takes every argument)."""
    ba = inspect.signature(fn).bind(*args, **(kw or {}))
    ba.apply_defaults()
    return tuple(ba.arguments.values())


def _check(name, calls, core):
    """Both public routes against the body; returns how many calls the fast core took. A call
    ending in a dict passes it as keywords."""
    ran = 0
    for module in ("torch", "Tensor") if name != "searchsorted" else ("torch",):
        b = _binding(module, name)
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        for args in calls:
            args, kw = (args[:-1], args[-1]) if isinstance(args[-1], dict) else (args, {})
            full = _full(fn, args, kw)
            want = _outcome(b.body, *full)
            _same(_outcome(lambda *a, fn=fn, kw=kw: fn(*a, **kw), *args), want)
            r = (fast_index._nonzero_method if (module, name) == ("Tensor", "nonzero") else core)(*full)
            if r is not None:
                ran += 1
                _same(r, want)
    return ran


def _dim_calls(with_src):
    out = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16):
        x = _x(3, 4, dtype=dt)
        for dim, idx in [
            (1, [[0, 1, 2, 3, 1, 1], [3, 3, 3, 0, 0, 0], [2, 1, 0, 1, 2, 3]]),
            (0, [[0, 1, 2, 2], [2, 2, 1, 0]]),
            (-1, [[1], [0], [3]]),
            (1, [[0, 1], [2, 3]]),
            (0, [[0, 1, 2, 3, 4]]),  # index larger than self off dim
            (1, [[0, 4]]),  # out of range
            (1, [[0, 1], [2, 4], [1, 1]]),  # out of range, last dim (the fused kernels)
            (-1, [[0, 1], [-1, 0], [1, 1]]),  # negative, last dim
            (1, [[-1, 0]]),  # negative
            (2, [[0]]),
            (0, [0, 1]),  # ranks differ
        ]:
            i = torch.tensor(idx)
            if with_src:
                src = _x(*(np.array(idx).shape[:1] + (7,)), dtype=dt) if np.ndim(idx) == 2 else _x(5, dtype=dt)
                out.append((x, dim, i, src))
            else:
                out.append((x, dim, i))
    x = _x(3, 4)
    extra = [(x.t(), 1, torch.tensor([[0, 1], [2, 2]])), (x, 1, torch.tensor([[0, 1], [2, 2]]).t()),
             (x, 1, torch.tensor([[0, 1], [2, 2]], dtype=torch.int32)), (x, 1.0, torch.tensor([[0]])),
             (_x(2, 3, 4), 1, torch.tensor([[[0, 1], [2, 0]]])), (x, 1, torch.zeros(3, 0, dtype=torch.int64)),
             (_x(2, 3, 4), 2, torch.tensor([[[0, 1, 3, 3, 2]] * 3] * 2)),
             (torch.zeros(0, 4), 1, torch.zeros(0, 2, dtype=torch.int64))]  # fmt: skip
    for e in extra:
        out.append(e + ((_x(4, 4, dtype=e[0].dtype),) if with_src else ()))
    if with_src:
        out.append((x, 1, torch.tensor([[0, 1]]), _x(1, 2, dtype=torch.float64)))  # dtypes differ
        out.append((x, 1, torch.tensor([[0, 1]]), _x(1, 1)))  # src smaller than the index
    return out


def test_gather_matches_body():
    calls = _dim_calls(False)
    assert _check("gather", calls, fast_index._gather) > 20
    assert fast_index._gather(*calls[0], False, torch.empty(3, 6)) is None  # out= takes the body
    assert fast_index._gather(*calls[0], True) is None  # sparse_grad


@pytest.mark.parametrize("name", ["scatter", "scatter_add"])
def test_scatter_matches_body(name):
    core = {"scatter": fast_index._scatter, "scatter_add": fast_index._scatter_add}[name]
    assert _check(name, _dim_calls(True), core) > 20
    x, i = _x(3, 4), torch.tensor([[0, 1]])
    if name == "scatter":
        b = _binding("Tensor", "scatter")
        src = _x(1, 2)
        for full, kw in [((x, 1, i, None, 2.0, None), {"value": 2.0}), ((x, 1, i, src, None, "add"), {"reduce": "add"})]:
            assert fast_index._scatter(*full) is None  # value / legacy reduce: the body
            with pytest.warns(UserWarning) if "reduce" in kw else _Null():
                r = _outcome(lambda full=full, kw=kw: x.scatter(1, i, *full[3:4] if full[3] is not None else (), **kw))
            with pytest.warns(UserWarning) if "reduce" in kw else _Null():
                _same(r, _outcome(b.body, *full))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin", "bogus"])
def test_scatter_reduce_matches_body(reduce):
    calls = []
    for args in _dim_calls(True):
        calls += [args + (reduce,), args + (reduce, {"include_self": False})]
    x = _x(3, 4)
    x[0, 1] = float("nan")
    calls.append((x, 1, torch.tensor([[1, 1, 0]]), torch.tensor([[float("nan"), 1.0, -2.0]]), reduce))
    calls.append((x, 1, torch.tensor([[1, 1, 0]]), torch.tensor([[1.0, 1.0, -2.0]]), reduce, {"include_self": 1}))
    ran = _check("scatter_reduce", calls, fast_index._scatter_reduce)
    assert ran == 0 if reduce == "bogus" else ran > 20


def test_index_put_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.float16, torch.bool):
        x = _x(3, 4, dtype=dt)
        for idx, v in [
            (([0, 1, 2], [1, 2, 3]), [1, 2, 3]),
            (([0, 0, 2, 0], [1, 1, 3, 1]), [1, 2, 3, 4]),  # repeated: order matters
            (([0, 1], [1, 2]), [5]),
            (([0, 1], [1, 2]), 7),
            (([0, 3], [1, 2]), [1, 2]),  # out of range
            (([0, -1], [1, -4]), [1, 2]),  # negative
            (([0, 1],), [1, 2]),  # fewer indices than dims
            (([0, 1], [1, 2]), [1, 2, 3]),  # values do not broadcast
            (([0, 1], [1]), [1, 2]),  # index lengths differ
        ]:
            ind = tuple(torch.tensor(i) for i in idx)
            val = torch.tensor(v).to(dt)
            for acc in (False, True):
                calls.append((x, ind, val, acc))
                calls.append((x, list(ind), val, acc))
    x = _x(3, 4)
    ind = (torch.tensor([0, 1]), torch.tensor([1, 2]))
    calls += [(x, ind, torch.tensor([1.0, 2.0], dtype=torch.float64), False),
              (x, (torch.tensor([0, 1], dtype=torch.int32), torch.tensor([1, 2])), torch.tensor([1.0, 2.0]), False),
              (x, (torch.tensor([True, False, True]),), torch.tensor(1.0), False),
              (x, (None, torch.tensor([1, 2])), torch.tensor(1.0), False), (x, ind, torch.tensor([[1.0, 2.0]]), True),
              (x, (torch.tensor([[0, 1]]), torch.tensor([[1, 2]])), torch.tensor(1.0), False),
              (x.t(), ind, torch.tensor([1.0, 2.0]), True), (x, ind, torch.tensor([1.0, 2.0]), 1)]  # fmt: skip
    assert _check("index_put", calls, fast_index._index_put) > 40


def test_grad_out_and_modes_take_the_body():
    x = _x(3, 4).requires_grad_()
    src = _x(1, 2).requires_grad_()
    i = torch.tensor([[0, 1]])
    ind = (torch.tensor([0, 1]), torch.tensor([1, 2]))
    calls = [(fast_index._gather, torch.gather, (x, 1, i)), (fast_index._scatter, torch.scatter, (x, 1, i, src)),
             (fast_index._scatter_add, torch.scatter_add, (x, 1, i, src)),
             (fast_index._scatter_reduce, torch.scatter_reduce, (x, 1, i, src, "amax")),
             (fast_index._index_put, torch.index_put, (x, ind, src[0], True))]  # fmt: skip
    for core, fn, args in calls:
        assert core(*args) is None
        r = fn(*args)
        assert r.grad_fn is not None
        r.sum().backward()
        plain = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
        assert core(*plain) is not None  # nothing to record: the fast route
        with LoggingTensorMode(), capture_logs() as logs:
            fn(*plain)
        assert logs, fn
        with torch.autocast("cpu"):
            assert core(*plain) is None
    assert x.grad is not None and src.grad is not None
    out = torch.empty(1, 2)
    torch.gather(x.detach(), 1, i, out=out)
    assert np.array_equal(out.numpy(), x.detach().numpy()[:1, :2])


def test_take_along_dim_matches_body():
    calls = []
    for args in _dim_calls(False):
        x, dim, i = args
        calls.append((x, i, dim))
        if isinstance(dim, int) and i.dim() == 2 and x.dim() == 2:
            calls.append((x, torch.tensor([[-1, 0, -4], [1, 2, 3], [-2, -2, 0]]), dim))  # negative: wraps
            calls.append((x, i, None))
            calls.append((x, i[:1], dim))  # broadcast: the body
    calls.append((_x(3, 4), torch.tensor([[1, -5]] * 3), 1))  # below -size
    assert _check("take_along_dim", calls, fast_index._take_along_dim) > 20


def test_masked_scatter_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.bool, torch.complex64):
        x = _x(3, 4).to(dt)
        for m in (_x(3, 4) > 0, torch.zeros(3, 4, dtype=torch.bool), torch.ones(3, 4, dtype=torch.bool)):
            for src in (_x(3, 4).to(dt), _x(20).to(dt), _x(2).to(dt), _x(3, 4)):
                calls.append((x, m, src))
    x = _x(3, 4)
    calls += [(x, _x(4) > 0, _x(12)), (x, (_x(3, 4) > 0).to(torch.uint8), _x(12)), (x.t(), _x(4, 3) > 0, _x(12)),
              (torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.bool), _x(2))]  # fmt: skip
    assert _check("masked_scatter", calls, fast_index._masked_scatter) > 20


def test_take_along_dim_and_masked_scatter_record():
    x = _x(3, 4).to(torch.float64).requires_grad_()
    i = torch.tensor([[0, -1], [2, 3], [1, 1]])
    m = _x(3, 4) > 0
    assert fast_index._take_along_dim(x, i, 1) is None and fast_index._masked_scatter(x, m, x) is None
    assert torch.autograd.gradcheck(lambda t: torch.take_along_dim(t, i, 1), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.masked_scatter(t, m, t * 2), (x,))
    with LoggingTensorMode(), capture_logs() as logs:
        torch.take_along_dim(x.detach(), i, 1), torch.masked_scatter(x.detach(), m, x.detach())
    assert len(logs) >= 2


def test_first_out_of_range_kernel_and_messages():
    from numtorch.kernels.cpu import indexing as K

    for dt in (np.int64, np.int32):
        i = np.array([0, 3, -4, 5, -9, 2], dt)
        assert K.first_out_of_range(i, 0, 4) == 2
        assert K.first_out_of_range(i, -4, 4) == 3
        assert K.first_out_of_range(i, -9, 6) == -1
        assert K.first_out_of_range(i[::2], 0, 4) == 1  # strided
        assert K.first_out_of_range(i[:0], 0, 1) == -1
    x = _x(3, 4)
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for dimension 0 with size 3"):
        torch.index_fill(x, 0, torch.tensor([1, 7, -9]), 1.0)
    with pytest.raises(IndexError, match=r"tried to access index 12 on a tensor of 12 elements"):
        torch.take(x, torch.tensor([[0, 12], [-13, 1]]))
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for dimension 0 with size 3"):
        x[torch.tensor([0, 3, -5])]
    with pytest.raises(RuntimeError, match=r"INDICES element is out of DATA bounds, id=-1 axis_dim=4"):
        torch.index_select(x, 1, torch.tensor([0, -1, 9]))


def test_searchsorted_and_bucketize_match_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16):
        seq = torch.tensor([[1, 3, 3, 5, 7], [0, 2, 4, 6, 8]]).to(dt)
        v = torch.tensor([[3, 6, 0], [8, 9, -1]]).to(dt)
        for s, x in [(seq, v), (seq[0], v), (seq[0], v[0]), (seq, v[0]), (seq.t().contiguous().t(), v)]:
            for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"side": "left", "right": True},
                       {"side": "middle"}, {"out_int32": True}, {"sorter": torch.argsort(s)}):  # fmt: skip
                calls.append((s, x, kw))
    calls.append((torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 0.5, 2.0]), {}))
    calls.append((torch.tensor([1.0, 2.0]), torch.tensor([1, 2]), {}))  # dtypes differ: the body
    calls += [(torch.tensor([1.0, 2.0]), torch.tensor(1.5), {}), (torch.tensor([1.0, 2.0]), torch.zeros(0), {}),
              (torch.tensor([1.0, 2.0]), torch.tensor([1.5]), {"right": 1}), (torch.tensor(1.0), torch.tensor([1.5]), {}),
              (torch.zeros(2, 0), torch.tensor([[1.0], [2.0]]), {}), (torch.zeros(3, 2), torch.tensor([[1.0], [2.0]]), {})]  # fmt: skip
    assert _check("searchsorted", calls, fast_index._searchsorted) > 20
    fast_index._SEARCH.clear()  # the cached plans answer as the first call did
    assert _check("searchsorted", calls, fast_index._searchsorted) > 20
    bcalls = []
    for s, x, kw in calls:
        if s.dim() == 1 and "side" not in kw and "sorter" not in kw:
            bcalls.append((x, s, kw))
    bcalls.append((torch.tensor([1.0]), torch.tensor([[1.0, 2.0]]), {}))  # 2-D boundaries: the body's error
    ran = 0
    b = _binding("torch", "bucketize")
    for x, s, kw in bcalls:
        full = _full(torch.bucketize, (x, s), kw)
        want = _outcome(b.body, *full)
        _same(_outcome(lambda x=x, s=s, kw=kw: torch.bucketize(x, s, **kw)), want)
        r = fast_index._bucketize(*full)
        if r is not None:
            ran += 1
            _same(r, want)
    assert ran > 5


def test_nonzero_and_argwhere_match_body():
    xs = [_x(3, 4), _x(3, 4) > 0, torch.zeros(2, 3), torch.ones(2, 1, 3, dtype=torch.int64), _x(5), torch.tensor(2.0),
          torch.tensor(0.0), torch.zeros(0, 3), _x(4, 3).t(), torch.tensor([float("nan"), 0.0, -0.0])]  # fmt: skip
    assert _check("nonzero", [(x,) for x in xs], fast_index._nonzero) >= 2 * len(xs)
    assert _check("argwhere", [(x,) for x in xs], fast_index._nonzero) >= 2 * len(xs)
    for x in xs:  # the kernel itself is np.argwhere's answer
        r = torch.nonzero(x)
        assert r.dtype == torch.int64 and r.is_contiguous()
        assert np.array_equal(r.numpy(), np.argwhere(x.numpy()))
    out = torch.empty(0, dtype=torch.int64)
    assert fast_index._nonzero(xs[0], out) is None and fast_index._nonzero(xs[0], None, True) is None
    torch.nonzero(xs[0], out=out)
    assert np.array_equal(out.numpy(), np.argwhere(xs[0].numpy()))


def _slab_calls(with_source):
    out = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16):
        x = _x(3, 4, dtype=dt)
        for dim, idx in [(0, [0, 2]), (1, [3, 0, 3]), (-1, [1]), (0, [2, 2, 0]), (1, [4]), (0, [-1, 1]), (2, [0]),
                         (0, [])]:  # fmt: skip
            i = torch.tensor(idx, dtype=torch.int64)
            if with_source:
                sh = list(x.shape)
                sh[dim % 2] = len(idx)
                out.append((x, dim, i, _x(*sh, dtype=dt)))
                out.append((x, dim, i, _x(*sh, dtype=torch.float64)))  # dtypes differ (or not)
            else:
                for v in (2.5, 5, -7, True, 2**40, float("nan")):
                    out.append((x, dim, i, v))
    x = _x(3, 4)
    i = torch.tensor([0, 2])
    out += [(x, 0, i.to(torch.int32)) + ((_x(2, 4),) if with_source else (1.0,)),
            (x, 0, torch.tensor([[0, 2]])) + ((_x(2, 4),) if with_source else (1.0,)),
            (x.t(), 1, i) + ((_x(4, 2),) if with_source else (1.0,))]  # fmt: skip
    if with_source:
        out += [(x, 0, i, _x(2, 3)), (x, 0, i, _x(3, 4)), (_x(2, 3, 4), 1, torch.tensor([2, 0]), _x(2, 2, 4))]
    return out


@pytest.mark.parametrize("name", ["index_copy", "index_add", "index_fill"])
def test_index_slab_ops_match_body(name):
    core = {"index_copy": fast_index._index_copy, "index_add": fast_index._index_add,
            "index_fill": fast_index._index_fill}[name]  # fmt: skip
    calls = _slab_calls(name != "index_fill")
    if name == "index_add":
        calls += [c + ({"alpha": 2},) for c in calls[:4]]
    assert _check(name, calls, core) > 20


def test_put_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bool):
        x = _x(3, 4, dtype=dt)
        for idx in ([1, -1, 4], [0, 0, 11], [[1, 2], [3, -12]], [12], [-13], []):
            i = torch.tensor(idx, dtype=torch.int64)
            for src in (_x(*i.shape, dtype=dt) if i.numel() else torch.zeros(0, dtype=dt), _x(5, dtype=dt)):
                for acc in (False, True):
                    calls.append((x, i, src, acc))
    x = _x(3, 4)
    calls += [(x, torch.tensor([1, 2], dtype=torch.int32), _x(2), False), (x, torch.tensor([1, 2]), _x(2).double(), False),
              (x.t(), torch.tensor([1, 2]), _x(2), True), (x, torch.tensor([[1, 2]]).t(), _x(2), False)]  # fmt: skip
    assert _check("put", calls, fast_index._put) > 20


def test_put_flat_kernel():
    # put's one-pass step (kernel dtypes): wrap, then assign (the last repeated index wins) or
    # accumulate in order; the first index outside [-n, n) is returned
    from numtorch.ops.indexing.core import K

    idx = np.array([1, -1, 4, 1, -12], np.int64)
    src = np.arange(1.0, 6.0)
    for acc in (False, True):
        dst = np.zeros(12)
        assert K.put_flat(dst, idx, src, 12, acc) == -1
        want = np.zeros(12)
        if acc:
            np.add.at(want, np.where(idx < 0, idx + 12, idx), src)
        else:
            want[[1, 11, 4, 1, 0]] = src
        assert np.array_equal(dst, want)
        assert K.put_flat(np.zeros(12), np.array([0, 12, -13], np.int64), src[:3], 12, acc) == 1
        assert K.put_flat(np.zeros(12), np.array([0, -13], np.int64), src[:2], 12, acc) == 1


def test_take_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.float16, torch.bool):
        x = _x(3, 4, dtype=dt)
        for idx in ([1, -1, 4], [[0, 0], [11, -12]], [12], [-13], [], 5):
            calls.append((x, torch.tensor(idx, dtype=torch.int64)))
    x = _x(3, 4)
    calls += [(x.t(), torch.tensor([1, 5, -2])), (x, torch.tensor([1, 2], dtype=torch.int32)),
              (x, torch.tensor([[1, 2]]).t()), (torch.zeros(0), torch.tensor([0])), (x[0, 0], torch.tensor([0, -1]))]  # fmt: skip
    assert _check("take", calls, fast_index._take) > 25
    out = torch.empty(2)
    assert fast_index._take(x, torch.tensor([0, 1]), out) is None  # out=: the body
    xg = x.clone().requires_grad_()
    assert fast_index._take(xg, torch.tensor([0, 1])) is None
    r = torch.take(xg, torch.tensor([0, 1]))
    assert r.grad_fn is not None


def test_index_select_matches_body(monkeypatch):
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64, torch.float16, torch.bool):
        x = _x(3, 4, dtype=dt)
        for dim, idx in [(0, [2, 0, 2]), (1, [3]), (-1, [0, 1, 1, 3]), (-2, [1]), (0, [3]), (1, [-1]), (0, []),
                         (2, [0]), (-3, [0]), (1, [[0, 1]])]:  # fmt: skip
            calls.append((x, dim, torch.tensor(idx, dtype=torch.int64)))
    x = _x(3, 4)
    calls += [(x.t(), 0, torch.tensor([1, 3])), (x, 0, torch.tensor([1, 2], dtype=torch.int32)),
              (x, 0, torch.tensor([0, 1, 2, 1])[::2]), (x, 1.0, torch.tensor([0])), (x[0, 0], 0, torch.tensor([0])),
              (torch.zeros(0, 4), 0, torch.tensor([0])), (torch.zeros(2, 0), 0, torch.tensor([1, 0])),
              (_x(2, 3, 4), 1, torch.tensor([2, 0, 0, 1]))]  # fmt: skip
    assert _check("index_select", calls, fast_index._index_select) == 2 * (5 * 4 + 3)  # the rest: the body
    seen = []
    real = fast_index._call
    monkeypatch.setattr(fast_index, "_call", lambda *a: seen.append(a[1]) or real(*a))
    torch.index_select(x, 0, torch.tensor([1])), x.index_select(1, torch.tensor([0, 2]))
    assert seen == ["first_out_of_range"] * 2  # the public calls took the fast route
    assert fast_index._index_select(x, 0, torch.tensor([1]), torch.empty(1, 4)) is None  # out=
    xg = x.clone().requires_grad_()
    assert fast_index._index_select(xg, 0, torch.tensor([1])) is None
    r = torch.index_select(xg, 0, torch.tensor([1, 1]))
    r.sum().backward()
    assert r.grad_fn is not None and xg.grad.numpy()[1].tolist() == [2.0] * 4
    with LoggingTensorMode(), capture_logs() as logs:
        torch.index_select(x, 0, torch.tensor([1]))
    assert "index_select" in " ".join(logs)
    with torch.autocast("cpu"):
        assert fast_index._index_select(x, 0, torch.tensor([1])) is None
    assert len(seen) == 2
