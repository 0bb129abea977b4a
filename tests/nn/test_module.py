"""nn.Module: registration, traversal, state dicts, conversion, hooks and repr."""

from __future__ import annotations

import copy
import pickle
import re
from collections import OrderedDict

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.autograd import Function


class Scale(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.w = nn.Parameter(numtorch.ones(n))
        self.register_buffer("count", numtorch.zeros(1))

    def forward(self, x):
        return x * self.w


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Scale()
        self.b = Scale()
        self.register_buffer("tmp", numtorch.zeros(1), persistent=False)

    def forward(self, x):
        return self.b(self.a(x))


# ---- the note's Linear (docs/notes/extending.rst, "Extending torch.nn") ------------------------
class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(numtorch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(numtorch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f"input_features={self.input_features}, output_features={self.output_features}, bias={self.bias is not None}"


def test_note_linear_repr_and_registration():
    m = Linear(3, 2)
    assert repr(m) == "Linear(input_features=3, output_features=2, bias=True)"
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert float(m.weight.abs().max()) <= 0.1
    nb = Linear(3, 2, bias=False)
    assert repr(nb) == "Linear(input_features=3, output_features=2, bias=False)"
    assert nb.bias is None and list(nb.state_dict()) == ["weight"]
    assert repr(nn.Sequential(m, nb)) == (
        "Sequential(\n"
        "  (0): Linear(input_features=3, output_features=2, bias=True)\n"
        "  (1): Linear(input_features=3, output_features=2, bias=False)\n"
        ")"
    )


def test_note_linear_forward_backward():
    m = Linear(3, 2)
    x = numtorch.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3), requires_grad=True)
    y = m(x)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() @ w.T + b, rtol=1e-5)
    y.sum().backward()
    np.testing.assert_allclose(m.bias.grad.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(m.weight.grad.numpy(), np.tile(x.detach().numpy().sum(0), (2, 1)))
    np.testing.assert_allclose(x.grad.numpy(), np.tile(w.sum(0), (4, 1)), rtol=1e-6)


# ---- registration -------------------------------------------------------------------------
def test_setattr_registers_parameters_buffers_and_modules():
    net = Net()
    assert list(net._modules) == ["a", "b"]
    assert list(net.a._parameters) == ["w"] and list(net.a._buffers) == ["count"]
    assert "w" not in net.a.__dict__
    assert net.a.w is net.a._parameters["w"]
    net.a.w = None
    assert net.a._parameters["w"] is None and net.a.w is None


def test_assigning_a_tensor_to_a_parameter_slot_raises():
    m = Scale()
    with pytest.raises(TypeError) as e:
        m.w = numtorch.zeros(2)
    assert str(e.value) == (
        "cannot assign 'torch.FloatTensor' as parameter 'w' (torch.nn.Parameter or None expected)"
    )
    with pytest.raises(TypeError, match=re.escape("cannot assign 'int' as child module 'a'")):
        Net().a = 3
    with pytest.raises(
        TypeError, match=re.escape("cannot assign 'str' as buffer 'count' (torch.nn.Buffer")
    ):
        m.count = "x"


def test_assigning_before_init_raises():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(numtorch.ones(1))

    with pytest.raises(
        AttributeError, match=r"^cannot assign parameters before Module.__init__\(\) call$"
    ):
        Early()
    m = nn.Module.__new__(nn.Module)
    with pytest.raises(
        AttributeError, match=r"^cannot assign parameter before Module.__init__\(\) call$"
    ):
        m.register_parameter("w", None)
    with pytest.raises(
        AttributeError, match=r"^cannot assign buffer before Module.__init__\(\) call$"
    ):
        m.register_buffer("b", None)
    with pytest.raises(
        AttributeError, match=r"^cannot assign module before Module.__init__\(\) call$"
    ):
        m.sub = nn.Module()


def test_register_parameter_errors():
    m = nn.Module()
    m.x = 1
    cases = [
        (("a.b", None), KeyError, 'parameter name can\'t contain "."'),
        (("", None), KeyError, 'parameter name can\'t be empty string ""'),
        (("x", None), KeyError, "attribute 'x' already exists"),
        ((3, None), TypeError, "parameter name should be a string. Got int"),
        (
            ("t", numtorch.ones(1)),
            TypeError,
            "cannot assign 'torch.FloatTensor' object to parameter 't'",
        ),
    ]
    for args, exc, msg in cases:
        with pytest.raises(exc) as e:
            m.register_parameter(*args)
        assert e.value.args[0].startswith(msg)
    x = numtorch.ones(1, requires_grad=True)
    nonleaf = nn.Parameter(x * 2)
    nonleaf._grad_fn = (x * 2).grad_fn
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'p'"):
        m.register_parameter("p", nonleaf)


def test_register_buffer_and_add_module_errors():
    m = nn.Module()
    with pytest.raises(TypeError, match=re.escape("cannot assign 'list' object to buffer 'b'")):
        m.register_buffer("b", [1])
    with pytest.raises(KeyError) as e:
        m.register_buffer("b.c", None)
    assert e.value.args == ('buffer name can\'t contain "."',)
    with pytest.raises(TypeError, match=r"^int is not a Module subclass$"):
        m.add_module("c", 3)
    with pytest.raises(KeyError) as e:
        m.add_module("a.b", nn.Module())
    assert e.value.args == ('module name can\'t contain ".", got: a.b',)
    m.register_buffer("b", None)
    assert m.b is None and list(m.state_dict()) == []


def test_assigning_buffer_object_registers_with_persistence():
    m = nn.Module()
    m.keep = nn.Buffer(numtorch.ones(1))
    m.drop = nn.Buffer(numtorch.ones(1), persistent=False)
    assert list(m._buffers) == ["keep", "drop"]
    assert list(m.state_dict()) == ["keep"]
    m.drop = numtorch.zeros(2)  # reassignment keeps the buffer non-persistent
    assert list(m.state_dict()) == ["keep"] and m.drop.shape == (2,)


def test_reassigning_moves_between_kinds_and_delattr():
    m = Scale()
    m.count = nn.Parameter(numtorch.ones(1))
    assert "count" in m._parameters and "count" not in m._buffers
    del m.count
    assert not hasattr(m, "count")
    del m.w
    with pytest.raises(AttributeError, match="'Scale' object has no attribute 'w'"):
        _ = m.w


def test_missing_forward_raises():
    with pytest.raises(
        NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'
    ):
        nn.Module()(1)


def test_init_rejects_arguments():
    with pytest.raises(
        TypeError, match=re.escape("Module.__init__() takes 1 positional argument but 2 were given")
    ):
        nn.Module(1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        nn.Module(x=1)


# ---- traversal ----------------------------------------------------------------------------
def test_named_parameters_prefix_recurse_and_dedup():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["a.w", "b.w"]
    assert [n for n, _ in net.named_parameters(prefix="net")] == ["net.a.w", "net.b.w"]
    assert list(net.named_parameters(recurse=False)) == []
    net.b.w = net.a.w  # tied
    assert [n for n, _ in net.named_parameters()] == ["a.w"]
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == ["a.w", "b.w"]
    assert len(list(net.parameters())) == 1


def test_buffers_children_and_modules():
    net = Net()
    assert [n for n, _ in net.named_buffers()] == ["tmp", "a.count", "b.count"]
    assert [n for n, _ in net.named_children()] == ["a", "b"]
    assert [n for n, _ in net.named_modules()] == ["", "a", "b"]
    net.c = net.a
    assert [n for n, _ in net.named_modules()] == ["", "a", "b"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "a", "b", "c"]
    assert len(list(net.children())) == 2 and len(list(net.modules())) == 3


def test_get_submodule_parameter_buffer():
    net = nn.Sequential(Net())
    assert net.get_submodule("0.a") is net[0].a
    assert net.get_submodule("") is net
    assert net.get_parameter("0.b.w") is net[0].b.w
    assert net.get_buffer("0.a.count") is net[0].a.count
    with pytest.raises(AttributeError, match="^Net has no attribute `zz`$"):
        net.get_submodule("0.zz")
    with pytest.raises(AttributeError, match="^`w` is not an nn.Module$"):
        net.get_submodule("0.a.w")
    with pytest.raises(AttributeError, match="^`count` is not an nn.Parameter$"):
        net.get_parameter("0.a.count")
    with pytest.raises(AttributeError, match="^`w` is not a buffer$"):
        net.get_buffer("0.a.w")
    net.set_submodule("0.a", Scale(3))
    assert net[0].a.w.shape == (3,)
    with pytest.raises(AttributeError, match="^Net has no attribute `q`$"):
        net.set_submodule("0.q", Scale(), strict=True)


def test_dir_lists_registered_names():
    names = dir(Net())
    assert {"a", "b", "tmp", "forward", "training"} <= set(names)
    assert names == sorted(names)


# ---- state dict ------------------------------------------------------------------------------
def test_state_dict_keys_values_and_metadata():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["a.w", "a.count", "b.w", "b.count"]  # non-persistent "tmp" excluded
    assert sd["a.w"].requires_grad is False and type(sd["a.w"]) is numtorch.Tensor
    assert np.shares_memory(sd["a.w"].numpy(), net.a.w.detach().numpy())
    assert net.state_dict(keep_vars=True)["a.w"] is net.a.w
    assert list(net.state_dict(prefix="m.")) == ["m.a.w", "m.a.count", "m.b.w", "m.b.count"]
    assert sd._metadata == OrderedDict(
        [("", {"version": 1}), ("a", {"version": 1}), ("b", {"version": 1})]
    )


def test_load_state_dict_copies_in_place():
    src, dst = Net(), Net()
    src.a.w.data.mul_(3)
    w = dst.a.w
    version = w._version
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert dst.a.w is w and w.requires_grad and w._version > version
    np.testing.assert_array_equal(w.detach().numpy(), [3.0, 3.0])
    assert not np.shares_memory(w.detach().numpy(), src.a.w.detach().numpy())


def test_load_state_dict_strict_error_message():
    m = Scale()
    sd = {"w": numtorch.ones(2), "extra": numtorch.ones(1)}
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    assert str(e.value) == (
        'Error(s) in loading state_dict for Scale:\n\tMissing key(s) in state_dict: "count". '
        '\n\tUnexpected key(s) in state_dict: "extra". '
    )
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["count"] and result.unexpected_keys == ["extra"]
    assert repr(result) == "_IncompatibleKeys(missing_keys=['count'], unexpected_keys=['extra'])"


def test_load_state_dict_size_mismatch_message():
    with pytest.raises(RuntimeError) as e:
        Scale().load_state_dict({"w": numtorch.ones(3), "count": numtorch.zeros(1)})
    assert str(e.value) == (
        "Error(s) in loading state_dict for Scale:\n\tsize mismatch for w: copying a param with "
        "shape torch.Size([3]) from checkpoint, the shape in current model is torch.Size([2])."
    )
    with pytest.raises(
        RuntimeError, match="expected torch.Tensor or Tensor-like object from checkpoint"
    ):
        Scale().load_state_dict({"w": [1.0, 2.0], "count": numtorch.zeros(1)})
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        Scale().load_state_dict([])


def test_load_state_dict_assign_replaces_objects():
    m = Scale()
    new_w = numtorch.tensor([5.0, 6.0])
    m.load_state_dict({"w": new_w, "count": numtorch.ones(1)}, assign=True)
    assert type(m.w) is nn.Parameter and m.w.requires_grad
    assert np.shares_memory(m.w.detach().numpy(), new_w.numpy())


def test_state_dict_round_trips_through_a_file(tmp_path):
    net = Net()
    net.a.w.data.mul_(7)
    numtorch.save(net.state_dict(), tmp_path / "net.pt")
    fresh = Net()
    fresh.load_state_dict(numtorch.load(tmp_path / "net.pt"))
    np.testing.assert_array_equal(fresh.a.w.detach().numpy(), [7.0, 7.0])


def test_extra_state_round_trip():
    class WithExtra(Scale):
        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    a, b = WithExtra(), WithExtra()
    a.note, b.note = "hello", ""
    sd = a.state_dict()
    assert list(sd) == ["w", "count", "_extra_state"]
    b.load_state_dict(sd)
    assert b.note == "hello"


def test_state_dict_hooks():
    calls = []
    m = Scale()
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))

    def post(mod, sd, prefix, meta):
        calls.append(("post", list(sd)))

    m.register_state_dict_post_hook(post)
    m.state_dict(prefix="x.")
    assert calls == [("pre", "x."), ("post", ["x.w", "x.count"])]
    h = m.register_state_dict_post_hook(lambda *a: {"bad": 1})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m.state_dict()
    h.remove()
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(only=1))
    assert m.state_dict() == OrderedDict(only=1)


def test_load_state_dict_hooks():
    seen = []
    m = Scale()
    m.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, *rest: seen.append(("pre", mod is m))
    )
    m.register_load_state_dict_post_hook(
        lambda mod, keys: seen.append(("post", list(keys.missing_keys)))
    )
    m.load_state_dict({"w": numtorch.ones(2)}, strict=False)
    assert seen == [("pre", True), ("post", ["count"])]

    def clear(mod, keys):
        keys.missing_keys.clear()

    m2 = Scale()
    m2.register_load_state_dict_post_hook(clear)
    m2.load_state_dict({"w": numtorch.ones(2)})  # strict, but the hook forgave the missing key


# ---- modes and conversion --------------------------------------------------------------------
def test_train_eval_recurse():
    net = Net()
    assert net.training and net.a.training
    assert net.eval() is net
    assert not net.training and not net.a.training and not net.b.training
    net.train()
    assert net.b.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")


def test_requires_grad_and_zero_grad():
    net = Net()
    net(numtorch.ones(2)).sum().backward()
    assert net.a.w.grad is not None
    net.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(net.a.w.grad.numpy(), [0.0, 0.0])
    net.zero_grad()
    assert net.a.w.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_to_dtype_keeps_parameter_identity():
    net = Net()
    w = net.a.w
    net.a.w.grad = numtorch.ones(2)
    assert net.to(numtorch.float64) is net
    assert net.a.w is w and w.dtype is numtorch.float64 and w.grad.dtype is numtorch.float64
    assert net.a.count.dtype is numtorch.float64
    assert net.float().a.w.dtype is numtorch.float32
    assert net.double().b.w.dtype is numtorch.float64
    assert net.half().b.w.dtype is numtorch.float16
    assert net.to(numtorch.ones(1)).a.w.dtype is numtorch.float32
    assert net.to("cpu").a.w.device.type == "cpu" and net.cpu() is net
    with pytest.raises(
        TypeError,
        match="nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int32",
    ):
        net.to(numtorch.int32)


def test_to_leaves_integer_buffers_alone():
    m = nn.Module()
    m.register_buffer("steps", numtorch.tensor([3]))
    m.to(numtorch.float64)
    assert m.steps.dtype is numtorch.int64


def test_apply_visits_children_first():
    order = []
    net = Net()
    net.apply(lambda mod: order.append(type(mod).__name__))
    assert order == ["Scale", "Scale", "Net"]


def test_deepcopy_and_pickle_make_independent_modules():
    net = Net()
    net.register_forward_hook(lambda *a: None)
    clone = copy.deepcopy(net)
    assert clone.a.w is not net.a.w
    clone.a.w.data.mul_(2)
    np.testing.assert_array_equal(net.a.w.detach().numpy(), [1.0, 1.0])
    assert len(clone._forward_hooks) == 1
    back = pickle.loads(pickle.dumps(Net()))
    assert [n for n, _ in back.named_parameters()] == ["a.w", "b.w"]
    state = net.__getstate__()
    assert "_parameters" in state and "_compiled_call_impl" not in state


def test_share_memory_is_a_noop_returning_self():
    net = Net()
    assert net.share_memory() is net


# ---- repr --------------------------------------------------------------------------------------
def test_repr_nests_children_and_multiline_extra_repr():
    class Multi(nn.Module):
        def extra_repr(self):
            return "line1\nline2"

    net = nn.Module()
    net.first = Multi()
    net.inner = nn.Module()
    net.inner.leaf = Linear(1, 1)
    assert repr(Multi()) == "Multi(\n  line1\n  line2\n)"
    assert repr(net) == (
        "Module(\n"
        "  (first): Multi(\n"
        "    line1\n"
        "    line2\n"
        "  )\n"
        "  (inner): Module(\n"
        "    (leaf): Linear(input_features=1, output_features=1, bias=True)\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Module()) == "Module()"


# ---- forward hooks -----------------------------------------------------------------------------
def test_forward_hooks_order_and_results():
    calls = []
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))  # replaces the input
    m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("post1"))
    h = m.register_forward_hook(lambda mod, args, out: out + 1)  # replaces the output
    m.register_forward_hook(lambda mod, args, out: calls.append("post0"), prepend=True)
    out = m(numtorch.ones(2))
    assert calls == ["pre0", "pre1", "post0", "post1"]
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 3.0])
    h.remove()
    np.testing.assert_array_equal(m(numtorch.ones(2)).detach().numpy(), [2.0, 2.0])


def test_forward_hooks_with_kwargs():
    class KW(nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale

    m = KW()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 3.0}), with_kwargs=True)
    seen = {}

    def post(mod, args, kwargs, out):
        seen.update(kwargs)

    m.register_forward_hook(post, with_kwargs=True)
    np.testing.assert_array_equal(m(numtorch.ones(1)).numpy(), [3.0])
    assert seen == {"scale": 3.0}
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(
        RuntimeError,
        match="forward pre-hook must return None or a tuple of \\(new_args, new_kwargs\\), but got 5.",
    ):
        m(numtorch.ones(1))


def test_always_call_forward_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert seen == ["always"]


def test_global_forward_hooks():
    seen = []
    h1 = nn.modules.module.register_module_forward_pre_hook(lambda mod, args: seen.append("gpre"))
    h2 = nn.modules.module.register_module_forward_hook(lambda mod, args, out: seen.append("gpost"))
    try:
        Scale()(numtorch.ones(2))
    finally:
        h1.remove()
        h2.remove()
    assert seen == ["gpre", "gpost"]
    Scale()(numtorch.ones(2))
    assert seen == ["gpre", "gpost"]


def test_registration_hooks():
    seen = []
    h = nn.modules.module.register_module_parameter_registration_hook(
        lambda mod, name, p: seen.append(name)
    )
    try:
        Scale()
    finally:
        h.remove()
    assert seen == ["w"]


# ---- backward hooks ----------------------------------------------------------------------------
def test_full_backward_hook_sees_grad_input_and_output():
    m = Scale()
    m.w.data.mul_(3)
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["gi"] = [g.numpy().tolist() for g in grad_input]
        seen["go"] = [g.numpy().tolist() for g in grad_output]

    m.register_full_backward_hook(hook)
    x = numtorch.ones(2, requires_grad=True)
    (m(x) * 2).sum().backward()
    assert seen == {"gi": [[6.0, 6.0]], "go": [[2.0, 2.0]]}
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


def test_backward_hooks_can_replace_gradients_in_order():
    m = Scale()
    order = []

    def pre(mod, grad_output):
        order.append("pre")
        return (grad_output[0] * 10,)

    def post(mod, grad_input, grad_output):
        order.append("post")
        return (grad_input[0] + 1,)

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(post)
    x = numtorch.ones(2, requires_grad=True)
    m(x).sum().backward()
    assert order == ["pre", "post"]
    np.testing.assert_array_equal(x.grad.numpy(), [11.0, 11.0])
    np.testing.assert_array_equal(m.w.grad.numpy(), [10.0, 10.0])


def test_full_backward_hook_when_no_input_requires_grad_warns():
    m = Scale()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    with pytest.warns(
        UserWarning,
        match="Full backward hook is firing when gradients are computed with respect to module outputs",
    ):
        m(numtorch.ones(2)).sum().backward()
    assert seen == [(None,)]


def test_mixing_backward_hook_kinds_raises():
    m = Scale()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(
        RuntimeError,
        match="Cannot use both regular backward hooks and full backward hooks on a single Module",
    ):
        m.register_backward_hook(lambda *a: None)
