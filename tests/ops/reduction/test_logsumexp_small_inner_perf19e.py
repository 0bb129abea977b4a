"""Note [Logsumexp over a small inner size], session 19: logsumexp over few columns runs
logsumexp_cols' arithmetic in flat passes (kernels/cpu/reduction/softmax.logsumexp_cols_small),
with logsumexp_cols' bits."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.kernels.cpu.reduction import softmax as K
from numtorch.ops.reduction import _reduce as E


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = E.KS.logsumexp_cols_small
    monkeypatch.setattr(E.KS, "logsumexp_cols_small", lambda *a: calls.append(a[2:]) or real(*a))
    return calls


def _with_cols(monkeypatch, fn):
    # the same call with the general column kernel in place of the small-inner one (the route before)
    with monkeypatch.context() as m:
        m.setattr(E.KS, "logsumexp_cols_small", K.logsumexp_cols)
        return fn()


def _values(rng, shape, dtype):
    a = rng.standard_normal(shape) * 20
    flat = a.reshape(-1)
    if flat.size > 12:
        flat[[1, 5, 11]] = [np.inf, -np.inf, np.nan]  # columns with an infinite max and a NaN
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((10924, 3, 4), 1), ((5, 3, 7), 1), ((2, 1, 15), 1), ((4, 6, 2), 0),
                                       ((3, 5, 2), -2), ((2, 3, 2, 2), 1), ((700, 2, 9), 1)])  # fmt: skip
def test_small_inner_route_gives_the_column_kernels_bits(dtype, shape, dim, rng, spy, monkeypatch):
    x = torch.from_numpy(_values(rng, shape, dtype))
    for keepdim in (False, True):
        got = torch.logsumexp(x, dim, keepdim)
        want = _with_cols(monkeypatch, lambda k=keepdim: torch.logsumexp(x, dim, k))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.numpy().tobytes() == want.numpy().tobytes()
    assert len(spy) == 2
    a = x.numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        m = np.max(np.where(np.isnan(a), -np.inf, a), axis=dim, keepdims=True)
        m[np.isinf(m)] = 0
        ref = np.log(np.exp(a - m).sum(axis=dim, keepdims=True)) + m
    np.testing.assert_allclose(got.numpy(), ref.astype(dtype), rtol=1e-5, atol=1e-5)


def test_kernel_matches_column_kernel_over_chunks(rng):
    # more blocks than one chunk (4096 elements) holds, with a partial last chunk
    for R, inner, outer in ((3, 4, 1000), (1, 15, 300), (40, 2, 77), (2000, 3, 2)):
        x = _values(rng, outer * R * inner, np.float32)
        a, b = np.empty(outer * inner, np.float32), np.empty(outer * inner, np.float32)
        K.logsumexp_cols(x, a, outer, R, inner)
        K.logsumexp_cols_small(x, b, outer, R, inner)
        assert a.tobytes() == b.tobytes()


def test_other_layouts_do_not_take_it(rng, spy, monkeypatch):
    x = torch.from_numpy(rng.standard_normal((3, 4, 16)).astype(np.float32))
    torch.logsumexp(x, 1)  # inner 16: the column kernel
    torch.logsumexp(x, 2)  # rows
    torch.logsumexp(x[:, :0], 1)  # empty
    torch.logsumexp(torch.zeros(3, 0, 2), 1)  # R == 0: -inf
    assert spy == []
    v = x[..., :3]  # non-contiguous: the layout reduces it as rows
    got = torch.logsumexp(v, 1)
    assert (
        got.numpy().tobytes()
        == _with_cols(monkeypatch, lambda: torch.logsumexp(v, 1)).numpy().tobytes()
    )


def test_integer_and_half_inputs(rng, spy, monkeypatch):
    for x in (torch.arange(24).reshape(2, 3, 4), torch.ones(2, 3, 4, dtype=torch.bool),
              torch.from_numpy(rng.standard_normal((2, 3, 4))).half(), torch.randn(2, 3, 4).bfloat16()):  # fmt: skip
        got = torch.logsumexp(x, 1)
        want = _with_cols(monkeypatch, lambda x=x: torch.logsumexp(x, 1))
        assert got.dtype == want.dtype and torch.equal(got, want)
    assert len(spy) == 4


def test_gradients():
    x = torch.randn(4, 3, 5, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: torch.logsumexp(t, 1), (x,))
    assert gradgradcheck(lambda t: torch.logsumexp(t, 1, True), (x,))
