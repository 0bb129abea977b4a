"""cumsum/cumprod/logcumsumexp/cummax/cummin on CUDA against the CPU on every kernel path of
Note [CUDA scans]: line scans (dim not last, short rows, integers, complex), the block scan of
rows (several chunks per row, rows cut into k chunks), few long lines through a rows-last copy;
the in-place scans and the out= overloads of the scans, sorts and picks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(18)
ROWS = rng.standard_normal((3, 37))  # block scan: 10 chunks of the simulator's 4 threads per row
ROWS[1, 5] = np.nan
ROWS[2, 3:9] = ROWS[2, 2]  # ties: the index moves forward
LONG = rng.standard_normal((2, 101)) * 0.1  # few long rows: k chunks per row, three passes
LONGZ = 1 + LONG
LONGZ[1, 57] = 0.0
LONGZ = 1 + LONG
LONGZ[1, 57] = 0.0
COLS = rng.standard_normal((300, 3)) * 0.05  # few long lines along dim 0: a rows-last copy
CUBE = rng.standard_normal((2, 5, 3))  # line scans with inner > 1
INTS = rng.integers(-3, 4, (3, 20))

_CALLS = {
    "cumsum rows": (lambda x: x.cumsum(1), ROWS),
    "cumsum long rows": (lambda x: x.cumsum(-1), LONG),
    "cumsum few long lines": (lambda x: x.cumsum(0), COLS),
    "cumsum lines": (lambda x: x.cumsum(1), CUBE),
    "cumsum float32 rows": (lambda x: x.float().cumsum(1), ROWS),
    "cumsum int rows": (lambda x: x.cumsum(1), INTS),
    "cumsum int32 to int64 dim0": (lambda x: x.int().cumsum(0), INTS),
    "cumsum bool": (lambda x: (x > 0).cumsum(1), INTS),
    "cumsum dtype": (lambda x: x.cumsum(1, dtype=numtorch.float64), INTS),
    "cumsum strided input": (lambda x: x.t().cumsum(0), ROWS),
    "cumsum complex": (lambda x: (x + 1j * x.flip(1)).cumsum(1), ROWS),
    "cumprod rows": (lambda x: (1 + x * 0.01).cumprod(1), ROWS),
    "cumprod long rows with a zero": (lambda x: x.cumprod(1), LONGZ),
    "cumprod few long lines": (lambda x: (1 + x).cumprod(0), COLS),
    "cumprod int lines": (lambda x: x.cumprod(0), INTS),
    "logcumsumexp rows": (lambda x: x.logcumsumexp(1), ROWS),
    "logcumsumexp long rows": (lambda x: (x * 50).logcumsumexp(1), LONG),
    "logcumsumexp lines": (lambda x: x.logcumsumexp(1), CUBE),
    "logcumsumexp few long lines float32": (lambda x: x.float().logcumsumexp(0), COLS),
    "logcumsumexp infinities rows": (lambda x: x.new_tensor([[-np.inf] * 9 + [1.0, np.inf, np.inf, 2.0] + [0.5] * 5]
                                                            ).logcumsumexp(1), ROWS),
    "logcumsumexp complex": (lambda x: (x + 1j * x.flip(1)).logcumsumexp(1), ROWS),
    "logcumsumexp complex lines": (lambda x: (x - 2j * x).logcumsumexp(0), CUBE),
    "logcumsumexp complex infinities": (lambda x: numtorch.tensor([complex(-np.inf, 1), complex(-np.inf, 2), 1 + 1j,
                                                                    complex(np.inf, 0), complex(np.inf, 1), 2j],
                                                                   device=x.device).logcumsumexp(0), ROWS),
    "cummax rows nan ties": (lambda x: x.cummax(1), ROWS),
    "cummin rows nan ties": (lambda x: x.cummin(1), ROWS),
    "cummax few long lines": (lambda x: x.cummax(0), COLS),
    "cummin int rows": (lambda x: x.cummin(1), INTS),
    "cummax int dim0": (lambda x: x.cummax(0), INTS),
    "cummax bool rows": (lambda x: (x > 0).cummax(1), INTS),
    "cummax half rows": (lambda x: x.half().cummax(1), ROWS),
    "cummin lines": (lambda x: x.cummin(1), CUBE),
}  # fmt: skip


def _host(r):
    return [r] if isinstance(r, numtorch.Tensor) else list(r)


@pytest.mark.parametrize("name", list(_CALLS))
def test_scans_match_cpu(name):
    fn, a = _CALLS[name]
    want = _host(fn(numtorch.tensor(a)))
    got = _host(fn(numtorch.tensor(a, device="cuda")))
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape
        tol = 1e-5 if w.dtype in (numtorch.float32, numtorch.float16, numtorch.complex64) else 1e-12
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=tol, atol=tol, equal_nan=True)


def test_scan_gradients_match_cpu():
    def grads(dev):
        t = numtorch.tensor(ROWS[[0, 2]], device=dev, requires_grad=True)
        out = t.logcumsumexp(1) + t.cumsum(1) * 2 + (1 + 0.1 * t).cumprod(1) + t.cummax(1).values
        (out * out.new_tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))).sum().backward()
        return t.grad

    np.testing.assert_allclose(grads("cuda").cpu().numpy(), grads("cpu").numpy(), rtol=1e-10, atol=1e-12)


def test_inplace_scans_and_their_dtype_error():
    for name in ("cumsum_", "cumprod_"):
        want = getattr(numtorch.tensor(ROWS * 0.1), name)(1)
        x = numtorch.tensor(ROWS * 0.1, device="cuda")
        v = x[1:]
        r = getattr(x, name)(1)
        assert r is x and x._version == 1
        np.testing.assert_allclose(x.cpu().numpy(), want.numpy(), rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(v.cpu().numpy(), want.numpy()[1:], rtol=1e-12, equal_nan=True)  # a view sees it
    y = numtorch.tensor(INTS, device="cuda")
    with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype long int and output tensor dtype "
                                           "double should match"):  # fmt: skip
        y.cumsum_(0, dtype=numtorch.float64)
    np.testing.assert_array_equal(y.cpu().numpy(), INTS)


_OUTS = {
    "cumsum": lambda x, o: numtorch.cumsum(x, 1, out=o[0]),
    "cumprod": lambda x, o: numtorch.cumprod(x, 0, out=o[0]),
    "logcumsumexp": lambda x, o: numtorch.logcumsumexp(x, 1, out=o[0]),
    "cummax": lambda x, o: numtorch.cummax(x, 1, out=o),
    "cummin": lambda x, o: numtorch.cummin(x, 0, out=o),
    "median": lambda x, o: numtorch.median(x, out=o[0]),
    "nanmedian": lambda x, o: numtorch.nanmedian(x, out=o[0]),
    "median dim": lambda x, o: numtorch.median(x, 1, out=o),
    "nanmedian dim keepdim": lambda x, o: numtorch.nanmedian(x, 1, True, out=o),
    "kthvalue": lambda x, o: numtorch.kthvalue(x, 3, 1, out=o),
    "mode": lambda x, o: numtorch.mode(x.round(), 0, out=o),
    "sort": lambda x, o: numtorch.sort(x, 1, descending=True, out=o),
    "sort stable": lambda x, o: numtorch.sort(x, stable=True, dim=0, out=o),
    "topk": lambda x, o: numtorch.topk(x, 4, out=o),
}


@pytest.mark.parametrize("name", list(_OUTS))
def test_out_overloads_write_their_outs(name):
    fn = _OUTS[name]
    res = []
    for dev in ("cpu", "cuda"):
        x = numtorch.tensor(ROWS[:, :9], device=dev)
        outs = (numtorch.empty(0, dtype=x.dtype, device=dev), numtorch.empty(0, dtype=numtorch.int64, device=dev))
        r = fn(x, outs)
        for got, o in zip(_host(r), outs, strict=False):
            assert got is o  # the outs themselves come back
        res.append([o.cpu().numpy() for o in outs[:len(_host(r))]])
    for g, w in zip(res[1], res[0], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)


def test_out_overload_errors_come_before_any_write():
    x = numtorch.tensor(ROWS[:, :9], device="cuda")
    v = numtorch.zeros(3, 9, device="cuda", dtype=numtorch.float64)
    i = numtorch.zeros(3, 9, device="cuda", dtype=numtorch.int32)
    with pytest.raises(RuntimeError):
        numtorch.cummax(x, 1, out=(v, i))
    with pytest.raises(RuntimeError):
        numtorch.median(x, 1, out=(v[:, 0], i[:, 0]))
    assert not v.cpu().numpy().any() and not i.cpu().numpy().any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.cumsum(x, 1, out=v)  # same shape: no resize warning
    np.testing.assert_allclose(v.cpu().numpy(), np.cumsum(ROWS[:, :9], 1), rtol=1e-12)
