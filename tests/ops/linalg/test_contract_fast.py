"""Note [einsum plans] and Note [Contraction fast calls]: planned contractions are the unplanned
ones bit for bit; the fast calls of inner, tensordot and einsum give their bodies' results
(values, dtype, shape, strides, errors); plain calls take the fast route, and modes,
gradients, forward AD, out= and subclasses take the body."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.linalg import _contract as C
from numtorch.ops.linalg import core as LC
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same


def _old_pair(a, la, b, lb, out):
    """_pair as it was before its plans: one 3-D product(), every transpose taken."""
    for arr_name in ("a", "b"):
        arr, lab, other = (a, la, lb) if arr_name == "a" else (b, lb, la)
        summed = tuple(i for i, x in enumerate(lab) if x not in other and x not in out)
        if summed:
            arr = arr.sum(axis=summed, dtype=arr.dtype)
            lab = [x for i, x in enumerate(lab) if i not in summed]
        if arr_name == "a":
            a, la = arr, lab
        else:
            b, lb = arr, lab
    batch = [x for x in la if x in lb and x in out]
    contract = [x for x in la if x in lb and x not in out]
    fa, fb = [x for x in la if x not in lb], [x for x in lb if x not in la]
    size = dict(zip(la, a.shape, strict=True)) | dict(zip(lb, b.shape, strict=True))
    bs, ms, ks, ns = ([size[x] for x in g] for g in (batch, fa, contract, fb))
    A = np.transpose(a, [la.index(x) for x in batch + fa + contract])
    B = np.transpose(b, [lb.index(x) for x in batch + contract + fb])
    res = C.product(A.reshape(math.prod(bs), math.prod(ms), math.prod(ks)),
                    B.reshape(math.prod(bs), math.prod(ks), math.prod(ns)))  # fmt: skip
    cur = batch + fa + fb
    return np.transpose(res.reshape(bs + ms + ns), [cur.index(x) for x in out])


_EQS = [("ij,jk->ik", (5, 7), (7, 3)), ("ij,kj->ik", (5, 7), (4, 7)), ("ij,jk->ki", (5, 7), (7, 3)),
        ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)), ("ijk,jkl->il", (2, 3, 4), (3, 4, 5)), ("i,i->", (9,), (9,)),
        ("ij,j->i", (4, 6), (6,)), ("i,j->ij", (3,), (4,)), ("ij,ij->ij", (3, 4), (3, 4)),
        ("ijk,k->ij", (2, 3, 1), (1,)), ("ab,cb->ac", (2, 3), (4, 3)), ("ij,jk", (6, 33), (33, 2)),
        ("abc,cd->bad", (3, 2, 5), (5, 4)), ("ij,kl->", (2, 3), (3, 2)), ("ij,jk->ik", (1, 7), (7, 1))]  # fmt: skip


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.complex64])
def test_planned_pair_is_the_old_pair_bit_for_bit(dt):
    rng = np.random.default_rng(0)
    for eq, sa, sb in _EQS:
        for layout in ("C", "F"):
            a, b = (rng.standard_normal(s) * 3 for s in (sa, sb))
            a, b = a.astype(dt), b.astype(dt)
            if layout == "F":
                a, b = np.asfortranarray(a), np.asfortranarray(b)
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            labels, out, _ = C.parse(eq, [sa, sb])
            want = _old_pair(a, labels[0], b, labels[1], out)
            for _ in range(2):  # the planned call, then the cached plan
                got = torch.einsum(eq, ta, tb).numpy()
                assert (
                    got.dtype == want.dtype
                    and got.shape == want.shape
                    and got.strides == want.strides
                )
                assert got.tobytes() == want.tobytes(), eq


def test_plans_are_per_shape_and_dtype_and_errors_are_not_cached():
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    assert torch.einsum("ij,jk->ik", a, b).shape == (2, 4)
    assert torch.einsum("ij,jk->ik", torch.ones(5, 3), b).shape == (5, 4)
    assert torch.einsum("ij,jk->ik", a.double(), b.double()).dtype is torch.float64
    for _ in range(2):
        with pytest.raises(RuntimeError, match="subscript j has size 2 for operand 1"):
            torch.einsum("ij,jk->ik", a, torch.ones(2, 4))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
            torch.tensordot(a, torch.ones(2, 4), ([1], [0]))


def _t(*shape, dtype=torch.float32, start=0):
    n = int(np.prod(shape)) if shape else 1
    return (torch.arange(start, start + n, dtype=torch.float64).reshape(shape) * 0.37).to(dtype)


def _pairs():
    yield _t(2, 3), _t(4, 3)
    yield _t(3), _t(3)
    yield _t(2, 3, 4), _t(5, 4)
    yield _t(4, 3).t(), _t(4, 3)  # non-contiguous
    yield _t(2, 3, dtype=torch.float64), _t(4, 3, dtype=torch.float64)
    yield _t(2, 3), _t(4, 3, dtype=torch.float64)  # dtypes differ: the body's error
    yield _t(2, 3, dtype=torch.int64), _t(4, 3, dtype=torch.int64)  # integers: the body
    yield _t(2, 3), _t(4, 2)  # sizes differ
    yield _t(2, 1), _t(4, 3)  # a size-1 contracted dim: the body sums it first
    # matrices (product(x, y.T) directly): layouts, k = 1, one row, special values
    yield _t(3, 8)[:, ::2], _t(4, 5).t()[:, :4]
    yield _t(5, 2).t(), _t(3, 5, dtype=torch.float32, start=4)
    yield _t(2, 1), _t(4, 1)
    yield _t(1, 3), _t(1, 3)
    yield torch.tensor([[np.nan, np.inf, -0.0], [1e38, 1e38, 1.0]]), _t(2, 3)
    yield _t(3, 4, dtype=torch.float64), _t(6, 4, dtype=torch.float64).flip(0)
    yield _t(0, 3), _t(4, 3)
    yield _t(2, 0), _t(4, 0)
    yield _t(), _t(3)  # 0-d


def test_inner_fast_call_matches_body():
    b = _binding("inner")
    ran = 0
    for x, y in _pairs():
        want = _outcome(b.body, x, y, None)
        _same(_outcome(torch.inner, x, y), want)
        _same(_outcome(b.fast[0], x, y), want)
        ran += not isinstance(want, tuple)
    assert ran >= 8


def test_tensordot_fast_call_matches_body():
    b = _binding("tensordot")
    x, y = _t(2, 3, 4), _t(3, 4, 5)
    cases = [(x, y, 2), (x, y, 1), (x, y, 0), (x, y, 3), (x, y, -1), (x, y, ([1, 2], [0, 1])),
             (x, y, ([2, 1], [1, 0])), (x, y, [[-1], [1]]), (x, y, ([1, 1], [0, 0])), (x, y, ([1, -2], [0, 0])),
             (x, y, ([0], [0])), (x, y, ([5], [0])), (x, y, ([1], [0, 1])), (x, y, (1, 0)), (x, y, ([True], [0])),
             (x, y, torch.tensor(2)), (x, y, "a"), (x, y.double(), 2), (x, _t(1, 4, 5), 2),
             (x.transpose(0, 2), _t(4, 3, 2), ([0, 1], [0, 1]))]  # fmt: skip
    for a, c, dims in cases:
        want = _outcome(b.body, a, c, dims, None)
        _same(_outcome(torch.tensordot, a, c, dims), want)
        _same(_outcome(b.fast[0], a, c, dims), want)


def test_einsum_fast_call_matches_body():
    b = _binding("einsum")
    x, y, z = _t(2, 3), _t(3, 4), _t(4, 2)
    cases = [("ij,jk->ik", x, y), ("ij,jk", [x, y]), ("ij,jk,kl->il", x, y, z), ("ii->i", _t(3, 3)),
             ("ij->", x), ("ij,jk->ik", x, _t(2, 4)), ("ij,jk->ik", x, y.double()), ("i,i", _t(3, dtype=torch.int32), _t(3, dtype=torch.int32)),
             ("...j,jk->...k", _t(2, 2, 3), y), ("ij,jk->ik", x), ("bij,bjk->bik", _t(2, 2, 3), _t(2, 3, 4)),
             ("ij,jk->ik", x.t(), _t(2, 4)), ("ij,kj->ik", _t(4, 5, dtype=torch.bfloat16), _t(6, 5, dtype=torch.bfloat16)),
             ("ij,kj->ik", _t(4, 5, dtype=torch.float16), _t(6, 5, dtype=torch.float16)), ("ij,jk", _t(2, 3) > 1, _t(3, 2) > 0),
             ("ij,jk->ik", _t(2, 3, dtype=torch.uint32), _t(3, 2, dtype=torch.uint32))]  # fmt: skip
    ran = 0
    for args in cases:
        want = _outcome(b.body, args)
        _same(_outcome(torch.einsum, *args), want)
        r = _outcome(b.fast[0], args)
        if r is not None:
            ran += 1
            _same(r, want)
    assert ran >= 8
    assert b.fast[0]((x, y)) is None and b.fast[0](()) is None  # no equation


def test_plain_calls_take_the_fast_route(monkeypatch):
    def spy(*a, **k):
        raise AssertionError("the body ran")

    monkeypatch.setattr(LC, "dispatch", spy)  # the bodies reach their ops through these
    import numtorch.ops.linalg.products as P

    monkeypatch.setattr(P, "dispatch", spy)
    x, y = _t(2, 3), _t(4, 3)
    assert torch.inner(x, y).shape == (2, 4) and torch.tensordot(_t(2, 3), _t(3, 5), 1).shape == (
        2,
        5,
    )
    assert torch.tensordot(_t(2, 3, 4), _t(3, 4, 5)).shape == (2, 5)
    assert torch.einsum("ij,kj->ik", x, y).shape == (2, 4) and torch.einsum("ij->j", x).shape == (
        3,
    )
    with pytest.raises(AssertionError, match="the body ran"):  # the spies are live
        torch.inner(x, y.requires_grad_(True))
    with pytest.raises(AssertionError, match="the body ran"):
        torch.einsum("ij,kj->ik", x, y)


def test_inner_of_matrices_skips_the_einsum_plan(monkeypatch):
    import numtorch.ops.linalg._fast_contract as FC

    def spy(*a, **k):
        raise AssertionError("einsum_compute ran")

    monkeypatch.setattr(FC, "einsum_compute", spy)
    x, y = _t(2, 3), _t(4, 3)
    assert torch.inner(x, y).shape == (2, 4)
    with pytest.raises(AssertionError, match="einsum_compute ran"):  # the spy is live
        torch.inner(_t(2, 2, 3), y)


def test_modes_grad_forward_ad_out_and_subclasses_take_the_body():
    x, y = _t(2, 3, dtype=torch.float64), _t(4, 3, dtype=torch.float64)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.inner(x, y), torch.tensordot(x, y.t(), 1), torch.einsum("ij,kj->ik", x, y)
    assert sum("aten.einsum" in ln for ln in logs) == 3
    w = x.clone().requires_grad_(True)
    for r in (torch.inner(w, y), torch.tensordot(w, y.t(), 1), torch.einsum("ij,kj->ik", w, y)):
        assert r.grad_fn is not None
        r.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.tile(3 * y.numpy().sum(0), (2, 1)))
    with torch.no_grad():
        assert torch.inner(w, y).grad_fn is None
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        for r in (torch.inner(d, y), torch.tensordot(d, y.t(), 1), torch.einsum("ij,kj->ik", d, y)):
            _same(fwAD.unpack_dual(r).tangent, torch.inner(torch.ones_like(x), y))
    out = torch.empty(0, dtype=torch.float64)
    assert torch.inner(x, y, out=out) is out and torch.tensordot(x, y.t(), 1, out=out) is out
    _same(out, torch.inner(x, y))

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(torch.inner(s, y)) is Sub and type(torch.tensordot(s, y.t(), 1)) is Sub
    assert type(torch.einsum("ij,kj->ik", s, y)) is Sub
