"""Vectorizable exp / expm1 / tanh / sigmoid (numtorch/kernels/cpu/pointwise/vmath.py), through the public ops
whose generated kernels call them: accuracy over dense sweeps against a long-double reference,
and IEEE special values."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

_REF = {
    "exp": np.exp,
    "expm1": np.expm1,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}
_MAX_ULP = {"exp": 1.5, "expm1": 2.0, "tanh": 2.0, "sigmoid": 3.0}


def _sweep(dtype):
    if dtype == np.float32:
        # every 101st bit pattern: all exponents and signs, NaNs and infinities included
        x = np.arange(0, 2**32, 101, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        rng = np.random.default_rng(0)
        x = np.concatenate([
            rng.uniform(-760, 760, 400_000),
            rng.uniform(-1, 1, 400_000),
            np.exp(rng.uniform(-740, 6.6, 400_000)) * rng.choice([-1.0, 1.0], 400_000),
        ])  # fmt: skip
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -87.33, -103.9, -104.0, -150.0,
             709.78, 709.79, -708.4, -745.1, -745.2, 1e-30, -1e-30, 0.3, 0.625, -0.625, 9.0]  # fmt: skip
    return np.concatenate([x.astype(dtype), np.array(edges, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_REF))
def test_accuracy_sweep(name, dtype):
    x = _sweep(dtype)
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    assert y.dtype == dtype
    with np.errstate(all="ignore"):
        ref = _REF[name](x.astype(np.longdouble))
        want = ref.astype(dtype)
    fi = np.finfo(dtype)
    # NaN exactly where the reference has NaN, infinities and signed zeros exactly as it rounds
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    special = ~np.isfinite(want) | (want == 0) | (x == 0)
    np.testing.assert_array_equal(y[special & ~np.isnan(want)], want[special & ~np.isnan(want)])
    zero = (x == 0) & (want == 0)
    np.testing.assert_array_equal(np.signbit(y[zero]), np.signbit(want[zero]))
    # ulps where the result is normal; absolute error below the normal range (sigmoid's
    # 1 / (1 + exp(-x)) flushes like PyTorch's once exp(-x) overflows)
    normal = np.isfinite(want) & (np.abs(want) >= fi.tiny)
    err = np.abs(y[normal].astype(np.longdouble) - ref[normal])
    ulp = err / np.spacing(np.abs(want[normal])).astype(np.longdouble)
    assert ulp.max() <= _MAX_ULP[name], (float(ulp.max()), x[normal][np.argmax(ulp)])
    tiny = np.isfinite(want) & (np.abs(want) < fi.tiny)
    assert np.all(np.abs(y[tiny].astype(np.longdouble) - ref[tiny]) <= fi.tiny)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    x = numtorch.from_numpy(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype))
    nan = np.nan
    for name, want in (("exp", [1, 1, np.inf, 0, nan]), ("expm1", [0, -0.0, np.inf, -1, nan]),
                       ("tanh", [0, -0.0, 1, -1, nan]), ("sigmoid", [0.5, 0.5, 1, 0, nan])):  # fmt: skip
        y = getattr(numtorch, name)(x).numpy()
        np.testing.assert_array_equal(y, np.array(want, dtype), err_msg=name)
        np.testing.assert_array_equal(np.signbit(y[:2]), np.signbit(np.array(want[:2])), err_msg=name)


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_out_and_strided_inputs_match_contiguous(name):
    x = np.linspace(-20, 20, 3001, dtype=np.float32)
    t = numtorch.from_numpy(x)
    fn = getattr(numtorch, name)
    want = fn(t).numpy()
    out = numtorch.empty(3001)
    fn(t, out=out)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(fn(t[::3]).numpy(), want[::3])
