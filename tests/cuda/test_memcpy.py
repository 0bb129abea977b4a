"""Copies of contiguous CUDA storage as one memcpy (Note [Device memcpy]); strided and
converting copies stay on the copy kernels."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.cuda import _memcpy

from ._sim import requires_cuda

pytestmark = requires_cuda


@pytest.fixture
def memcpys():
    made = []
    if not _memcpy._COPY:
        _memcpy._setup()
    real = _memcpy._COPY[0]

    def counting(dst, src, nbytes):
        made.append(nbytes)
        return real(dst, src, nbytes)

    _memcpy._COPY[0] = counting
    yield made
    _memcpy._COPY[0] = real


def test_contiguous_copies_are_one_memcpy_each(memcpys):
    h = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = numtorch.from_numpy(h).cuda()
    np.testing.assert_array_equal(x.clone().cpu().numpy(), h)
    np.testing.assert_array_equal(x[1:3].clone().cpu().numpy(), h[1:3])  # an offset into the storage
    y = numtorch.zeros(5, 6, device="cuda")
    y[1:5].copy_(x)
    np.testing.assert_array_equal(y.cpu().numpy()[1:], h)
    assert memcpys == [96, 48, 96]


def test_strided_converting_and_overlapping_copies_use_the_kernels(memcpys):
    h = np.arange(24, dtype=np.float64).reshape(4, 6)
    x = numtorch.from_numpy(h).cuda()
    np.testing.assert_array_equal(x.t().contiguous().cpu().numpy(), h.T)
    np.testing.assert_array_equal(x.to(numtorch.float32).cpu().numpy(), h.astype(np.float32))
    z = numtorch.zeros(3, 6, dtype=numtorch.float64, device="cuda")
    z.copy_(x[0])  # broadcast
    np.testing.assert_array_equal(z.cpu().numpy(), np.broadcast_to(h[0], (3, 6)))
    v = x.reshape(-1)
    v[6:12].copy_(v[:6].clone())  # the clone is one memcpy; the copy_ into another window too
    assert memcpys == [48, 48]
    v[2:8].copy_(v[0:6])  # overlapping windows of one storage: the kernel
    assert memcpys == [48, 48]
