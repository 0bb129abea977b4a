"""bincount and histc on CUDA against the CPU: counts, weights, minlength, ranges from the data,
values outside the range, and the CPU ops' errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(9)
I = rng.integers(0, 7, 23)  # noqa: E741 - repeats: the atomics race without them
F = rng.standard_normal(23)
F[4] = 10.0  # outside an explicit range

_CALLS = {
    "bincount": lambda i, f: numtorch.bincount(i),
    "bincount minlength": lambda i, f: numtorch.bincount(i[3:], minlength=12),
    "bincount int32": lambda i, f: numtorch.bincount(i.int()),
    "bincount weights float64": lambda i, f: numtorch.bincount(i, weights=f),
    "bincount weights float32": lambda i, f: numtorch.bincount(i, weights=f.float()),
    "bincount weights int": lambda i, f: numtorch.bincount(i, weights=i),
    "bincount empty": lambda i, f: numtorch.bincount(i[:0], minlength=3),
    "histc data range": lambda i, f: numtorch.histc(f, 5),
    "histc range": lambda i, f: numtorch.histc(f, 4, min=-1, max=1),
    "histc float32 strided": lambda i, f: f.float()[::2].histc(3, -2, 2),
    "histc half": lambda i, f: f.half().histc(6, -3, 3),
    "histc constant": lambda i, f: (f * 0 + 2).histc(4),
    "histc empty": lambda i, f: f[:0].histc(3),
}


@pytest.mark.parametrize("name", list(_CALLS))
def test_matches_the_cpu(name):
    want = _CALLS[name](numtorch.tensor(I), numtorch.tensor(F))
    got = _CALLS[name](numtorch.tensor(I, device="cuda"), numtorch.tensor(F, device="cuda"))
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6 if want.dtype == numtorch.float32 else 1e-12)


def test_errors_are_the_cpus():
    i, f = numtorch.tensor(I, device="cuda"), numtorch.tensor(F, device="cuda")
    for call, err, text in ((lambda: numtorch.bincount(i - 1), RuntimeError, "1-d non-negative integral inputs"),
                            (lambda: numtorch.bincount(i.reshape(1, -1)), RuntimeError, "1-d non-negative"),
                            (lambda: numtorch.bincount(i, minlength=-1), RuntimeError, "minlength should be >= 0"),
                            (lambda: numtorch.bincount(i, weights=f[1:]), RuntimeError, "weights should be 1-d"),
                            (lambda: numtorch.bincount(f), NotImplementedError, "\"bincount_cuda\" not implemented for 'Double'"),
                            (lambda: f.histc(0), RuntimeError, "bins must be > 0, but got 0"),
                            (lambda: f.histc(3, 2, 1), RuntimeError, "max must be larger than min"),
                            (lambda: (f / 0).histc(3), RuntimeError, "is not finite"),
                            (lambda: i.histc(3), NotImplementedError, "\"histogram_cuda\" not implemented for 'Long'")):  # fmt: skip
        with pytest.raises(err, match=text):
            call()
