"""Note [Join gradients as views] (cat/stack backward) and Note [channel_shuffle's own node]."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.shape import join_grad
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Seen(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def _spy(monkeypatch, name):
    calls = []
    orig = getattr(join_grad, name)

    def spy(*a):
        r = orig(*a)
        calls.append(r is not None)
        return r

    monkeypatch.setattr(join_grad, name, spy)
    return calls


def _leaves(shapes, dtype, rg=True):
    g = np.random.default_rng(0)
    return [torch.tensor(g.standard_normal(s)).to(dtype).requires_grad_(rg) for s in shapes]


CAT_CASES = [
    ([(2, 3), (2, 3), (2, 1)], 1),
    ([(2, 3), (1, 3)], 0),
    ([(2, 3), (1, 3)], -2),
    ([(4,), (0,), (3,)], 0),  # a legacy empty input among 1-D ones
    ([(2, 3, 2), (2, 1, 2)], 1),
    ([(1, 2), (0,)], 1),  # legacy empty beside 2-D
]


def _grads_by_ops(shapes, dim, dtype, w):
    xs = _leaves(shapes, dtype)
    with _Seen():  # under a mode the formula runs as ops (the reference)
        torch.cat(xs, dim).backward(w)
    return xs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shapes,dim", CAT_CASES)
def test_cat_grad_views_match_the_ops(monkeypatch, shapes, dim, dtype):
    calls = _spy(monkeypatch, "_cat_views")
    xs = _leaves(shapes, dtype)
    y = torch.cat(xs, dim)
    w = torch.randn(*y.shape, dtype=dtype)
    y.backward(w)
    assert calls == [True]
    ref = _grads_by_ops(shapes, dim, dtype, w)
    for x, r in zip(xs, ref, strict=True):
        assert x.grad.dtype is r.grad.dtype and x.grad.shape == r.grad.shape
        assert np.array_equal(x.grad.numpy(), r.grad.numpy())


def test_cat_grad_pieces_are_slice_views():
    a, b = _leaves([(2, 3), (2, 2)], torch.float32)
    y = torch.cat([a, b], 1)
    g = torch.randn(2, 5)
    pieces = y.grad_fn(g)
    for p, (s, e) in zip(pieces, [(0, 3), (3, 5)], strict=True):
        ref = g[:, s:e]
        assert p._base is g and p.stride() == ref.stride()
        assert p.storage_offset() == ref.storage_offset()
        assert np.array_equal(p.numpy(), ref.numpy())


def test_cat_grad_takes_the_ops_under_a_mode_and_create_graph(monkeypatch):
    calls = _spy(monkeypatch, "_cat_views")
    a, b = _leaves([(2, 3), (2, 3)], torch.float64)
    with _Seen() as m:
        torch.cat([a, b]).sum().backward()
    assert calls == [] and m.names.count("aten.slice.Tensor") == 2
    y = torch.cat([a, b])
    (ga,) = torch.autograd.grad((y * y).sum(), [a], create_graph=True)
    assert calls == [] and ga.requires_grad
    assert torch.autograd.gradgradcheck(lambda p, q: torch.cat([p, q], 1), (a, b))


def test_cat_grad_declines_for_half_and_empty_pieces(monkeypatch):
    calls = _spy(monkeypatch, "_cat_views")
    a, b = _leaves([(2, 3), (2, 3)], torch.float16)
    torch.cat([a, b]).sum().backward()
    assert calls == [] and a.grad.dtype is torch.float16
    e, f = _leaves([(2, 0), (2, 3)], torch.float32)
    torch.cat([e, f], 1).sum().backward()
    assert calls == [False] and e.grad.shape == (2, 0)
    assert np.array_equal(f.grad.numpy(), np.ones((2, 3), np.float32))


def test_cat_of_mixed_dtypes_casts_each_gradient():
    a = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(1, 3, dtype=torch.float64, requires_grad=True)
    y = torch.cat([a, b])
    assert y.dtype is torch.float64
    y.backward(torch.arange(9.0, dtype=torch.float64).view(3, 3))
    assert a.grad.dtype is torch.float32 and b.grad.dtype is torch.float64
    assert np.array_equal(a.grad.numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert np.array_equal(b.grad.numpy(), np.arange(6.0, 9.0).reshape(1, 3))


def test_cat_saves_sizes_not_tensors():
    # PyTorch's CatBackward0 keeps sizes only: an input changed in place afterwards is fine
    a, b = torch.randn(2, 3), torch.randn(1, 3)
    w = torch.randn(2, 3, requires_grad=True)
    x = w * 1
    y = torch.cat([x, b])
    x.add_(1.0)
    y.sum().backward()
    assert np.array_equal(w.grad.numpy(), np.ones((2, 3), np.float32))
    assert a.shape == (2, 3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_stack_grad_views_match_the_ops(monkeypatch, dim, dtype):
    xs = _leaves([(2, 3), (2, 3), (2, 3)], dtype)
    y = torch.stack(xs, dim)
    w = torch.randn(*y.shape, dtype=dtype)
    pieces = y.grad_fn(w)
    for i, p in enumerate(pieces):
        ref = w.select(dim, i)
        assert p._base is w and p.stride() == ref.stride()
        assert p.storage_offset() == ref.storage_offset()
        assert np.array_equal(p.numpy(), ref.numpy())
    y.backward(w)
    refs = _leaves([(2, 3), (2, 3), (2, 3)], dtype)
    with _Seen() as m:
        torch.stack(refs, dim).backward(w)
    assert m.names.count("aten.select.int") == 3
    for x, r in zip(xs, refs, strict=True):
        assert np.array_equal(x.grad.numpy(), r.grad.numpy())


def test_kernel_over_slice_is_called_by_cat_backward():
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:

        def kernel(self, dim=0, start=None, end=None, step=1):
            seen.append((start, end))
            a = self.detach().numpy()
            return torch.tensor(np.take(a, np.arange(start, end), axis=dim))

        lib.impl("slice.Tensor", kernel, "CPU")
        a, b = _leaves([(2, 3), (2, 2)], torch.float32)
        torch.cat([a, b], 1).sum().backward()
    finally:
        lib._destroy()
    assert (0, 3) in seen and (3, 5) in seen
    assert np.array_equal(b.grad.numpy(), np.ones((2, 2), np.float32))


# ---- channel_shuffle ---------------------------------------------------------------------------
def _shuffle_ref(a, groups):
    n, c = a.shape[:2]
    return a.reshape((n, groups, c // groups) + a.shape[2:]).swapaxes(1, 2).reshape(a.shape)


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.float64,
        torch.float16,
        torch.bfloat16,
        torch.int64,
        torch.bool,
        torch.complex64,
    ],
)
@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_channel_shuffle_values_and_copy(dtype, groups):
    x = (torch.arange(2 * 6 * 4).view(2, 6, 4) % 5).to(dtype)
    y = F.channel_shuffle(x, groups)
    assert y.dtype is dtype and y.is_contiguous() and y._base is None
    assert y.data_ptr() != x.data_ptr()  # PyTorch's CPU kernel copies for groups 1 and C too
    as_np = (lambda t: t.numpy()) if dtype.is_complex else (lambda t: t.to(torch.float64).numpy())
    assert np.array_equal(as_np(y), _shuffle_ref(as_np(x), groups))
    xt = torch.randn(2, 4, 6).transpose(1, 2)  # non-contiguous, C = 6
    assert np.array_equal(F.channel_shuffle(xt, groups).numpy(), _shuffle_ref(xt.numpy(), groups))


def test_channel_shuffle_records_one_node():
    x = torch.randn(2, 6, 3, dtype=torch.float64, requires_grad=True)
    y = F.channel_shuffle(x, 2)
    assert type(y.grad_fn).__name__ == "ChannelShuffleBackward0"
    assert y.grad_fn.next_functions[0][0].variable is x
    w = torch.randn(2, 6, 3, dtype=torch.float64)
    y.backward(w)
    ref = np.zeros((2, 6, 3))
    idx = _shuffle_ref(np.arange(6 * 1.0).reshape(1, 6, 1), 2).ravel().astype(int)
    ref[:, idx] = w.numpy()
    assert np.array_equal(x.grad.numpy(), ref)
    with _Seen() as m:
        F.channel_shuffle(x, 3).sum().backward()
    assert m.names.count("aten.channel_shuffle.default") == 2
    for g in (1, 2, 3, 6):
        assert torch.autograd.gradcheck(lambda t, g=g: F.channel_shuffle(t, g), (x,))
        assert torch.autograd.gradgradcheck(lambda t, g=g: F.channel_shuffle(t, g), (x,))


def test_channel_shuffle_errors_and_empty():
    with pytest.raises(RuntimeError, match="expects input with > 2 dims"):
        F.channel_shuffle(torch.randn(2, 4, requires_grad=True), 2)
    with pytest.raises(RuntimeError, match="must be positive"):
        F.channel_shuffle(torch.randn(2, 4, 3, requires_grad=True), 0)
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(torch.randn(2, 4, 3, requires_grad=True), 3)
    e = torch.randn(0, 4, 3, requires_grad=True)
    y = F.channel_shuffle(e, 2)
    assert y.shape == (0, 4, 3)
    y.sum().backward()
    assert e.grad.shape == (0, 4, 3)


def test_native_channel_shuffle_stays_the_decomposition():
    x = torch.randn(2, 6, 3, requires_grad=True)
    y = torch.native_channel_shuffle(x, 2)
    assert type(y.grad_fn).__name__ != "ChannelShuffleBackward0"
    assert np.array_equal(y.detach().numpy(), F.channel_shuffle(x, 2).detach().numpy())


def test_column_stack_views_its_vectors():
    base = torch.randn(6, dtype=torch.float64, requires_grad=True)
    v = base[::2]  # a non-contiguous 1-D input
    s = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)  # 0-d: one row
    m = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    with _Seen() as seen:
        y = torch.column_stack([v, m])
    assert "aten.view.default" in seen.names and "aten.cat.default" in seen.names
    assert np.array_equal(
        y.detach().numpy(), np.column_stack([v.detach().numpy(), m.detach().numpy()])
    )
    w = torch.arange(9.0, dtype=torch.float64).view(3, 3)
    y.backward(w)
    ref = np.zeros(6)
    ref[::2] = w[:, 0].numpy()
    assert np.array_equal(base.grad.numpy(), ref)
    z = torch.column_stack([s, torch.ones(1, 2, dtype=torch.float64)])
    assert z.shape == (1, 3) and z[0, 0].item() == 2.0
    assert torch.autograd.gradcheck(
        lambda p, q: torch.column_stack([p, q]), (v.detach().requires_grad_(), m)
    )


def test_channel_shuffle_under_vmap_folds_the_batch_into_n():
    import warnings

    from numtorch.func import grad, vmap

    xb = torch.randn(4, 2, 6, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no per-sample fallback's performance warning
        r = vmap(lambda t: F.channel_shuffle(t, 2))(xb)
        r1 = vmap(lambda t: F.channel_shuffle(t, 3), in_dims=1)(xb.transpose(0, 1))
        w = torch.arange(36.0).view(2, 6, 3)
        g = vmap(grad(lambda t: (F.channel_shuffle(t, 2) * w).sum()))(xb)
    for t, a, b, c in zip(xb, r, r1, g, strict=True):
        assert np.array_equal(a.numpy(), _shuffle_ref(t.numpy(), 2))
        assert np.array_equal(b.numpy(), _shuffle_ref(t.numpy(), 3))
        assert np.array_equal(c.numpy(), _shuffle_ref(w.numpy(), 3))  # the inverse shuffle of w
