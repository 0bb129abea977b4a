"""as_strided's backward kernel (ops/shape/_geometry.py): the geometry laid over an arange of
the storage and the extent from the sizes give the index arrays and buffers the per-dim
broadcast sums gave, so the same gradients, bit for bit."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch._tensor import _make
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.shape import _geometry as geo


def _index_ref(size, stride, offset):
    idx = np.full(tuple(size), offset, np.int64)
    for d, (n, s) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def _kernel_ref(g, src_size, src_stride, src_offset, dst_size, dst_stride, dst_offset):
    src = _index_ref(src_size, src_stride, src_offset)
    dst = _index_ref(dst_size, dst_stride, dst_offset)
    n = 1 + max(int(src.max(initial=0)), int(dst.max(initial=0)))
    buf = np.zeros(n, g.dtype)
    np.add.at(buf, src.reshape(-1), g.reshape(-1))
    return buf[dst]


def _geometry(rng):
    nd = int(rng.integers(0, 4))
    return ([int(v) for v in rng.integers(0, 4, nd)], [int(v) for v in rng.integers(0, 6, nd)],
            int(rng.integers(0, 4)))  # fmt: skip


def test_index_and_kernel_match_the_broadcast_sums():
    rng = np.random.default_rng(0)
    for _ in range(600):
        size, stride, off = _geometry(rng)
        a, b = geo._geometry_index(size, stride, off), _index_ref(size, stride, off)
        assert a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
        dsize, dstride, doff = _geometry(rng)
        for dt in (np.float32, np.float64):
            g = rng.standard_normal(tuple(size)).astype(dt)
            got = geo._as_strided_backward_cpu(_make(g, numtorch.float32 if dt is np.float32 else numtorch.float64),
                                               size, stride, off, dsize, dstride, doff)  # fmt: skip
            want = _kernel_ref(g, size, stride, off, dsize, dstride, doff)
            assert got._data.shape == want.shape and got._data.dtype == want.dtype
            np.testing.assert_array_equal(got._data, want)


def test_as_strided_gradients():
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    for size, stride, off in (((2, 2), (1, 2), 0), ((3, 3), (1, 1), 1), ((2, 3), (4, 1), 0), ((4,), (0,), 2)):
        f = lambda x, size=size, stride=stride, off=off: x.as_strided(size, stride, off)
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    x.grad = None
    x.as_strided((3, 3), (1, 1)).sum().backward()  # overlapping: each position counted per use
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1)[:6], [1, 2, 3, 2, 1, 0])
