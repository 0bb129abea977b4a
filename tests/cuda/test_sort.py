"""sort/argsort/topk (stable merge sort), cumprod, prod, count_nonzero, scatter(reduce=) /
scatter_reduce and the slicing views' backward on CUDA against the CPU (tiny sizes: the
simulator runs a Python thread per CUDA thread)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(6)
X = rng.standard_normal((3, 5))
X[1, 2] = np.nan
X[0, 1] = X[0, 3]  # a tie: stability decides the indices
XI = rng.integers(-3, 3, (2, 13))  # rows of 13: four merge passes, uneven runs, many ties
X0 = rng.standard_normal((3, 4))
X0[1, 2] = 0.0
IDX = np.array([[0, 1, 0, 2, 1], [2, 2, 0, 0, 1]])


def _idx(x):
    return numtorch.tensor(IDX, device=x.device)


_CALLS = {
    "sort": (lambda x: x.sort(1), X),
    "sort dim0 descending": (lambda x: x.sort(0, descending=True), X),
    "sort int stable": (lambda x: x.sort(stable=True), XI),
    "sort int descending": (lambda x: x.sort(descending=True, stable=True), XI),
    "sort bool": (lambda x: (x > 0).sort(1), XI),
    "sort 0-d": (lambda x: x[0, 0].sort(), X),
    "argsort descending": (lambda x: x.argsort(1, descending=True, stable=True), XI),
    "topk": (lambda x: x.topk(3), X),
    "topk smallest dim0": (lambda x: x.topk(2, 0, largest=False), XI),
    "topk 0-d": (lambda x: x[0, 0].topk(1), X),
    "msort": (lambda x: x.msort(), X),
    "cumprod": (lambda x: x.cumprod(1), X),
    "cumprod int": (lambda x: x[:, :5].cumprod(0), XI),
    "prod": (lambda x: x.prod(), XI),
    "prod float": (lambda x: x[0].prod(), X),
    "prod dim keepdim": (lambda x: x.prod(1, keepdim=True), X),
    "prod bool dim0": (lambda x: (x > 0).prod(0), XI),
    "count_nonzero": (lambda x: x.count_nonzero(1), XI),
    "count_nonzero all": (lambda x: x.count_nonzero(), XI),
    "scatter add": (lambda x: x.scatter(1, _idx(x), x * 2, reduce="add"), X),
    "scatter multiply value": (lambda x: x.scatter(1, _idx(x), 3.0, reduce="multiply"), X),
    "scatter_reduce sum no self": (lambda x: x.scatter_reduce(1, _idx(x), x[:2], "sum", include_self=False), X),
    "scatter_reduce mean": (lambda x: x.scatter_reduce(1, _idx(x), x[:2], "mean"), X),
    "scatter_reduce mean int": (lambda x: x[:, :5].scatter_reduce(1, _idx(x), x[:, 5:10], "mean", include_self=False),
                                XI),
    "scatter_reduce amax nan": (lambda x: x.scatter_reduce(1, _idx(x), x[:2], "amax"), X),
    "scatter_reduce amin int dim0": (lambda x: x[:, :5].scatter_reduce(0, _idx(x) % 2, x[:, 5:10], "amin"), XI),
    "scatter_reduce prod": (lambda x: x.scatter_reduce(1, _idx(x), x[:2], "prod"), X),
    "scatter_reduce_ strided": (lambda x: x.t().clone().t().scatter_reduce_(1, _idx(x), x[1:], "sum"), X),
}  # fmt: skip


def _host(r):
    return [r] if isinstance(r, numtorch.Tensor) else list(r)


# variants the default run can spare (each costs a cold CPU-oracle compile): run with -m slow
_SLOW = {"prod float", "prod bool dim0", "cumprod int", "count_nonzero", "sort bool"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n for n in _CALLS])
def test_ops_match_cpu(name):
    fn, a = _CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scatter(reduce=) with a tensor source warns
        want = _host(fn(numtorch.tensor(a)))
        got = _host(fn(numtorch.tensor(a, device="cuda")))
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)


def _grads(fn, a, dev):
    t = numtorch.tensor(a, device=dev, requires_grad=True)
    out = fn(t)
    w = numtorch.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape), device=dev)
    (out * w).sum().backward()
    return t.grad


_GRADS = {
    "sort": (lambda x: x.sort(1).values, X0),
    "topk": (lambda x: x.topk(2, 0).values, X0),
    "cumprod": (lambda x: x.cumprod(1), X0[[0, 2]]),
    "cumprod with a zero": (lambda x: x.cumprod(1), X0),
    "prod": (lambda x: x.prod(), X0[[0, 2]]),
    "prod dim with a zero": (lambda x: x.prod(1), X0),
    "scatter_reduce amax": (lambda x: x.scatter_reduce(1, _idx(x)[:, :4], x[:2] * 2, "amax"), X0),
    "scatter_reduce prod no self": (lambda x: x.scatter_reduce(1, _idx(x)[:, :4], x[:2] + 1, "prod",
                                                               include_self=False), X0),
    "scatter_reduce mean": (lambda x: x.scatter_reduce(1, _idx(x)[:, :4], x[:2] + 1, "mean"), X0),
    "select": (lambda x: x[1] * x[-1], X0),
}  # fmt: skip


@pytest.mark.parametrize("name", list(_GRADS))
def test_grads_match_cpu(name):
    fn, a = _GRADS[name]
    want, got = _grads(fn, a, "cpu"), _grads(fn, a, "cuda")
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_errors_are_pytorchs_and_come_first():
    x = numtorch.tensor(X, device="cuda")
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(6)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sort(2)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        x.scatter_reduce(1, _idx(x), x, "max")
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        x.scatter(1, _idx(x), 1.0, reduce="max")
    y = x.clone()
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 5"):
        y.scatter_reduce_(1, numtorch.tensor([[0, 5]], device="cuda"), x, "sum")
    np.testing.assert_array_equal(y.cpu().numpy(), X)  # nothing written
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        y.scatter_reduce_(1, numtorch.tensor([[0, 1]]), x, "sum")


def test_half_runs_in_float32_and_rounds_once():
    x = numtorch.tensor(X0, dtype=numtorch.float16)
    xc = x.to("cuda")
    for fn in (lambda t: t.sort(1).values, lambda t: t.topk(2, 0).indices, lambda t: t.cumprod(1),
               lambda t: t.prod(1), lambda t: t.scatter_reduce(1, _idx(t)[:, :4], t[:2], "sum")):  # fmt: skip
        want, got = fn(x), fn(xc)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.cpu().numpy().astype(float), want.numpy().astype(float), rtol=2e-3)


@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_tiles_and_merges_sort_stably(descending):
    # Note [CUDA bitonic tile sort]: rows of several tiles (the simulator's tile is 8) with a
    # padded last tile, ties and NaNs across tiles, signed zeros; values and indices equal the
    # CPU's stable sort
    h = np.round(rng.standard_normal((3, 37)), 1)
    h[0, [3, 11, 30]] = np.nan
    h[1, :20:3] = 0.0
    h[1, 1:20:3] = -0.0
    h[2] = 0.5
    for x in (h, (h * 10).astype(np.int64)[:, :19]):
        for dim in (1, 0):
            want = numtorch.tensor(x).sort(dim, descending=descending, stable=True)
            got = numtorch.tensor(x, device="cuda").sort(dim, descending=descending, stable=True)
            np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
            np.testing.assert_array_equal(got.indices.cpu().numpy(), want.indices.numpy())
    got = numtorch.tensor(h, device="cuda").topk(5, largest=not descending)
    want = numtorch.tensor(h).topk(5, largest=not descending)
    np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
