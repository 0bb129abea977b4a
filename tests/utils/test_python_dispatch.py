"""subclass_zoo-style ports: logging mode, counting mode, nested modes, a wrapper subclass storing
a scale with autograd through it, and the errors of the Python key."""

import copy
import pickle

import pytest

import numtorch
from numtorch.overrides import TorchFunctionMode, resolve_name
from numtorch.utils._python_dispatch import (
    TorchDispatchMode,
    _disable_current_modes,
    _get_current_dispatch_mode,
    _get_current_dispatch_mode_stack,
    _pop_mode,
    _push_mode,
    is_traceable_wrapper_subclass,
    transform_subclass,
)
from numtorch.utils._pytree import tree_map_only
from numtorch.utils.weak import WeakIdKeyDictionary

aten = numtorch.ops.aten


class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append((func, args, kwargs))
        return func(*args, **(kwargs or {}))


def test_note_dispatch_log_forward_and_backward(capsys):
    class DispatchLog(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args, kwargs=None):
            print(f"Dispatch Log: {func}(*{args}, **{kwargs})")
            return func(*args, **(kwargs or {}))

    with DispatchLog():
        a = numtorch.rand(10, requires_grad=True)
        b = a * 2
        b.sum().backward()
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("Dispatch Log")]
    names = [x.split("(")[0].removeprefix("Dispatch Log: ") for x in lines]
    assert names == ["aten.rand.default", "aten.mul.Tensor", "aten.sum.default", "aten.ones_like.default",
                     "aten.expand.default", "aten.mul.Tensor", "aten.detach.default"]  # fmt: skip
    assert lines[0] == "Dispatch Log: aten.rand.default(*([10],), **{'device': device(type='cpu'), 'pin_memory': False})"
    assert lines[3].endswith("**{'pin_memory': False, 'memory_format': torch.preserve_format})")
    assert lines[4] == "Dispatch Log: aten.expand.default(*(tensor(1.), [10]), **{})"
    assert a.grad.tolist() == [2.0] * 10


def test_normalised_arguments_method_and_function_agree():
    x, y = numtorch.ones(2, 3), numtorch.ones(2, 3)
    with Log() as log:
        x + 2
        numtorch.add(x, 2)
        numtorch.add(x, y, alpha=2)
        x.sum(1)
        x.sum(1, keepdim=True)
        numtorch.div(x, y, rounding_mode="floor")
    c = log.calls
    assert c[0][0] is aten.add.Tensor and c[0][1:] == c[1][1:] and c[0][1][1] == 2 and c[0][2] == {}
    assert c[2][2] == {"alpha": 2}
    assert c[3][0] is aten.sum.dim_IntList and c[3][1][1:] == ([1],)
    assert c[4][1][1:] == ([1], True)
    assert c[5][0] is aten.div.Tensor_mode and c[5][2] == {"rounding_mode": "floor"}


def test_counting_mode_and_stack_api():
    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.n += 1
            assert _get_current_dispatch_mode() is not self  # off inside its own handler
            return func(*args, **(kwargs or {}))

    with Count() as c:
        assert _get_current_dispatch_mode() is c and _get_current_dispatch_mode_stack() == [c]
        (numtorch.ones(3) * 2).sum()
        with _disable_current_modes():
            numtorch.ones(3) + 1
    assert c.n == 3 and _get_current_dispatch_mode() is None
    m = Count()
    _push_mode(m)
    numtorch.ones(1) + 1
    assert _pop_mode() is m and m.n == 2


def test_nested_modes_innermost_first_and_reenable_with_self():
    order = []

    class Named(TorchDispatchMode):
        def __init__(self, name, reenter=False):
            super().__init__()
            self.name, self.reenter = name, reenter

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            order.append((self.name, str(func)))
            if self.reenter and func is aten.add.Tensor:
                with self:  # re-enabled: the mul below reaches this mode again
                    numtorch.ones(1) * 3
            return func(*args, **(kwargs or {}))

    x = numtorch.ones(1)
    with Named("outer"), Named("inner", reenter=True):
        x + 1
    # inner runs first; inside it, `with self:` re-enables it for the ones/mul it makes, and
    # its own func(...) call then reaches the outer mode only
    assert order == [("inner", "aten.add.Tensor"), ("inner", "aten.ones.default"),
                     ("outer", "aten.ones.default"), ("inner", "aten.mul.Tensor"),
                     ("outer", "aten.mul.Tensor"), ("outer", "aten.add.Tensor")]  # fmt: skip


def test_function_mode_outside_dispatch_mode():
    seen = []

    class F(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(("function", resolve_name(func)))
            return func(*args, **(kwargs or {}))

    class D(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(("dispatch", str(func)))
            return func(*args, **(kwargs or {}))

    x = numtorch.ones(2)
    with F(), D():
        x.mul(2)
    assert seen == [("function", "torch.Tensor.mul"), ("dispatch", "aten.mul.Tensor")]


class ScaleTensor(numtorch.Tensor):
    """Stores ``inner`` and ``scale``; its value is inner * scale."""

    @staticmethod
    def __new__(cls, inner, scale):
        r = numtorch.Tensor._make_wrapper_subclass(cls, inner.shape, strides=inner.stride(),
                                                   dtype=inner.dtype, device=inner.device,
                                                   requires_grad=inner.requires_grad)  # fmt: skip
        r.inner, r.scale = inner, scale
        return r

    __torch_function__ = numtorch._C._disabled_torch_function_impl

    def __tensor_flatten__(self):
        return ["inner"], self.scale

    @staticmethod
    def __tensor_unflatten__(inner, ctx, outer_size, outer_stride):
        return ScaleTensor(inner["inner"], ctx)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        scales = []

        def unwrap(t):
            scales.append(t.scale)
            return t.inner * t.scale

        out = func(*tree_map_only(cls, unwrap, args), **tree_map_only(cls, unwrap, kwargs or {}))
        s = scales[0]
        return tree_map_only(numtorch.Tensor, lambda t: cls(t / s, s), out)


def test_wrapper_subclass_autograd_grad_is_subclass():
    x = ScaleTensor(numtorch.tensor([1.0, 2.0, 3.0]), 2.0).requires_grad_()
    y = (x * x).sum()
    assert type(y) is ScaleTensor and y.inner.item() * y.scale == 56.0
    y.backward()
    g = x.grad
    assert type(g) is ScaleTensor and (g.inner * g.scale).tolist() == [4.0, 8.0, 12.0]
    assert is_traceable_wrapper_subclass(x) and not is_traceable_wrapper_subclass(numtorch.ones(1))
    doubled = transform_subclass(x, lambda name, t: t * 2)
    assert type(doubled) is ScaleTensor and doubled.inner.tolist() == [2.0, 4.0, 6.0]


def test_disable_torch_dispatch_skips_modes():
    with Log() as log:
        with numtorch._C._DisableTorchDispatch():
            numtorch.ones(2) + 1
        assert log.calls == []
        with numtorch._C._DisableTorchDispatch(), numtorch.overrides.enable_reentrant_dispatch():
            numtorch.ones(2) + 1
    assert len(log.calls) == 2


def test_wrong_return_type_names_op():
    class Bad(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return "x"

    x = numtorch.ones(2)
    with pytest.raises(RuntimeError, match=r"Unable to cast x to Tensor: Bad.__torch_dispatch__ .* aten.add.Tensor"):
        with Bad():
            x + x


def test_raising_mode_names_op():
    class Boom(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom") as info:
        with Boom():
            numtorch.ones(2) * 2
    assert any("aten." in n and "Boom" in n for n in info.value.__notes__)


def test_redispatch_loop_is_a_clear_error_not_recursion():
    class Loop(numtorch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))  # forgot to unwrap

    t = numtorch.Tensor._make_subclass(Loop, numtorch.ones(2))
    with pytest.raises(RuntimeError, match=r"aten.neg.default: __torch_dispatch__ of Loop re-entered"):
        numtorch.ops.aten.neg.default(t)


def test_op_objects_copy_pickle_hash():
    d = {aten.add: [aten.add.Tensor]}
    assert copy.deepcopy(d) == d and copy.copy(aten.add.Tensor) is aten.add.Tensor
    assert copy.deepcopy(aten.add) is aten.add
    assert pickle.loads(pickle.dumps(aten.mul.Tensor)) is aten.mul.Tensor
    assert pickle.loads(pickle.dumps(aten.mul)) is aten.mul
    assert aten.add.Tensor._overloadpacket is aten.add and aten.add.Tensor.name() == "aten::add.Tensor"
    assert str(aten.add_.Tensor._schema).startswith("aten::add_.Tensor(Tensor(a!) self")
    assert hash(aten.add.Tensor) == hash(aten.add.Tensor) and "Tensor" in aten.add.overloads()


def test_weak_id_key_dictionary_holds_tensors_weakly():
    d = WeakIdKeyDictionary()
    t = numtorch.ones(2)
    d[t] = 1
    assert t in d and d[t] == 1 and len(d) == 1 and numtorch.ones(2) not in d
    del t
    import gc

    gc.collect()
    assert len(d) == 0
