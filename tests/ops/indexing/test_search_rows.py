"""search_rows (kernels/cpu/indexing.py) written with selects and a loop over rows: the same
probes as PyTorch's lower/upper bound loops (lo, hi, mid = (lo + hi) >> 1), so sorted rows,
NaN, ties and even unsorted rows give their answers; searchsorted/bucketize through the fast
call and the body against NumPy's searchsorted (PyTorch's results on sorted rows)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.kernels.cpu.indexing import search_rows
from numtorch.testing._internal.logging_tensor import LoggingTensorMode


def _classic(row, v, right):
    lo, hi = 0, len(row)
    while lo < hi:
        mid = (lo + hi) >> 1
        if not (row[mid] > v if right else row[mid] >= v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_probes_match_the_classic_loop(dtype):
    rng = np.random.default_rng(3)
    for _ in range(200):
        nb, rows, nv = int(rng.integers(0, 10)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
        b = rng.integers(-3, 4, rows * nb).astype(dtype)
        v = rng.integers(-4, 5, rows * nv).astype(dtype)
        if np.dtype(dtype).kind == "f":
            b[rng.random(b.size) < 0.2] = np.nan
            v[rng.random(v.size) < 0.2] = np.nan
        if rng.random() < 0.5:
            b.reshape(rows, nb).sort(axis=1)
        shared = rng.random() < 0.3
        for right in (False, True):
            out = np.full(v.size, -1, np.int64)
            if shared:  # one row for every value
                search_rows(b[:nb], 0, nb, v, v.size, right, out)
                want = [_classic(b[:nb], x, right) for x in v]
            else:
                search_rows(b, nb, nb, v, nv, right, out)
                want = [
                    _classic(b[(k // nv) * nb : (k // nv + 1) * nb], x, right)
                    for k, x in enumerate(v)
                ]
            assert out.tolist() == want


@pytest.mark.parametrize("shape", [(), (7,), (300, 4)])
def test_searchsorted_and_bucketize_against_numpy(shape):
    rng = np.random.default_rng(4)
    b = np.sort(rng.integers(-5, 6, 9).astype(np.float32))
    v = rng.integers(-6, 7, shape).astype(np.float32)
    rows = np.sort(rng.integers(-5, 6, (300, 9)).astype(np.float32), axis=1)
    for right in (False, True):
        got = torch.bucketize(torch.from_numpy(v), torch.from_numpy(b), right=right)
        with LoggingTensorMode():  # the body
            body = torch.bucketize(torch.from_numpy(v), torch.from_numpy(b), right=right)
        side = "right" if right else "left"
        want = np.searchsorted(b, v, side=side).astype(np.int64)
        assert got.shape == body.shape == want.shape and got.dtype == torch.int64
        assert np.array_equal(got.numpy(), want) and np.array_equal(body.numpy(), want)
        if len(shape) == 2:
            got = torch.searchsorted(torch.from_numpy(rows), torch.from_numpy(v), right=right)
            want = np.stack(
                [np.searchsorted(r, x, side=side) for r, x in zip(rows, v, strict=True)]
            )
            assert np.array_equal(got.numpy(), want)
