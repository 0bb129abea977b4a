"""Note [max_unpool's own node]: max_unpool2d/3d record one MaxUnpool{2,3}DBackward0 whose
backward reads the gradient at the indices (derivatives.yaml's max_pool_double_backward), the
kernel below autograd is the composite's arithmetic on arrays, and a mode sees the op."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import layers_extra, unpool_node

from ._spy import OpLog as _Log


def _count(monkeypatch, name):
    ran = []
    real = getattr(unpool_node, name)
    monkeypatch.setattr(unpool_node, name, lambda *a: ran.append(1) or real(*a))
    return ran


def _pooled(n, shape, dtype=torch.float64, seed=0):
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]
    y, idx = pool(x, 3, 2, 1, return_indices=True)  # overlapping windows: repeated indices
    return y, idx, x.shape[-n:]


def _ref_grad(g, idx, n):
    """grad_in[plane, k] = g[plane, idx[plane, k]] (NumPy, the formula written out)."""
    lead = idx.shape[: idx.ndim - n]
    g2 = g.reshape(int(np.prod(lead)), -1)
    i2 = idx.reshape(g2.shape[0], -1)
    return np.stack([g2[p][i2[p]] for p in range(g2.shape[0])]).reshape(idx.shape)


_SHAPES = {1: [(2, 3, 9), (4, 8)], 2: [(2, 3, 5, 6), (3, 5, 6)], 3: [(1, 2, 4, 5, 3), (2, 4, 4, 5)]}


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_one_node_whose_gradient_reads_the_indices(n, dtype, monkeypatch):
    for shape in _SHAPES[n]:
        y, idx, size = _pooled(n, shape, dtype)
        yg = y.clone().requires_grad_(True)
        out = getattr(F, f"max_unpool{n}d")(yg, idx, 3, 2, 1, output_size=list(size))
        # 1-d: squeeze(-1) of max_unpool2d of the unsqueezed input
        node = out.grad_fn if n > 1 else out.grad_fn.next_functions[0][0]
        assert type(node).__name__ == f"MaxUnpool{max(n, 2)}DBackward0"
        nxt = "AccumulateGrad" if n > 1 else "UnsqueezeBackward0"
        assert [type(f).__name__ for f, _ in node.next_functions if f is not None] == [nxt]
        g = np.random.default_rng(1).standard_normal(out.shape).astype(y.numpy().dtype)
        ran = _count(monkeypatch, "_make")
        out.backward(torch.from_numpy(g))
        assert ran  # the NumPy gather ran
        want = _ref_grad(g, idx.numpy(), n)
        assert yg.grad.numpy().tobytes() == want.tobytes() and yg.grad.dtype is dtype
        # the ops' route (a graph is built) gives the same bits
        yg2 = y.clone().requires_grad_(True)
        out2 = getattr(F, f"max_unpool{n}d")(yg2, idx, 3, 2, 1, output_size=list(size))
        (gi,) = torch.autograd.grad(out2, yg2, torch.from_numpy(g), create_graph=True)
        assert gi.detach().numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_kernel_gives_the_composites_bits(n, dtype, monkeypatch):
    y, idx, size = _pooled(n, _SHAPES[n][0], dtype)
    op = getattr(torch.ops.aten, f"max_unpool{n}d")
    extra = ([2] * n, [1] * n) if n == 3 else ()
    ran = []
    real = unpool_node._KR
    monkeypatch.setattr(unpool_node, "_KR", type("K", (), {"minmax_all": staticmethod(
        lambda *a: ran.append(1) or real.minmax_all(*a))}))  # fmt: skip
    for a, i in [(y, idx), (y.transpose(-1, -2), idx.transpose(-1, -2)), (y[0], idx[0]),
                 (y, torch.zeros_like(idx))]:  # fmt: skip
        ran.clear()
        got = op(a, i, list(size), *extra)
        assert ran
        with torch.no_grad():
            want = layers_extra._max_unpool(a, i, list(size), n)
        assert not got._is_view() and got.is_contiguous()
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.numpy().tobytes() == want.numpy().tobytes()


def test_other_dtypes_errors_and_empty_take_the_composite():
    y, idx, size = _pooled(2, (2, 3, 5, 6), torch.float32)
    for dt in (torch.float16, torch.bfloat16):
        yh = y.to(dt).requires_grad_(True)
        out = F.max_unpool2d(yh, idx, 3, 2, 1, output_size=list(size))
        assert out.dtype is dt
        np.testing.assert_array_equal(out.float().detach().numpy(),
                                      F.max_unpool2d(y.to(dt).float(), idx, 3, 2, 1, output_size=list(size)).numpy())  # fmt: skip
        out.backward(torch.ones_like(out))
        assert yh.grad.dtype is dt and yh.grad.shape == yh.shape
    bad = idx.clone()
    bad.view(-1)[3] = 10_000
    with pytest.raises(RuntimeError, match="Found an invalid max index: 10000"):
        F.max_unpool2d(y.requires_grad_(True), bad, 3, 2, 1, output_size=list(size))
    with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
        torch.ops.aten.max_unpool2d(y, idx.int(), list(size))
    for shape in [(0, 3, 2, 2), (2, 3, 0, 2)]:  # PyTorch: zeros of the output size
        e = torch.zeros(shape, requires_grad=True)
        out = torch.ops.aten.max_unpool2d(e, torch.zeros(shape, dtype=torch.int64), [4, 4])
        assert out.shape == shape[:2] + (4, 4) and not out.detach().numpy().any()
        out.sum().backward()
        assert e.grad.shape == e.shape


def test_a_mode_sees_the_op_forward_and_backward():
    y, idx, size = _pooled(2, (2, 3, 5, 6))
    yg = y.requires_grad_(True)
    with _Log() as m:
        out = torch.ops.aten.max_unpool2d(yg, idx, list(size))
    assert m.calls == ["aten.max_unpool2d.default"]
    with _Log() as m:
        out.sum().backward()
    assert "aten.gather.default" in m.calls and "aten.scatter.src" not in m.calls


@pytest.mark.parametrize("n", [1, 2, 3])
def test_gradcheck_and_gradgradcheck(n):
    # windows that do not overlap: a repeated index keeps one value, whose gradient the
    # formula (as PyTorch's) gives to every input placed there
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(_SHAPES[n][0]))
    y, idx = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n](x, 2, return_indices=True)
    f = lambda v: getattr(F, f"max_unpool{n}d")(v, idx, 2, output_size=x.shape[-n:])  # noqa: E731
    yg = y.requires_grad_(True)
    assert torch.autograd.gradcheck(f, (yg,)) and torch.autograd.gradgradcheck(f, (yg,))
