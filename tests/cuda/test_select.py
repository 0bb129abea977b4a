"""median/nanmedian/kthvalue (a stable sort, then a pick per row), logcumsumexp and the adaptive
max pools on CUDA against the CPU, values, indices and gradients (tiny sizes: the simulator runs
a Python thread per CUDA thread)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(8)
X = rng.standard_normal((3, 6))
X[1, 2] = X[1, 4] = np.nan  # median: the row's first NaN; nanmedian skips both
X[0, 1] = X[0, 3]  # a tie: the stable sort decides the index
X[2] = np.nan  # an all-NaN row
XI = rng.integers(-3, 3, (2, 7))
XP = rng.standard_normal((2, 2, 5, 7))  # uneven, overlapping adaptive windows
XP[0, 1, 2, 3] = np.nan
NAN = float("nan")

_CALLS = {
    "median dim": (lambda x: x.median(1), X),
    "median dim0 keepdim": (lambda x: x.median(0, keepdim=True), X),
    "median all": (lambda x: x[:2, :2].median(), X),
    "median all nan": (lambda x: x.median(), X),
    "median int": (lambda x: x.median(1), XI),
    "median 0-d": (lambda x: x[0, 0].median(0), X),
    "median empty": (lambda x: x[:0].median(), X),
    "nanmedian dim": (lambda x: x.nanmedian(1), X),
    "nanmedian all": (lambda x: x.nanmedian(), X),
    "nanmedian half": (lambda x: x.half().nanmedian(-1, keepdim=True), X),
    "kthvalue": (lambda x: x.kthvalue(2, 1), X),
    "kthvalue int dim0": (lambda x: x.kthvalue(2, 0, keepdim=True), XI),
    "mode": (lambda x: x.mode(1), X),
    "mode int dim0 keepdim": (lambda x: x.mode(0, keepdim=True), XI),
    "mode ties smallest": (lambda x: (x % 2).mode(), XI),
    "mode bool": (lambda x: (x > 0).mode(1), XI),
    "mode 0-d": (lambda x: x[0, 0].mode(), XI),
    "logcumsumexp": (lambda x: x.logcumsumexp(1), X),
    "logcumsumexp dim0 float32": (lambda x: x.float().logcumsumexp(0), X),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True), XP),
    "adaptive_max_pool2d unbatched half": (lambda x: F.adaptive_max_pool2d(x[0].half(), 4, return_indices=True), XP),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, (2, 2, 3), return_indices=True), XP),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), XP),
    "adaptive_avg_pool3d unbatched": (lambda x: F.adaptive_avg_pool3d(x[0, None], 1), XP),
    "cummax": (lambda x: x.cummax(1), X),
    "cummin int dim0 ties": (lambda x: x.cummin(0), XI),
    "cummax bool": (lambda x: (x > 0).cummax(1), XI),
    "cummin half": (lambda x: x.half().cummin(-1), X),
    "cummax 0-d": (lambda x: x[0, 0].cummax(0), X),
    # composed from sum/amax/amin/mean on the device (numtorch/cuda/_composed.py)
    "logsumexp": (lambda x: x[:2].nan_to_num().logsumexp(1), X),
    "logsumexp keepdim infinite rows": (lambda x: numtorch.tensor([[-np.inf, -np.inf], [np.inf, 1.0]],
                                                                  device=x.device).logsumexp((0, 1), keepdim=True), X),
    "logsumexp int": (lambda x: x.logsumexp(0), XI),
    "nansum": (lambda x: x.nansum(1), X),
    "nansum all int dtype": (lambda x: x.nansum(dtype=numtorch.float64), XI),
    "aminmax": (lambda x: x.aminmax(dim=0, keepdim=True), X),
    "aminmax all": (lambda x: x[:2].aminmax(), X),
    "var_mean": (lambda x: numtorch.var_mean(x[:2], 1, correction=0), X),
    "std_mean all keepdim": (lambda x: numtorch.std_mean(x.nan_to_num(), keepdim=True), X),
    "logcumsumexp infinities": (lambda x: numtorch.tensor([[-np.inf, -np.inf, 1.0, np.inf, np.inf, 2.0]],
                                                          device=x.device).logcumsumexp(1), X),
}


def _host(r):
    if isinstance(r, numtorch.Tensor):
        return r.cpu() if r.is_cuda else r
    return tuple(_host(v) for v in r)


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_matches_the_cpu(name):
    fn, data = _CALLS[name]
    x = numtorch.from_numpy(data.copy())
    want, got = fn(x), fn(x.cuda())
    for w, g in zip(*(r if isinstance(r, tuple) else (r,) for r in (want, got))):
        assert g.is_cuda and g.dtype is w.dtype and g.shape == w.shape
        np.testing.assert_allclose(_host(g).numpy(), w.numpy(), rtol=1e-6, atol=1e-7, err_msg=name)


def test_gradients_match_the_cpu():
    x = numtorch.from_numpy(X[:2].copy())
    x[1, 2] = x[1, 4] = 0.5  # median's gradient goes to the picked index
    fns = (lambda t: t.median(1).values * 3, lambda t: t.nanmedian(), lambda t: t.kthvalue(2, 0).values,
           lambda t: t.logcumsumexp(1) * t.new_tensor([1.0, -2.0, 0.5, 1.0, 3.0, -1.0]),
           lambda t: t.cummin(1).values * 2, lambda t: t.mode(0).values)  # fmt: skip
    for fn in fns:
        grads = []
        for t in (x, x.cuda()):
            t = t.clone().requires_grad_()
            fn(t).sum().backward()
            grads.append(t.grad.cpu())
        np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-12)


def test_adaptive_pool_gradients_match_the_cpu():
    x = numtorch.from_numpy(XP[:1].copy())
    w = numtorch.from_numpy(rng.standard_normal((1, 2, 3, 4)))
    for fn in (lambda t: F.adaptive_max_pool2d(t, (3, 4)) * w.to(t.device),
               lambda t: F.adaptive_max_pool3d(t, (2, 3, 3)) * 2, lambda t: F.adaptive_avg_pool3d(t, (2, 3, 5)) * 3,
               lambda t: F.adaptive_avg_pool2d(t, (3, 4)) * w.to(t.device)):  # fmt: skip
        grads = []
        for t in (x, x.cuda()):
            t = t.clone().requires_grad_()
            fn(t).sum().backward()
            grads.append(t.grad.cpu())
        np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-12)


def test_errors_are_the_cpus():
    x, xc = numtorch.from_numpy(X.copy()), numtorch.from_numpy(X.copy()).cuda()
    for fn in (lambda t: t.kthvalue(7, 1), lambda t: t[:, :0].median(1), lambda t: t.median(2),
               lambda t: F.adaptive_max_pool2d(t, 2), lambda t: F.adaptive_max_pool3d(t[None, None, :0], 2),
               lambda t: t.cummax(2), lambda t: t[0, 0].cummin(1), lambda t: t[:, :0].mode(1)):  # fmt: skip
        with pytest.raises(Exception) as cpu:
            fn(x)
        with pytest.raises(type(cpu.value), match=re.escape(str(cpu.value))):
            fn(xc)
    for fn, kernel in ((lambda t: (t > 0).median(1), "median_cuda"),
                       (lambda t: numtorch.arange(3, device=t.device).logcumsumexp(0), "logcumsumexp_cuda"),
                       (lambda t: F.adaptive_max_pool3d(numtorch.ones(1, 2, 2, 2, dtype=numtorch.int64, device=t.device), 1),
                        "adaptive_max_pool3d_cuda")):  # fmt: skip
        with pytest.raises((NotImplementedError, RuntimeError), match=f'"{kernel}" not implemented for'):
            fn(xc)
