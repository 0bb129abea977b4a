"""topk by selection (Note [CUDA topk by selection]) against the CPU's values and indices: k on
both sides of TOPK_MAX (selection, then the sort), rows longer than the block (every thread
keeps a list, the lists merge), NaN, ties and signed zeros across threads, largest and
smallest, other dims, int / half / float dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda, spy_launches

pytestmark = requires_cuda
rng = np.random.default_rng(57)


def _topk_max() -> int:
    from numtorch.kernels.cuda.sort import TOPK_MAX

    return TOPK_MAX


def _rows():
    h = np.round(rng.standard_normal((3, 45)), 1)  # repeats: ties across threads
    h[0, [3, 11, 30]] = np.nan
    h[1, :20:3] = 0.0
    h[1, 1:20:3] = -0.0
    h[2] = 0.5  # all tied: the first k indices
    return h


def _spy(monkeypatch):
    from numtorch.cuda import _sort

    return spy_launches(monkeypatch, _sort)


def _same(fn, x, dtype=None):
    want = fn(numtorch.tensor(x) if dtype is None else numtorch.tensor(x).to(dtype))
    dev = numtorch.tensor(x, device="cuda")
    got = fn(dev if dtype is None else dev.to(dtype))
    assert got.values.dtype == want.values.dtype and got.values.shape == want.values.shape
    np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.indices.cpu().numpy(), want.indices.numpy())
    return got


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("kk", [1, 2, 0, -1])  # k = 1, 2, TOPK_MAX, TOPK_MAX + 1 (the sort)
def test_k_around_the_cap(kk, largest, monkeypatch):
    k = kk if kk > 0 else _topk_max() - kk
    names = _spy(monkeypatch)
    _same(lambda t: t.topk(k, largest=largest), _rows())
    assert ("topk_rows_float" in names) == (k <= _topk_max())


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16", "float32"])
def test_dtypes(dtype, monkeypatch):
    names = _spy(monkeypatch)
    h = _rows()
    x = np.abs(np.nan_to_num(h * 10)).astype(np.int64) if dtype != "float16" else h
    _same(lambda t: t.topk(_topk_max(), 1), x, getattr(numtorch, dtype))
    _same(lambda t: t.topk(2, 1, largest=False), x, getattr(numtorch, dtype))
    assert ("topk_rows_float" if dtype.startswith("float") else "topk_rows_int") in names


def test_other_dims_short_rows_and_k_equal_to_n():
    h = _rows()
    _same(lambda t: t.topk(2, 0), h)
    _same(lambda t: t.topk(3, 0, largest=False), h)
    _same(lambda t: t.topk(3, 1), h[:, :3])  # k == n
    _same(lambda t: t.reshape(3, 5, 9).topk(2, 1), h)
    _same(lambda t: t[0, 0].topk(1), h)  # 0-d


def test_long_row_and_gradient():
    x = rng.standard_normal((2, 300))
    x[1, 250] = np.inf
    x[0, 17] = -np.inf
    _same(lambda t: t.topk(_topk_max()), x)
    _same(lambda t: t.topk(_topk_max(), largest=False), x)
    grads = []
    for dev in ("cpu", "cuda"):
        t = numtorch.tensor(x, device=dev, requires_grad=True)
        t.topk(3).values.sum().backward()
        grads.append(t.grad.cpu().numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_sort_stably(descending):
    # on a device: one tile per row (512 wide, 256 threads), the warp-synchronous bitonic steps (Note
    # [Warp-synchronous bitonic steps]); under the simulator: many tiles and merge passes
    x = np.round(rng.standard_normal((2, 300)), 1)
    x[0, ::37] = np.nan
    x[1, ::5] = -0.0
    for dt in (np.float32, np.int64):
        h = x.astype(dt) if dt is np.float32 else np.nan_to_num(x * 10).astype(dt)
        want = numtorch.tensor(h).sort(1, descending=descending, stable=True)
        got = numtorch.tensor(h, device="cuda").sort(1, descending=descending, stable=True)
        np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want.indices.numpy())
