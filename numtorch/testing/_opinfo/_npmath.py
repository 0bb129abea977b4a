"""NumPy references for the few scipy.special functions the OpInfo references need.

numtorch (numtorch.testing included) imports nothing beyond numpy, numba and llvmlite, so a
fresh install can run the test suite without scipy.
"""

from __future__ import annotations

import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def expit(x):
    """Logistic sigmoid, stable for large |x| (exp only of non-positive numbers)."""
    x = np.asarray(x)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def erf(x):
    x = np.asarray(x)
    return _erf(x).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (scipy.special.xlogy)."""
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y)).astype(np.result_type(x, y, np.float16))
