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


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_, np.uint8])
def test_transposed_copies_go_through_tiles_and_match_numpy(dtype, monkeypatch):
    # Note [Tiled transposing copy]: odd sizes (partial tiles), batch dims on both sides of the
    # swapped pair, an offset source and destination, and more tiles than blocks
    from numtorch.cuda import _launch

    calls = []
    real = _launch.run
    monkeypatch.setattr(_launch, "run", lambda k, *a: (calls.append(k.py_func.__name__), real(k, *a))[1])
    rng = np.random.default_rng(3)
    h = (rng.standard_normal((3, 9, 2, 11)) * 1e6).astype(dtype)
    h[0, 0, 0, :3] = np.array([np.iinfo(np.int64).max, -1, 7]).astype(dtype) if dtype == np.int64 else h[0, 0, 0, :3]
    x = numtorch.from_numpy(h).cuda()
    for got, want in ((x.permute(0, 3, 2, 1), h.transpose(0, 3, 2, 1)), (x[1].permute(2, 1, 0), h[1].transpose(2, 1, 0)),
                      (x[:, 1:].transpose(1, 3), h[:, 1:].transpose(0, 3, 2, 1))):  # fmt: skip
        np.testing.assert_array_equal(got.contiguous().cpu().numpy(), want)
    y = numtorch.zeros((2, 11, 9), dtype=x.dtype, device="cuda")
    y[1].copy_(x[2, :, 1].t())
    np.testing.assert_array_equal(y.cpu().numpy()[1], h[2, :, 1].T)
    assert not y.cpu().numpy()[0].any()
    assert calls.count("transpose_tiles_i" if np.dtype(dtype).itemsize == 8 and dtype != np.float64
                       else "transpose_tiles_f") == 4  # fmt: skip


def test_resize_keeps_a_large_enough_storage_and_grows_into_a_new_one():
    h = np.arange(12, dtype=np.float32)
    x = numtorch.from_numpy(h).cuda()
    root = x._data.root
    x.resize_(2, 3)  # smaller: the same storage, viewed from the offset
    assert x._data.root is root and x.shape == (2, 3)
    np.testing.assert_array_equal(x.cpu().numpy(), h[:6].reshape(2, 3))
    y = numtorch.from_numpy(h).cuda()[2:]
    y.resize_(4, 5)  # larger: new storage, the old elements in front
    assert y._data.root is not root
    np.testing.assert_array_equal(y.cpu().numpy().reshape(-1)[:10], h[2:])
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        numtorch.zeros(2, device="cuda", requires_grad=True).resize_(3)
