"""Vectorizable log / log1p (numtorch/kernels/cpu/pointwise/vmath_log.py, Note [Vectorizable log])
through the public ops whose generated kernels call them: ulp error against mpmath over the whole
range, exact special values, agreement with libm's results (the kernels' previous math) and the
activations rebuilt on them (softplus, logsigmoid, mish)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

mpmath = pytest.importorskip("mpmath")

_MAX_ULP = 1.0  # measured 0.75 (log), 0.76 (log1p), 0.70 (log2), 0.59 (log10)
_MP = {"log": mpmath.log, "log1p": mpmath.log1p, "log2": lambda v: mpmath.log(v, 2), "log10": mpmath.log10}


def _inputs(name, dtype, n=6000):
    rng = np.random.default_rng(16)
    it = np.int32 if dtype == np.float32 else np.int64
    fi = np.finfo(dtype)
    bits = np.abs(rng.integers(0, np.iinfo(it).max, n, dtype=it)).view(dtype)  # every exponent
    edges = [2.0**-20, 8.0, 1024.0, 10.0, 100.0, 1e-5, fi.tiny, fi.smallest_subnormal, fi.max, 1.0, 2.0, 0.5, np.sqrt(2) / 2, np.sqrt(2),
             1 + fi.eps, 1 - fi.eps / 2, fi.eps, fi.eps / 4, 3 * fi.smallest_subnormal]  # fmt: skip
    x = [bits, rng.uniform(0, 4, n), np.asarray(edges)]
    if name == "log1p":
        x += [-bits, np.expm1(rng.uniform(-40, 0, n)), rng.uniform(-1e-3, 1e-3, n), -np.asarray(edges)]
    x = np.concatenate([np.asarray(v, dtype) for v in x])
    lo = 0 if name == "log" else -1
    return x[np.isfinite(x) & (x > lo)]


def _ulp_error(y, x, fn, dtype):
    mpmath.mp.prec = 128
    fi = np.finfo(dtype)
    worst = 0.0
    for xi, yi in zip(x.tolist(), y.tolist()):
        r = fn(mpmath.mpf(xi))
        a = abs(float(r))
        ulp = float(np.spacing(dtype(a))) if a >= fi.tiny else float(fi.smallest_subnormal)
        worst = max(worst, float(abs(mpmath.mpf(yi) - r)) / ulp)
    return worst


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["log", "log1p", "log2", "log10"])
def test_ulp_error_against_mpmath(name, dtype):
    x = _inputs(name, dtype)
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    assert y.dtype == dtype
    err = _ulp_error(y, x, _MP[name], dtype)
    assert err <= _MAX_ULP, err


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    fi = np.finfo(dtype)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -fi.smallest_subnormal, fi.smallest_subnormal, -1e-30, 1.0], dtype)
    t = numtorch.from_numpy(x)
    for name, fn in (("log", np.log), ("log1p", np.log1p), ("log2", np.log2), ("log10", np.log10)):
        y = getattr(numtorch, name)(t).numpy()
        with np.errstate(all="ignore"):
            want = fn(x)
        # libm is correctly rounded at these points: same values, NaNs and zero signs
        np.testing.assert_array_equal(y, want, err_msg=name)
        num = ~np.isnan(want)  # a NaN's sign is not specified (libm's is set, PyTorch's clear)
        np.testing.assert_array_equal(np.signbit(y[num]), np.signbit(want[num]), err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["log", "log1p", "log2", "log10"])
def test_matches_libm_within_bound(name, dtype):
    # the ops computed with libm before: the results move by at most the error bound + libm's
    rng = np.random.default_rng(3)
    x = np.concatenate([np.exp(rng.uniform(-700 if dtype == np.float64 else -87, 80, 200_000)),
                        rng.uniform(-1, 1, 100_000)]).astype(dtype)  # fmt: skip
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):  # libm (< 1 ulp) as the kernels called it, not NumPy's SIMD
        want = getattr(np, name)(x.astype(np.float64)).astype(dtype)
    ok = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    ulp = np.abs(y[ok] - want[ok]) / np.spacing(np.abs(want[ok]))
    assert ulp.max() <= _MAX_ULP + 1, ulp.max()


_ACT = {
    "softplus": (F.softplus, lambda x: np.where(x > 20, x, np.logaddexp(0, x))),  # threshold=20
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0, -x)),
    "mish": (F.mish, lambda x: x * np.tanh(np.logaddexp(0, x))),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_ACT))
def test_activations_on_vectorized_log1p(name, dtype):
    x = np.concatenate([np.linspace(-120, 120, 200_001), [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype)
    fn, ref = _ACT[name]
    y = fn(numtorch.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.longdouble))
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    # where exp(x) is normal: mish(x) = x exp(x) (1 + O(exp(x))) loses bits once exp(x) is subnormal
    ok = np.isfinite(want) & (np.abs(want) >= np.finfo(dtype).tiny) & (x > np.log(np.finfo(dtype).tiny))
    np.testing.assert_array_equal(y[~np.isnan(want) & ~ok & np.isinf(want)], want[np.isinf(want)].astype(dtype))
    rel = np.abs(y[ok] - want[ok]) / np.abs(want[ok])
    assert rel.max() <= 8 * np.finfo(dtype).eps, (float(rel.max()), x[ok][np.argmax(rel)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_vectorized_values_and_special_pairs(dtype):
    # generated kernels run vmath_log.vlogaddexp (selects, vexp/vlog1p): within 4 ulp of the
    # float64/longdouble value away from the cancellation at a ~ -b (where the result is ~0),
    # and NumPy's answers for every pair of specials
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(4000) * 30).astype(dtype)
    y = (rng.standard_normal(4000) * 30).astype(dtype)
    got = numtorch.logaddexp(numtorch.from_numpy(x), numtorch.from_numpy(y)).numpy()
    want = np.logaddexp(x.astype(np.longdouble), y.astype(np.longdouble))
    ok = np.abs(want) > 1
    err = np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok]).astype(dtype))
    assert err.max() <= 4, err.max()
    sp = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 5.0], dtype)
    a, b = np.repeat(sp, sp.size), np.tile(sp, sp.size)
    got = numtorch.logaddexp(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got, np.logaddexp(a, b))
