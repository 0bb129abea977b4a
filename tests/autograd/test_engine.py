"""The backward engine: accumulation, broadcasting, graph lifetime, hooks and PyTorch's errors."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import numtorch
from numtorch.autograd import grad


def leaf(values, dtype=numtorch.float64):
    return numtorch.tensor(values, dtype=dtype, requires_grad=True)


def test_chain_rule_values_match_hand_derivatives():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).exp() * 2.0
    y.backward(numtorch.ones(3, dtype=numtorch.float64))
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), 4 * v * np.exp(v * v))


def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 3.0).sum().backward()
    (x * 4.0).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]


def test_broadcast_gradient_is_reduced_to_the_input_shape():
    x = leaf([[1.0], [2.0]])  # (2, 1)
    b = leaf([10.0, 20.0, 30.0])  # (3,)
    (x * b).sum().backward()
    assert x.grad.shape == (2, 1) and x.grad.tolist() == [[60.0], [60.0]]
    assert b.grad.tolist() == [3.0, 3.0, 3.0]


def test_grad_fn_names_and_next_functions():
    x = leaf([1.0])
    y = x * 2 + x
    assert y.grad_fn.name() == "AddBackward0"
    assert repr(y.grad_fn).startswith("<AddBackward0 object at 0x")
    names = [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions]
    assert names == ["MulBackward0", "AccumulateGrad"]
    assert y.grad_fn.next_functions[1][0].variable is x
    assert not y.is_leaf and x.is_leaf


def test_node_names_capitalise_a_letter_after_a_digit_as_torchgen():
    # PyTorch 2.13's names: Log1PBackward0, MaxPool2DWithIndicesBackward0, FftR2CBackward0
    x = leaf([0.5, 1.5])
    img = numtorch.ones(1, 1, 4, 4, requires_grad=True)
    F = numtorch.nn.functional
    got = [numtorch.log1p(x), numtorch.expm1(x), numtorch.atan2(x, x), numtorch.fft.rfft(x),
           F.max_pool2d(img, 2), F.pad(img, (1, 1, 1, 1), mode="reflect")]  # fmt: skip
    assert [t.grad_fn.name() for t in got] == [
        "Log1PBackward0", "Expm1Backward0", "Atan2Backward0", "FftR2CBackward0",
        "MaxPool2DWithIndicesBackward0", "ReflectionPad2DBackward0"]  # fmt: skip


def test_non_scalar_backward_needs_a_gradient():
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (leaf([1.0, 2.0]) * 2).backward()


def test_second_backward_through_freed_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.add_(1)


def test_saved_tensor_modified_inplace_is_detected_by_version_counter():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * y  # saves y
    y.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified by an inplace operation"):
        z.sum().backward()


def test_graph_is_freed_after_backward():
    x = leaf([1.0, 2.0])
    y = x * 2
    node = weakref.ref(y.grad_fn)
    (y * y).sum().backward()
    del y
    gc.collect()
    assert node() is None


def test_autograd_grad_returns_without_accumulating():
    x = leaf([2.0])
    (g,) = grad((x * x * x).sum(), x)
    assert g.tolist() == [12.0] and x.grad is None


def test_autograd_grad_unused_input_errors_unless_allowed():
    x, y = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad((x * 2).sum(), (x, y))
    gx, gy = grad((x * 2).sum(), (x, y), allow_unused=True)
    assert gy is None and gx.tolist() == [2.0]
    gx, gy = grad((x * 2).sum(), (x, y), materialize_grads=True)
    assert gy.tolist() == [0.0]


def test_create_graph_gives_second_derivatives():
    x = leaf([1.0, 2.0])
    (g,) = grad((x * x * x).sum(), x, create_graph=True)
    (gg,) = grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0]


def test_tensor_hook_can_replace_the_gradient():
    x = leaf([1.0, 1.0])
    y = x * 3
    y.register_hook(lambda g: g * 10)
    h = x.register_hook(lambda g: g + 1)
    y.backward(numtorch.ones(2, dtype=numtorch.float64))
    assert x.grad.tolist() == [31.0, 31.0]
    h.remove()


def test_retain_grad_keeps_non_leaf_gradient():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    (y * y).backward(numtorch.ones(2, dtype=numtorch.float64))
    assert y.grad.tolist() == [4.0, 8.0]


def test_post_accumulate_grad_hook_sees_the_accumulated_grad():
    x = leaf([1.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 5).backward(numtorch.ones(1, dtype=numtorch.float64))
    assert seen == [[5.0]]


def test_node_hooks_and_prehooks_run():
    x = leaf([1.0])
    y = x * 2
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.backward(numtorch.ones(1, dtype=numtorch.float64))
    assert calls == ["pre", "post"]


def test_no_grad_and_set_grad_enabled_stop_recording():
    x = leaf([1.0])
    with numtorch.no_grad():
        assert not (x * 2).requires_grad
    numtorch.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        numtorch.set_grad_enabled(True)

    @numtorch.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    with numtorch.no_grad(), numtorch.enable_grad():
        assert (x * 2).requires_grad
    with numtorch.inference_mode():
        assert not (x * 2).requires_grad and numtorch.is_inference_mode_enabled()
    assert numtorch.is_grad_enabled()


def test_integer_results_do_not_require_grad_and_detach_cuts_history():
    x = leaf([1.0, 2.0])
    assert not (x > 1).requires_grad and not x.argmax().requires_grad
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert x.tolist() == [5.0, 2.0]  # detach shares storage, as in PyTorch
    y = x * 2
    y.detach_()
    assert y.is_leaf and not y.requires_grad


def test_out_variant_refuses_tensors_that_require_grad():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic differentiation"):
        numtorch.add(x, x, out=numtorch.empty(1, dtype=numtorch.float64))


def test_detect_anomaly_names_the_forward_op_of_a_nan_gradient():
    class NanBackward(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = leaf([1.0])
    with numtorch.autograd.detect_anomaly():
        y = NanBackward.apply(x)
        with pytest.raises(RuntimeError, match="Function 'NanBackwardBackward' returned nan values in its 0th output"):
            y.backward(numtorch.ones(1, dtype=numtorch.float64))


def test_two_outputs_of_one_node_as_roots():
    x = leaf([1.0, 2.0, 4.0])
    v, m = numtorch.var_mean(x)
    (gx,) = grad([v, m], [x], [numtorch.tensor(1.0, dtype=numtorch.float64)] * 2)
    xs = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(gx.numpy(), 2 * (xs - xs.mean()) / 2 + 1 / 3)
    x2 = leaf([1.0, 2.0, 4.0])
    v2, m2 = numtorch.var_mean(x2)
    numtorch.autograd.backward([v2, m2])
    np.testing.assert_allclose(x2.grad.numpy(), gx.numpy())


def test_leaf_gradients_never_alias_the_users_gradient_or_each_other():
    # Note [Stealing the incoming gradient]: AddBackward passes the same tensor to both inputs
    z, w = leaf([1.0, 1.0]), leaf([1.0, 1.0])
    g = numtorch.ones(2, dtype=numtorch.float64)
    (z + w).backward(g)
    assert not np.shares_memory(z.grad.numpy(), w.grad.numpy())
    assert not np.shares_memory(z.grad.numpy(), g.numpy())
    (z + w).backward(g)  # accumulates in place: neither g nor the other leaf's grad may change
    assert g.tolist() == [1.0, 1.0] and z.grad.tolist() == [2.0, 2.0] and w.grad.tolist() == [2.0, 2.0]
    x = leaf([1.0, 2.0])
    x.backward(g)  # the root gradient itself reaches the leaf: copied
    x.backward(g)
    assert x.grad.tolist() == [2.0, 2.0] and g.tolist() == [1.0, 1.0]
    y = leaf([1.0, 2.0])
    keep = []
    y.register_hook(lambda t: keep.append(t))
    (y * 2).sum().backward()
    (y * 2).sum().backward()
    assert keep[0].tolist() == [2.0, 2.0] and y.grad.tolist() == [4.0, 4.0]


def test_linear_weight_gradient_is_contiguous_and_correct():
    x = numtorch.randn(4, 3, dtype=numtorch.float64)
    lin = numtorch.nn.Linear(3, 5).double()
    lin(x).sum().backward()
    g = lin.weight.grad
    assert g.is_contiguous() and g.shape == (5, 3)
    np.testing.assert_allclose(g.numpy(), np.ones((5, 4)) @ x.numpy())
    np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(5, 4.0))


def test_graph_keeps_a_dropped_leaf_alive_so_its_hooks_run():
    seen = []

    def make():
        w = numtorch.ones(3, requires_grad=True)
        w.register_hook(lambda g: seen.append(g.clone()))
        return (w * 2).sum()

    make().backward()
    assert len(seen) == 1 and seen[0].tolist() == [2.0, 2.0, 2.0]


def test_leaf_is_freed_with_its_graph():
    x = numtorch.ones(3, requires_grad=True)
    ref = weakref.ref(x)
    y = (x * 2).sum()
    del x, y
    assert ref() is None


def test_inplace_through_a_view_of_a_leaf_requiring_grad_raises():
    w = numtorch.zeros(4, requires_grad=True)
    msg = "a view of a leaf Variable that requires grad is being used in an in-place operation"
    for f in (lambda: w[1:].add_(1.0), lambda: w.view(2, 2).mul_(2.0), lambda: w[0].fill_(1.0)):
        with pytest.raises(RuntimeError, match=msg):
            f()
    assert w.is_leaf and w.grad_fn is None and w.tolist() == [0.0] * 4
    with numtorch.no_grad():
        w[1:].add_(1.0)
    y = w * 1.0  # a view of a non-leaf may be written: CopySlices
    y[1:].mul_(3.0)
    y.sum().backward()
    assert y.grad_fn.name() == "CopySlices" and w.grad.tolist() == [1.0, 3.0, 3.0, 3.0]


def test_expanded_gradient_accumulates_in_place_like_a_contiguous_one():
    # sum()'s gradient is one value expanded (every stride 0): .grad.add_ takes it as a scalar
    x = numtorch.ones(4, 3, requires_grad=True)
    for k in range(1, 4):
        x.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full((4, 3), k, np.float32))
    a = numtorch.ones(4, 3)
    a.add_(numtorch.ones(4, 3))  # the same-dtype in-place signature, learned
    v = a._version
    a.add_(numtorch.tensor(2.5).expand(4, 3))
    assert a._version == v + 1
    np.testing.assert_array_equal(a.numpy(), np.full((4, 3), 4.5, np.float32))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        numtorch.ones(4, 3, dtype=numtorch.int64).add_(numtorch.tensor(2.5).expand(4, 3))


def test_generated_node_apply_keeps_freed_and_modified_errors():
    # Note [Generated node apply]: the nodes _record makes run straight-line formula code
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * w).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    y = x * w
    with numtorch.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation"):
        y.sum().backward()
    # one input needing no gradient: only the other formula runs
    c = numtorch.tensor([5.0, 6.0], dtype=numtorch.float64)
    (gx,) = grad((x * c).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [5.0, 6.0])


def test_generated_apply_skips_zero_filling_outputs_its_formulas_never_read(monkeypatch):
    # the indices of topk/sort/max.dim get no gradient; the formulas read only ``grad``, so the
    # generated body runs (no _apply, no zeros for the indices), with the same values
    from numtorch.autograd._engine import OpNode

    calls = []
    fill = OpNode._apply
    monkeypatch.setattr(OpNode, "_apply", lambda node, grads: calls.append(node.name()) or fill(node, grads))
    x = leaf([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    for fn, want in [(lambda t: t.topk(2, 1)[0], [[1, 0, 1], [0, 1, 1]]),
                     (lambda t: t.sort(1)[0] * numtorch.arange(3.0, dtype=numtorch.float64), [[2, 0, 1], [0, 2, 1]]),
                     (lambda t: t.max(0)[0], [[1, 0, 0], [0, 1, 1]])]:  # fmt: skip
        x.grad = None
        fn(x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)
    assert calls == []
    # a formula reading every output's gradient (var_mean's ``grads``) still gets zeros for the missing one
    y = leaf([1.0, 3.0])
    numtorch.var_mean(y)[1].backward()
    assert calls == ["VarMeanBackward0"]
    np.testing.assert_array_equal(y.grad.numpy(), [0.5, 0.5])


def test_a_plan_made_again_keeps_the_generated_apply_in_use():
    # record_output and a regenerated fast path make the op's recording plan again; its nodes
    # must still match what the node class's generated apply tests for (Note [Generated node apply])
    from numtorch.autograd._engine import _plan
    from numtorch.ops._registry import OPS

    x = leaf([1.0, 2.0, 3.0])
    op = OPS["aten::mul.Tensor"]
    _plan(op)
    node = (x * x).grad_fn
    _plan(op)
    for n in (node, (x * x).grad_fn):
        assert n._slots is type(n).apply.__globals__["_SLOTS"]
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_tensor_backward_fast_path_keeps_backwards_checks():
    x = leaf([1.0, 2.0])
    (x * 2).backward([numtorch.ones(2, dtype=numtorch.float64)])  # a list of gradients: torch's path
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        numtorch.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape: grad_output\\[0\\] has a shape of"):
        (x * 2).backward(numtorch.ones(3, dtype=numtorch.float64))


def test_generated_recording_saves_sizes_as_the_shape_tuple():
    # recorder_lines saves x._data.shape (not Tensor.shape's Size, ~0.15 us more per op)
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    for y in (x.sum(), x.reshape(4), x.sum(), x.reshape(4)):  # first calls upgrade the fast path
        sizes = y.grad_fn._saved["self_sym_sizes"]
        assert sizes == (2, 2) and type(sizes) is tuple
    x.reshape(4).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 2)))
