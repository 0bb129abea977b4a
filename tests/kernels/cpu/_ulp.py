"""The float32 ulp of float64 reference values, shared by the vmath kernel tests."""

import numpy as np


def ulp32(want):
    """The spacing of float32 at each |want| (2**-149 below float32's smallest normal)."""
    a = np.abs(want)
    return np.where(a >= np.finfo(np.float32).tiny, np.spacing(a.astype(np.float32)).astype(np.float64), 2.0**-149)


def assert_float32_matches_float64(fn, x, bound=0.51):
    """fn of the float32 x within ``bound`` ulp of fn of x in float64; past float32's range, inf
    of the same sign."""
    import numtorch

    y = fn(numtorch.from_numpy(x)).numpy()
    want = fn(numtorch.from_numpy(x.astype(np.float64))).numpy()
    assert y.dtype == np.float32
    fin = np.isfinite(want) & (np.abs(want) < float(np.finfo(np.float32).max))
    err = np.abs(y[fin] - want[fin]) / ulp32(want[fin])
    assert err.max() <= bound, (err.max(), x[fin][np.argmax(err)])
    big = ~fin & ~np.isnan(want)
    assert np.array_equal(y[big], np.sign(want[big]) * np.inf)
