"""Cache-blocked strided copy (numtorch/kernels/cpu/shape.py) against NumPy, and its use by
clone/contiguous on large transposed views."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.kernels.cpu import shape as K

DTYPES = [np.bool_, np.int8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64,
          np.complex64]  # fmt: skip


def _rand(rng, shape, dt):
    x = rng.standard_normal(shape) * 100
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _check(src, rng):
    dst = np.full(src.shape, 7, src.dtype)
    ok = K.copy_into(dst, src, only_if_faster=False)
    np.testing.assert_array_equal(dst, src if ok else np.full(src.shape, 7, src.dtype))
    return ok


@pytest.mark.parametrize("dt", DTYPES)
def test_transpose_all_itemsizes(dt, rng):
    # odd sizes: full 64x64 tiles plus ragged edges on both dims
    a = _rand(rng, (131, 70), dt)
    assert _check(a.T, rng)
    b = _rand(rng, (3, 67, 129), dt)
    assert _check(np.swapaxes(b, 1, 2), rng)


def test_bits_are_moved_not_values(rng):
    a = np.array([np.nan, -0.0, np.inf, 1.5], np.float32).view(np.int32).copy()
    a[0] = 0x7FC00123  # NaN with a payload
    src = np.tile(a.view(np.float32), (100, 10))  # (100, 40)
    dst = np.empty((40, 100), np.float32)
    assert K.copy_into(dst, src.T, only_if_faster=False)
    assert np.array_equal(dst.view(np.int32), np.ascontiguousarray(src.T).view(np.int32))


@pytest.mark.parametrize("seed", range(12))
def test_random_permutations_slices_and_strided_outputs(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(2, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(nd)]
    for d in rng.choice(nd, 2, replace=False):  # two dims long enough to tile
        shape[d] = int(rng.integers(K.MIN_TILED, 90))
    shape = tuple(shape)
    dt = DTYPES[seed % len(DTYPES)]
    base = _rand(rng, tuple(s * 2 for s in shape), dt)
    sl = tuple(slice(int(rng.integers(0, s)), None, int(rng.integers(1, 3))) for s in shape)
    v = base[sl]
    v = v.transpose(rng.permutation(nd))
    dst = np.empty(v.shape, dt)
    if rng.integers(2):  # destination in another dense layout
        perm = rng.permutation(nd)
        dst = np.empty(tuple(v.shape[i] for i in perm), dt).transpose(np.argsort(perm))
    dst[...] = 0
    if K.copy_into(dst, v, only_if_faster=False):
        np.testing.assert_array_equal(dst, v)
    else:
        np.testing.assert_array_equal(dst, 0)  # declined: nothing written


def test_empty_one_element_and_declined_cases(rng):
    a = _rand(rng, (0, 5), np.float32)
    assert not _check(a.T, rng)  # fewer than two dims longer than 1
    assert not _check(_rand(rng, (1, 1), np.float32).T, rng)
    e = _rand(rng, (0, 5, 3), np.float32).transpose(0, 2, 1)
    dst = np.empty(e.shape, np.float32)
    K.copy_into(dst, e, only_if_faster=False)  # whatever it answers, no error and nothing to write
    c = _rand(rng, (8, 9), np.complex128)
    assert not _check(c.T, rng)  # 16-byte items: NumPy's job
    assert not _check(_rand(rng, (8, 9), np.float32), rng)  # both row-major: NumPy streams it
    assert not _check(_rand(rng, (8, 9), np.float32)[::-1].T, rng)  # negative stride
    ro = _rand(rng, (8, 9), np.float32)
    ro.flags.writeable = False
    assert not _check(ro.T, rng)
    z = np.broadcast_to(np.arange(4.0), (50, 4)).copy()[:, :1]  # (50, 1), stride 4 elements
    z[:, 0] = np.arange(50)
    rows = np.lib.stride_tricks.as_strided(z, (60, 50), (0, z.strides[0]))
    assert _check(rows, rng)  # expand-like zero stride on the outer dim
    cols = np.lib.stride_tricks.as_strided(z, (50, 60), (z.strides[0], 0))
    assert not _check(cols, rng)  # zero-stride inner dim: NumPy streams it


def test_batched_permute_uses_kernel(rng):
    a = _rand(rng, (3, 80, 5, 70), np.float32)
    v = a.transpose(2, 3, 0, 1)  # (5, 70, 3, 80)
    assert _check(v, rng)
    assert _check(a[:, ::2, :, 1:].transpose(0, 3, 2, 1), rng)


def test_policy_leaves_non_aliasing_strides_to_numpy(rng):
    def used(shape, dt):
        a = _rand(rng, shape, dt)
        dst = np.zeros(shape[::-1], dt)
        ok = K.copy_into(dst, a.T)
        np.testing.assert_array_equal(dst, a.T if ok else 0)
        return ok

    assert used((64, 1024), np.float32)  # 4096-byte rows: NumPy's reads alias in L1
    assert used((64, 1536), np.float16) and used((64, 4096), np.int8)
    assert not used((64, 1000), np.float32)  # NumPy is faster here
    assert used((64, 1000), np.float64)  # 8-byte items: the kernel wins or ties
    assert not used((64, 20), np.float64)  # a dim too short to tile


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float16, numtorch.bool,
                                   numtorch.complex64, numtorch.complex128, numtorch.int64])  # fmt: skip
def test_contiguous_and_clone_of_large_transpose(dtype, monkeypatch):
    calls = []
    kernel = K.copy_blocked
    monkeypatch.setattr(K, "copy_blocked", lambda *a: calls.append(1) or kernel(*a))
    x = numtorch.arange(300 * 256).reshape(300, 256).to(dtype)
    t = x.t()
    c = t.contiguous()
    assert c.is_contiguous() and c.stride() == (300, 1) and c.dtype == dtype
    # 256-element rows alias in NumPy's loop for items of 2+ bytes; bool and complex128 use NumPy
    assert len(calls) == (0 if dtype in (numtorch.bool, numtorch.complex128) else 1)
    np.testing.assert_array_equal(c.numpy(), x.numpy().T)
    cl = t.clone(memory_format=numtorch.contiguous_format)
    assert cl.stride() == (300, 1)
    np.testing.assert_array_equal(cl.numpy(), x.numpy().T)
    assert t.clone().stride() == (1, 256)  # preserve_format keeps the layout
    assert c.data_ptr() != x.data_ptr()
    c[0, 0] = 1
    assert x._version == 0 and t.contiguous().data_ptr() != c.data_ptr()


def test_contiguous_batched_permute_and_channels_last():
    x = numtorch.randn(4, 3, 130, 170)
    p = x.permute(0, 3, 2, 1)
    want = np.ascontiguousarray(x.numpy().transpose(0, 3, 2, 1))
    np.testing.assert_array_equal(p.contiguous().numpy(), want)
    cl = x.contiguous(memory_format=numtorch.channels_last)
    assert cl.stride() == (3 * 130 * 170, 1, 170 * 3, 3)
    np.testing.assert_array_equal(cl.numpy(), x.numpy())
    back = cl.contiguous()
    assert back.is_contiguous()
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_autograd_through_large_transposed_contiguous():
    x = numtorch.randn(300, 256, requires_grad=True)
    y = x.t().contiguous()
    w = numtorch.randn(256, 300)
    (y * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy().T)
    x2 = numtorch.randn(300, 256, dtype=numtorch.float64, requires_grad=True)
    z = x2.t().clone(memory_format=numtorch.contiguous_format)
    (z * w.double()).sum().backward()
    np.testing.assert_array_equal(x2.grad.numpy(), w.double().numpy().T)


def test_tensor_from_large_transposed_numpy_array():
    a = np.random.default_rng(0).standard_normal((300, 512)).astype(np.float32)
    t = numtorch.tensor(a.T)
    assert t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), a.T)
