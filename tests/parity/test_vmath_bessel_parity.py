"""numtorch's float32 i0, i0e, i1, i1e (Note [Vectorizable modified Bessel functions]) are at least
as accurate as PyTorch's float32 kernels on the same inputs: max ulp error against SciPy's float64
results, numtorch's beside torch's."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
special = pytest.importorskip("scipy.special")


def _ulp_err(y, want):
    fin = np.isfinite(want) & (np.abs(want) < float(np.finfo(np.float32).max))
    a = np.abs(want[fin])
    ulp = np.where(a >= np.finfo(np.float32).tiny, np.spacing(a.astype(np.float32)).astype(np.float64), 2.0**-149)
    return (np.abs(y[fin].astype(np.float64) - want[fin]) / ulp).max()


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_float32_error_at_most_torchs(name):
    rng = np.random.default_rng(15)
    x = np.concatenate([np.linspace(-90, 90, 40001), rng.uniform(-10, 10, 20000), np.geomspace(1e-30, 1e30, 2000)])
    x = x.astype(np.float32)
    with np.errstate(over="ignore"):
        want = getattr(special, name)(x.astype(np.float64))
    ours = _ulp_err(getattr(numtorch.special, name)(numtorch.from_numpy(x)).numpy(), want)
    theirs = _ulp_err(getattr(torch.special, name)(torch.from_numpy(x)).numpy(), want)
    assert ours <= max(theirs, 0.51), (ours, theirs)
