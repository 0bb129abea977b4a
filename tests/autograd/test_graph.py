"""autograd.graph's public API: saved-tensor hooks, gradient edges, multi-grad hooks, flags."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import graph


def leaf(values):
    return numtorch.tensor(values, dtype=numtorch.float64, requires_grad=True)


def test_pack_hook_sees_every_saved_tensor_of_builtin_ops():
    x = leaf([0.5, 1.0, 2.0])
    seen = []

    def pack(t):
        seen.append((t.grad_fn is None, numtorch.is_grad_enabled()))
        return t.detach().clone()

    with graph.saved_tensors_hooks(pack, lambda t: t):
        z = x.sin().exp()  # sin saves x (a leaf), exp saves its result (has a grad_fn)
    assert seen == [(True, False), (False, False)]
    z.sum().backward()
    v = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.sin(v)) * np.cos(v))


def test_no_hooks_outside_the_context_and_gate_cleared():
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    assert not numtorch.is_anomaly_enabled()
    from numtorch._state import STATE

    assert STATE.anomaly == 0


def test_unpack_hook_runs_in_backward_and_its_values_are_used():
    x = leaf([1.0, 2.0])
    calls = []

    def unpack(t):
        calls.append(1)
        return t * 2  # a different saved value changes the gradient: proves it is used

    with graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
        y = x * x
    y.backward(numtorch.ones(2, dtype=numtorch.float64))
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])  # (2x) + (2x), not the true 2x


def test_hooks_skip_version_check_because_they_own_the_data():
    x = leaf([1.0, 2.0])
    with graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        a = x * 1
        y = (a * a).sum()
    with numtorch.no_grad():
        a.add_(1)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_unpack_hook_must_return_a_tensor():
    x = leaf([1.0])
    with graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.sin()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        y.backward()


def test_backward_twice_through_packed_tensors_raises():
    x = leaf([1.0])
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.sin().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_double_backward_through_packed_tensors():
    x = leaf([1.0, 2.0])
    with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = (x * x * x).sum()
    (g,) = numtorch.autograd.grad(y, x, create_graph=True)
    (g2,) = numtorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), [6.0, 12.0])


def test_custom_function_save_for_backward_is_packed():
    packed = []

    class Square(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = leaf([3.0])
    with graph.saved_tensors_hooks(lambda t: packed.append(t) or t.detach(), lambda t: t):
        y = Square.apply(x)
    assert len(packed) == 1
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0])


def test_innermost_hooks_win():
    outer, inner = [], []
    x = leaf([1.0])
    with graph.saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with graph.saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            x.sin()
    assert (outer, inner) == ([], [1])


def test_disable_saved_tensors_hooks_refuses_new_hooks_with_the_message():
    with graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with graph.save_on_cpu():
                pass
    with graph.save_on_cpu():
        with pytest.raises(RuntimeError, match="already"):
            with graph.disable_saved_tensors_hooks("already"):
                pass


def test_save_on_cpu_gives_the_same_gradient():
    x = leaf([0.1, 0.2])
    with graph.save_on_cpu(pin_memory=True):
        y = (x.exp() * x).sum()
    y.backward()
    v = np.array([0.1, 0.2])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(v) * (1 + v))


def test_allow_mutation_on_saved_tensors_keeps_saved_values_and_refuses_nesting():
    x = leaf([1.0, 2.0])
    with graph.allow_mutation_on_saved_tensors():
        a = x * 1
        y = (a * a).sum()
        with numtorch.no_grad():
            a.mul_(10)
        y.backward()
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with graph.allow_mutation_on_saved_tensors():
                pass
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_gradient_edge_works_as_grad_input():
    x = leaf([1.0, 2.0])
    y = x * 2
    e = graph.get_gradient_edge(y)
    assert isinstance(e, graph.GradientEdge) and e.output_nr == 0 and e.node is y.grad_fn
    (g,) = numtorch.autograd.grad((y * 3).sum(), e)
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])
    assert graph.get_gradient_edge(x).node.name() == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="does not require gradients"):
        graph.get_gradient_edge(numtorch.ones(2))


def test_increment_version_makes_saved_tensor_stale():
    x = leaf([1.0])
    y = x.sin()
    v = x._version
    graph.increment_version(x)
    assert x._version == v + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    graph.increment_version([x, x])
    assert x._version == v + 3


def test_multi_grad_hook_all_mode_reports_which_grads_were_computed():
    a, b = leaf([1.0]), leaf([2.0])
    c, d = a * b, a * b
    calls = []
    h = graph.register_multi_grad_hook((a, b, c, d), lambda gs: calls.append([g is not None for g in gs]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    assert calls == [[True, True, True, False], [True, False, True, False]]
    h.remove()
    c.sum().backward()
    assert len(calls) == 2


def test_multi_grad_hook_any_mode_fires_once_per_backward():
    a, b = leaf([1.0]), leaf([2.0])
    got = []
    graph.register_multi_grad_hook((a, b), lambda g: got.append(g.item()), mode="any")
    (a * 3 + b * 5).sum().backward()
    assert len(got) == 1 and got[0] in (3.0, 5.0)
    with pytest.raises(ValueError, match="Expects mode to be one of"):
        graph.register_multi_grad_hook((a,), print, mode="some")


def test_stream_flags_and_budget():
    graph.set_warn_on_accumulate_grad_stream_mismatch(False)
    graph.set_override_stale_capture_stream(True)
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        graph.region_activation_memory_budget(1.5)
    with pytest.raises(TypeError, match="expects a float"):
        graph.region_activation_memory_budget("x")
    with pytest.raises(RuntimeError, match="inside a torch.compile region"):
        graph.region_activation_memory_budget(0.5)


def test_variable_is_an_alias_constructor_and_isinstance_holds_for_tensors():
    from numtorch.autograd import Variable

    base = numtorch.ones(2) * 2
    v = Variable(base, requires_grad=True)
    assert v.requires_grad and v.is_leaf and isinstance(base, Variable)
    assert Variable().shape == (0,)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        Variable(3)
    with pytest.raises(RuntimeError, match="deprecated"):
        numtorch.autograd.variable(1)


def test_autograd_mode_flags():
    ag = numtorch.autograd
    assert ag.is_multithreading_enabled() and not ag.is_view_replay_enabled()
    with ag.set_multithreading_enabled(False):
        assert not ag.is_multithreading_enabled()
    assert ag.is_multithreading_enabled()
    ag.set_multithreading_enabled(False)
    assert not ag.is_multithreading_enabled()
    ag.set_multithreading_enabled(True)
    with ag.enforce_grad_layout_policy(False):
        pass
