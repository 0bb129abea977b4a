"""linalg.lstsq solves a batch in one call of NumPy's lstsq gufunc (decomp._lstsq_batch): the
per-matrix np.linalg.lstsq results bit for bit (solution, residuals, rank, singular values),
rank-deficient, wide, tall, complex and broadcast batches included; non-finite input is still
PyTorch's error."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch


def _per_matrix(a, b, rcond, driver):
    """The solutions as the op computed them before: one np.linalg.lstsq per matrix."""
    vec = a.ndim == b.ndim + 1
    if vec:
        b = b[..., None]
    m, n = a.shape[-2:]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    nb = int(np.prod(batch))
    a = np.broadcast_to(a, batch + a.shape[-2:]).reshape(nb, m, n)
    b = np.broadcast_to(b, batch + b.shape[-2:]).reshape(nb, m, b.shape[-1])
    k = b.shape[-1]
    real = a.real.dtype
    x = np.zeros((nb, n, k), a.dtype)
    res = np.zeros((nb, k), real)
    rank = np.zeros(nb, np.int64)
    sv = np.zeros((nb, min(m, n)), real)
    for i in range(nb):
        x[i], r, rank[i], s = np.linalg.lstsq(a[i], b[i], rcond=rcond)
        sv[i] = s
        res[i] = r if r.size else res[i]
    x = x.reshape(batch + (n, k))
    return (
        (x[..., 0] if vec else x),
        res.reshape(batch + (k,)),
        rank.reshape(batch),
        sv.reshape(batch + (min(m, n),)),
    )


def _cases(rng):
    for dt in (np.float32, np.float64, np.complex128):
        for sa, sb in [((5, 4, 2), (5, 4, 3)), ((3, 2, 4), (3, 2, 1)), ((6, 3, 3), (6, 3)), ((2, 4, 2), (1, 4, 1)),
                       ((4, 5, 3), (4, 5)), ((2, 1, 5, 3), (1, 3, 5, 2))]:  # fmt: skip
            a = rng.standard_normal(sa)
            b = rng.standard_normal(sb)
            if dt == np.complex128:
                a = a + 1j * rng.standard_normal(sa)
                b = b + 1j * rng.standard_normal(sb)
            a, b = a.astype(dt), b.astype(dt)
            a.reshape(-1, *sa[-2:])[0, :, -1] = a.reshape(-1, *sa[-2:])[
                0, :, 0
            ]  # a rank-deficient matrix
            yield a, b


@pytest.mark.parametrize("driver", ["gelsd", "gelsy", "gelss", "gels"])
def test_batch_is_the_per_matrix_lstsq_bit_for_bit(driver):
    rng = np.random.default_rng(0)
    for a, b in _cases(rng):
        got = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
        m, n = a.shape[-2:]
        rcond = float(np.finfo(a.real.dtype).eps) * max(m, n)
        x, res, rank, sv = _per_matrix(a, b, rcond, driver)
        assert got.solution.numpy().tobytes() == x.tobytes() and got.solution.shape == x.shape
        if driver != "gels":
            assert np.array_equal(got.rank.numpy(), rank)
        if driver in ("gelsd", "gelss"):
            assert (
                got.singular_values.numpy().tobytes()
                == sv.astype(got.singular_values.numpy().dtype).tobytes()
            )
        if driver != "gelsy" and m > n and (rank == n).all():
            want = res[..., 0] if a.ndim == b.ndim + 1 else res
            assert got.residuals.numpy().tobytes() == want.tobytes()


def test_non_finite_input_is_pytorchs_error_and_empty_batches_are_zeros():
    a = torch.randn(3, 4, 2, dtype=torch.float64)
    b = torch.randn(3, 4, 1, dtype=torch.float64)
    a[2, 1, 1] = float("nan")
    with pytest.raises(RuntimeError, match="Argument 4 has illegal value"):
        torch.linalg.lstsq(a, b)
    r = torch.linalg.lstsq(torch.randn(0, 4, 2), torch.randn(0, 4, 1))
    assert r.solution.shape == (0, 2, 1)
    r = torch.linalg.lstsq(torch.randn(2, 0, 2), torch.randn(2, 0, 1))
    assert r.solution.shape == (2, 2, 1) and not r.solution.any()
