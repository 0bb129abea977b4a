"""The engine's cheaper paths (session 19, perf19h): Note [Accumulating into .grad in place],
the stealing of a first gradient with detach's kernel, Note [Only saved tensors are freed]'s
in-place release and run_backward's single-root prologue. Each path is checked taken (a spy)
and against the body: the same backward under a pass-through dispatch mode, which takes the
aten calls."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import _hooks

from ._spy import OpLog

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]


@pytest.fixture
def spy(monkeypatch):
    taken = []
    real = _hooks._add_in_place

    def counted(t, g):
        r = real(t, g)
        taken.append(r)
        return r

    monkeypatch.setattr(_hooks, "_add_in_place", counted)
    return taken


def _twice(x, g1, g2, mode=None):
    """Two backwards into x.grad; returns (.grad bytes, its version moves, the mode's calls)."""
    x.grad = None
    (x * 1.5).backward(g1)
    v0 = x.grad._version
    if mode is None:
        (x * 1.5).backward(g2)
    else:
        with mode:
            (x * 1.5).backward(g2)
    return x.grad._data.tobytes(), x.grad._version - v0


def _leaf(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.is_complex:
        a = a + 1j * rng.standard_normal(shape)
    return torch.tensor(a, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (5,)], ids=str)
def test_in_place_accumulation_is_taken_and_matches_add_(spy, dtype, shape):
    x = _leaf(shape, dtype).requires_grad_()
    g1, g2 = _leaf(shape, dtype, 1), _leaf(shape, dtype, 2)
    fast = _twice(x, g1, g2)
    assert spy == [True]
    log = OpLog()
    body = _twice(x, g1, g2, log)
    assert spy == [True, False] and "aten.add_.Tensor" in log.calls
    assert fast == body and fast[1] == 1
    want = (g1.numpy() * 1.5) + (g2.numpy() * 1.5)
    assert (
        x.grad.numpy().tobytes()
        == want.astype(dtype.np if hasattr(dtype, "np") else want.dtype).tobytes()
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_dtypes_take_add_(spy, dtype):
    x = torch.randn(2, 3).to(dtype).requires_grad_()
    g1, g2 = torch.randn(2, 3).to(dtype), torch.randn(2, 3).to(dtype)
    fast = _twice(x, g1, g2)
    assert spy == [False]
    assert fast == _twice(x, g1, g2, OpLog())


def test_strided_or_broadcast_grad_takes_add_(spy):
    x = torch.randn(2, 3, requires_grad=True)
    g = torch.randn(2, 3)
    x.grad = torch.randn(3, 2).t()  # a transposed .grad: add_ writes through its strides
    before = x.grad.clone()
    x.backward(g)
    assert spy == [False]
    np.testing.assert_array_equal(x.grad.numpy(), before.numpy() + g.numpy())
    assert x.grad.stride() == (1, 2)


def test_grad_sharing_memory_with_the_gradient_takes_add_(spy):
    x = torch.randn(4, requires_grad=True)
    base = torch.randn(6)
    x.grad = base[:4]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x.backward(base[2:])  # overlaps .grad in part: add_'s error
    assert spy == [False]


def test_same_tensor_as_grad_and_gradient(spy):
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.tensor([1.0, 2.0, 3.0])
    x.backward(x.grad)  # the hook-free engine hands the same tensor: a + a in place
    assert spy == [True]
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_large_grad_takes_add_(spy):
    from numtorch.kernels import PARALLEL_THRESHOLD

    x = torch.zeros(PARALLEL_THRESHOLD, requires_grad=True)
    x.grad = torch.ones(PARALLEL_THRESHOLD)
    x.backward(torch.ones(PARALLEL_THRESHOLD))
    assert spy == [False] and float(x.grad.sum()) == 2 * PARALLEL_THRESHOLD


def test_a_library_kernel_over_add_is_called(spy):
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(a, b, alpha=1):
        seen.append("add_")
        a._data[...] = 7.0
        return a

    lib.impl("add_.Tensor", kernel, "CPU")
    try:
        x.backward(torch.ones(3))
    finally:
        lib._destroy()
    assert seen == ["add_"] and spy == [False]
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 7.0, 7.0])


def test_autocast_region_takes_add_(spy):
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    g = torch.randn(3)
    with torch.autocast("cpu"):
        x.backward(g)
    assert spy == [False]
    np.testing.assert_array_equal(x.grad.numpy(), np.float32(1) + g.numpy())


def test_hooks_still_run_around_in_place_accumulation(spy):
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    order = []
    x.register_hook(lambda g: order.append("pre") or g * 2)
    x.register_post_accumulate_grad_hook(lambda t: order.append(("post", t.grad.tolist())))
    x.backward(torch.ones(3))
    assert spy == [True] and order == ["pre", ("post", [3.0, 3.0, 3.0])]


def test_inference_grad_is_not_written_by_the_fast_path(spy):
    x = torch.randn(3, requires_grad=True)
    with torch.inference_mode():
        x.grad = torch.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        x.backward(torch.ones(3))
    assert spy == [False]


def test_stolen_first_gradient_is_detachs_result():
    x = torch.randn(2, 3, requires_grad=True)
    (x * 2).sum().backward()
    fast = x.grad
    assert not fast.requires_grad and fast.grad_fn is None
    x.grad = None
    log = OpLog()
    with log:
        (x * 2).sum().backward()
    assert "aten.detach.default" in log.calls  # a mode still sees the steal's detach
    assert fast.numpy().tobytes() == x.grad.numpy().tobytes()
    assert fast._base is not None and x.grad._base is not None  # detach's view, both ways


def test_release_frees_tensors_and_keeps_sizes():
    from numtorch.autograd.graph import GONE

    x = torch.randn(2, 3, requires_grad=True)
    s = (x * x).sum()
    mul = s.grad_fn.next_functions[0][0]
    saved = s.grad_fn._saved
    s.backward()
    assert s.grad_fn._saved == {"self_sym_sizes": (2, 3)} and s.grad_fn._saved is saved
    assert mul._saved == {"self": GONE, "other": GONE}
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        s.backward()


def test_release_frees_saved_tensor_lists():
    from numtorch.autograd.graph import GONE

    a = torch.randn(2, requires_grad=True)
    c = torch.index_put(torch.zeros(3), (torch.tensor([0, 1]),), a * 1)
    node = c.grad_fn
    assert node._saved["indices"][0].__class__.__name__ == "SavedTensor"
    c.sum().backward()
    assert node._saved == {"indices": GONE, "accumulate": False}  # the list goes, the flag stays
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        c.sum().backward()


def test_single_root_of_a_multi_output_node():
    x = torch.randn(3, 2, requires_grad=True)
    parts = torch.unbind(x)
    parts[1].backward(torch.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [1, 2], [0, 0]])


def test_single_leaf_root():
    x = torch.randn(3, requires_grad=True)
    x.backward(torch.ones(3))
    x.backward(torch.ones(3))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_roots_together_sum_into_one_buffer():
    x = torch.randn(3, requires_grad=True)
    a, b = torch.split(x * 2, [1, 2])
    torch.autograd.backward([a, b, a], [torch.ones(1), torch.ones(2), torch.ones(1)])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 2.0, 2.0])


SUM_TO = [
    ((3, 2), (2,)),
    ((4, 3, 2), (2,)),
    ((4, 3, 2), (3, 2)),
    ((3, 2), ()),
    ((5,), ()),
    ((4, 3, 2), (3, 1)),
    ((4, 3, 2), (1, 2)),
    ((3, 2), (1, 2)),
    ((2, 1000, 3), (3,)),
    ((1,), (1,)),
    ((2, 3), (2, 3)),
]  # fmt: skip  (the same shape: expand's gradient to itself)


@pytest.mark.parametrize("have,shape", SUM_TO, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16,
                                   torch.complex64], ids=str)  # fmt: skip
def test_sum_to_leading_dims_matches_keepdim_and_reshape(have, shape, dtype):
    from numtorch.autograd._backward import _sum_to

    g = _leaf(have, dtype, 3) * 100  # magnitudes where the order of additions shows
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1
    )
    want = g.sum(dims, keepdim=True) if dims else g
    want = want.reshape(shape) if lead else want
    got = _sum_to(g, shape)
    assert got.shape == want.shape == shape and got.dtype == want.dtype
    assert got._data.tobytes() == want._data.tobytes()
    log = OpLog(short=True)
    with log:
        moded = _sum_to(g, shape)
    assert moded._data.tobytes() == want._data.tobytes()
    if lead and len(dims) == lead:  # a mode sees at::sum_to's own calls, keepdim and reshape
        assert log.calls[0] == "sum.dim_IntList" and any(
            "reshape" in c or "view" in c for c in log.calls[1:]
        )


def test_bias_gradient_is_the_leading_sum():
    x, w = torch.randn(4, 3, dtype=torch.float64), torch.randn(2, 3, dtype=torch.float64)
    b = torch.randn(2, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.linear(x, w, b).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [4.0, 4.0])
    assert b.grad.shape == (2,)
    assert torch.autograd.gradcheck(lambda b: (x @ w.t() + b).sin(), (b.detach().requires_grad_(),))
