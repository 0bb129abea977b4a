"""isclose / allclose of two flat float arrays of one dtype (Note [Close fast calls])."""

import math

from numtorch.kernels._jit import inline, kernel


@inline
def _close(a, b, rtol, atol, equal_nan, tol):
    # at::isclose's composite, element by element and in the operands' dtype (rtol and atol
    # come converted to it): a == b, or both NaN under equal_nan, or (with a tolerance)
    # |a - b| finite and <= |b * rtol| + atol
    if a == b:
        return True
    if equal_nan and a != a and b != b:
        return True
    if not tol:
        return False
    d = abs(a - b)
    return math.isfinite(d) and d <= abs(b * rtol) + atol


@kernel
def isclose_flat(x, y, rtol, atol, equal_nan, tol, out):
    for i in range(x.size):
        out[i] = _close(x[i], y[i], rtol, atol, equal_nan, tol)


@kernel
def allclose_flat(x, y, rtol, atol, equal_nan, tol):
    """Whether every element is close, stopping at the first that is not."""
    for i in range(x.size):
        if not _close(x[i], y[i], rtol, atol, equal_nan, tol):
            return False
    return True


@kernel
def all_equal_nd(x, y):
    """reduction.core.all_equal over two C-contiguous arrays of one shape and dtype, flattened
    here (a ravel in the caller costs two Python calls): stops at the first difference."""
    a = x.ravel()
    b = y.ravel()
    for i in range(a.size):
        if not a[i] == b[i]:
            return False
    return True
