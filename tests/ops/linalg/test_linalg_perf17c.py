"""Session 17 (perf17c): cholesky's finite-diagonal check on a few real values (decomp's
_finite_diagonal) still sends every NaN pivot to PyTorch's error and lets huge finite factors
through."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import decomp


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("batch", [(), (2,), (2, 3)])
@pytest.mark.parametrize(
    "bad, order", [((0, 0, math.nan), 1), ((1, 1, math.nan), 2), ((0, 0, math.inf), 2)]
)
def test_a_non_finite_pivot_is_pytorchs_error(dtype, batch, bad, order):
    a = np.tile(np.array([[4.0, 1.0], [1.0, 3.0]]), batch + (1, 1))
    i, j, v = bad
    a[(-1,) * len(batch) + (i, j)] = v
    if v == math.inf:  # inf/inf in LAPACK's second pivot, where OpenBLAS scales by 1/inf = 0
        a[(-1,) * len(batch) + (0, 1)] = a[(-1,) * len(batch) + (1, 0)] = math.inf
    where = f"(Batch element {int(np.prod(batch)) - 1}): " if batch else ""
    msg = (f"linalg.cholesky: {where}The factorization could not be completed because the input is not "
           f"positive-definite (the leading minor of order {order} is not positive-definite).")  # fmt: skip
    with pytest.raises(torch.linalg.LinAlgError, match=f"^{re.escape(msg)}$"):
        torch.linalg.cholesky(torch.tensor(a, dtype=dtype))


def test_the_python_sum_route_decides_small_real_factors(monkeypatch):
    seen = []
    real = decomp._isfinite_f
    monkeypatch.setattr(decomp, "_isfinite_f", lambda s: seen.append(s) or real(s))
    a = np.array(
        [[[4.0, 1.0], [1.0, 3.0]], [[1e300, 0.0], [0.0, 1e300]]]
    )  # the sum of the roots: finite
    r = torch.linalg.cholesky(torch.tensor(a))
    assert r._data.tobytes() == np.linalg.cholesky(a).tobytes() and seen
    # a factor whose diagonal sums past the float64 range reads as not finite: _check_pd
    # re-checks it and finds it positive-definite (no error)
    big = np.diag([1.7e308, 1.7e308])
    assert decomp._finite_diagonal(big) is False
    decomp._check_pd(big, "linalg.cholesky", False)
