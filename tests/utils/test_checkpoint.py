"""numtorch.utils.checkpoint: recomputation gives the plain run's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.utils.checkpoint import checkpoint, checkpoint_sequential


def _net():
    numtorch.manual_seed(0)
    return numtorch.nn.Sequential(numtorch.nn.Linear(4, 8), numtorch.nn.Dropout(0.5), numtorch.nn.Tanh(),
                                  numtorch.nn.Linear(8, 2)).double()  # fmt: skip


def _grads(net, x):
    return [p.grad.clone() for p in net.parameters()] + [x.grad.clone()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_values_and_gradients_match_the_plain_run_with_dropout(use_reentrant):
    net = _net()
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    numtorch.manual_seed(1)
    ref = net(x).sum()
    ref.backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    numtorch.manual_seed(1)
    out = checkpoint(net, x, use_reentrant=use_reentrant).sum()
    out.backward()
    assert abs(out.item() - ref.item()) < 1e-12
    for a, b in zip(_grads(net, x), want):
        assert (a - b).abs().max().item() < 1e-12


def test_non_reentrant_reaches_parameters_without_input_grad():
    net = _net()
    checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64), use_reentrant=False).sum().backward()
    assert net[0].weight.grad is not None


def test_reentrant_warns_without_grad_inputs_and_without_the_flag():
    net = _net()
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64), use_reentrant=True)
    assert not y.requires_grad
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True))


def test_checkpoint_sequential_matches():
    net = _net().eval()
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    ref = net(x)
    out = checkpoint_sequential(net, 2, x, use_reentrant=False)
    assert (out - ref).abs().max().item() < 1e-12
    out.sum().backward()
    assert x.grad is not None


def _f(a):
    return (a @ a).sin().exp()


def _x():
    numtorch.manual_seed(3)
    return numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)


def test_non_reentrant_supports_autograd_grad_double_backward_and_retain_graph():
    x = _x()
    (ref,) = numtorch.autograd.grad(_f(x).sum(), x, create_graph=True)
    (ref2,) = numtorch.autograd.grad(ref.sum(), x)
    (g,) = numtorch.autograd.grad(checkpoint(_f, x, use_reentrant=False).sum(), x, create_graph=True)
    (g2,) = numtorch.autograd.grad(g.sum(), x)
    assert numtorch.allclose(g, ref) and numtorch.allclose(g2, ref2)
    y = checkpoint(_f, x, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert numtorch.allclose(x.grad, 2 * ref)


def test_nested_non_reentrant_checkpoints():
    x = _x()

    def outer(a):
        return checkpoint(_f, a.cos(), use_reentrant=False).tanh()

    (g,) = numtorch.autograd.grad(checkpoint(outer, x, use_reentrant=False).sum(), x)
    (ref,) = numtorch.autograd.grad(_f(x.cos()).tanh().sum(), x)
    assert numtorch.allclose(g, ref)


def test_non_reentrant_recomputes_in_backward_and_stops_early():
    x = _x()
    runs = []

    def f(a):
        runs.append("start")
        h = a.sin()
        runs.append("after sin")
        return h, h.exp().cos()

    h, rest = checkpoint(f, x, use_reentrant=False)
    del rest  # the exp/cos nodes go: only sin's saved input is still needed
    h.sum().backward()
    assert runs == ["start", "after sin", "start"]  # stopped once sin had saved x again
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()))


def test_reentrant_refuses_autograd_grad():
    x = _x()
    y = checkpoint(_f, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="use_reentrant=True, torch.utils.checkpoint is incompatible with .grad"):
        numtorch.autograd.grad(y.sum(), x)


def test_determinism_check_reports_changed_metadata_and_debug_lists_ops():
    from numtorch.utils.checkpoint import CheckpointError, set_checkpoint_debug_enabled

    x = numtorch.randn(3, 2, dtype=numtorch.float64, requires_grad=True)
    calls = [0]

    def g(a):
        calls[0] += 1
        return a.sin() if calls[0] % 2 else a.t().sin()

    with pytest.raises(CheckpointError, match="different metadata than during the forward pass"):
        checkpoint(g, x, use_reentrant=False).sum().backward()
    with set_checkpoint_debug_enabled(True):
        y = checkpoint(g, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"(?s)original forward:\n.*aten.sin.default.*recomputation:\n.*aten.t"):
        y.sum().backward()
    calls[0] = 0
    checkpoint(g, x, use_reentrant=False, determinism_check="none")  # no check: no error at forward
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(g, x, use_reentrant=False, determinism_check="strict")


def test_more_tensors_saved_in_recomputation_raises_without_early_stop():
    from numtorch.utils.checkpoint import CheckpointError, set_checkpoint_early_stop

    x = _x()
    calls = [0]

    def g(a):
        calls[0] += 1
        return a.sin() if calls[0] == 1 else a.sin().exp()

    with set_checkpoint_early_stop(False):
        y = checkpoint(g, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="trying to save more tensors during recomputation"):
        y.sum().backward()


def test_selective_checkpoint_reuses_saved_ops_and_gives_the_same_gradient():
    import functools

    from numtorch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts

    aten = numtorch.ops.aten
    x = _x()
    seen = []

    def policy(ctx, op, *args, **kwargs):
        seen.append((op, ctx.is_recompute, ctx.op_output is not None))
        return CheckpointPolicy.MUST_SAVE if op is aten.mm.default else CheckpointPolicy.PREFER_RECOMPUTE

    mm_runs = []
    orig = numtorch.Tensor.__matmul__

    def f(a):
        mm_runs.append(1)
        return orig(a, a).sin().exp()

    y = checkpoint(f, x, use_reentrant=False, context_fn=functools.partial(create_selective_checkpoint_contexts, policy))
    assert (aten.mm.default, False, True) in seen
    (g,) = numtorch.autograd.grad(y.sum(), x)
    (ref,) = numtorch.autograd.grad(_f(x).sum(), x)
    assert numtorch.allclose(g, ref)
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload"):
        create_selective_checkpoint_contexts([aten.mm])
    with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops"):
        create_selective_checkpoint_contexts(3)


def test_selective_checkpoint_cache_is_used_once_and_guards_mutation():
    import functools

    from numtorch.utils.checkpoint import create_selective_checkpoint_contexts

    aten = numtorch.ops.aten
    x = _x()
    cf = functools.partial(create_selective_checkpoint_contexts, [aten.sin.default])
    y = checkpoint(lambda a: a.sin().exp(), x, use_reentrant=False, context_fn=cf).sum()
    y.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="Trying to backward an extra time"):
        y.backward()


def test_device_states_and_default_device_type_on_cpu():
    from numtorch.utils.checkpoint import DefaultDeviceType, GraphExecGroup, get_device_states, set_device_states

    assert get_device_states(numtorch.ones(1), [numtorch.ones(2)]) == ([], [])
    set_device_states([], [])
    assert DefaultDeviceType.get_device_type() == "cpu"
    with GraphExecGroup():
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            with GraphExecGroup():
                pass


def test_checkpoint_sequential_rejects_unknown_keywords():
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(_net(), 2, numtorch.ones(1, 4), use_reentrant=False, foo=1)
