"""numtorch.overrides: handler order, modes, the generated tables and the note's examples."""

from __future__ import annotations

import inspect
import warnings

import pytest

import numtorch
from numtorch import _C
from numtorch.overrides import (
    TorchFunctionMode,
    get_ignored_functions,
    get_overridable_functions,
    get_testing_overrides,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    is_tensor_method_or_property,
    resolve_name,
    wrap_torch_function,
)


def _duck(name, result, log):
    def tf(cls, func, types, args=(), kwargs=None):
        log.append(name)
        return result

    return type(name, (), {"__torch_function__": classmethod(tf)})


def test_handlers_run_left_to_right_until_one_is_not_notimplemented():
    log = []
    A, B, C = _duck("A", NotImplemented, log), _duck("B", "B", log), _duck("C", "C", log)
    assert numtorch.add(A(), B()) == "B" and log == ["A", "B"]
    log.clear()
    assert numtorch.cat([A(), C(), B()]) == "C" and log == ["A", "C"]


def test_subclasses_before_superclasses_with_three_types_mixed():
    log = []

    class Sub(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(cls.__name__)
            return NotImplemented

    class SubSub(Sub):
        pass

    Duck = _duck("Duck", NotImplemented, log)
    with pytest.raises(TypeError, match=r"Multiple dispatch failed for 'torch.add'"):
        numtorch.add(Sub([1.0]), Duck())
    log.clear()
    with pytest.raises(TypeError) as e:
        numtorch.where(Sub([True]), Duck(), SubSub([1.0]))
    assert log == ["SubSub", "Sub", "Duck"]  # SubSub jumps ahead of its superclass only
    assert "  - tensor subclass" in str(e.value) and "TORCH_LOGS=not_implemented" in str(e.value)


def test_plain_method_torch_function_works_with_a_warning():
    class Old:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return (self, func)

    o = Old()
    with pytest.warns(UserWarning, match="plain method is deprecated"):
        assert numtorch.mul(o, 2) == (o, numtorch.mul)


def test_python_api_error_text():
    D = _duck("D", NotImplemented, [])
    with pytest.raises(TypeError, match=r"no implementation found for 'torch.nn.functional.relu'"):
        numtorch.nn.functional.relu(D())


@pytest.mark.parametrize(
    "expr, name",
    [
        (lambda x: x * 2, "torch.Tensor.mul"),
        (lambda x: 2 + x, "torch.Tensor.add"),
        (lambda x: x - x, "torch.Tensor.sub"),
        (lambda x: x @ x, "torch.Tensor.matmul"),
        (lambda x: x**2, "torch.Tensor.__pow__"),
        (lambda x: 2 - x, "torch.Tensor.__rsub__"),
        (lambda x: x.shape, "torch.Tensor.shape.__get__"),
        (lambda x: x.size(), "torch.Tensor.size"),
        (lambda x: len(x), "torch.Tensor.__len__"),
    ],
)
def test_operators_pass_the_method_pytorch_passes(expr, name):
    seen = []

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with M():
        expr(numtorch.ones(2, 2))
    assert resolve_name(seen[-1]) == name


def test_function_log_example_prints_pytorchs_lines(capsys):
    class FunctionLog(TorchFunctionMode):
        def __torch_function__(self, func, types, args, kwargs=None):
            print(f"Function Log: {resolve_name(func)}(*{args}, **{kwargs})")
            return func(*args, **(kwargs or {}))

    with FunctionLog():
        a = numtorch.ones(3, requires_grad=True)
        b = a * 2
        b.sum().backward()
    assert capsys.readouterr().out.splitlines() == [
        "Function Log: torch.ones(*(3,), **{'requires_grad': True})",
        "Function Log: torch.Tensor.mul(*(tensor([1., 1., 1.], requires_grad=True), 2), **None)",
        "Function Log: torch.Tensor.sum(*(tensor([2., 2., 2.], grad_fn=<MulBackward0>),), **None)",
        "Function Log: torch.Tensor.backward(*(tensor(6., grad_fn=<SumBackward0>),), "
        "**{'gradient': None, 'retain_graph': None, 'create_graph': False, 'inputs': None})",
    ]
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_modes_innermost_first_disabled_inside_and_with_self_reenables():
    log = []

    class M(TorchFunctionMode):
        def __init__(self, name, reenter=False):
            self.name, self.reenter = name, reenter

        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((self.name, resolve_name(func)))
            if self.reenter and func is numtorch.add:
                self.reenter = False
                with self:
                    return numtorch.mul(*args)
            return func(*args, **(kwargs or {}))

    x = numtorch.ones(1)
    with M("outer"), M("inner", reenter=True):
        numtorch.add(x, x)
    assert log == [("inner", "torch.add"), ("inner", "torch.mul"), ("outer", "torch.mul")]
    assert _C._len_torch_function_stack() == 0


def test_modes_run_before_subclass_handlers_and_see_factories():
    log = []

    class Sub(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append("sub")
            return super().__torch_function__(func, types, args, kwargs)

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("mode", types))
            return func(*args, **(kwargs or {}))

    with M():
        numtorch.rand(2)
        r = Sub([1.0]) + 1
    assert log == [("mode", ()), ("mode", (Sub,)), "sub"] and type(r) is Sub


def test_disable_torch_function_contexts():
    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "mode"

    D = _duck("D", "duck", [])
    with M():
        with _C.DisableTorchFunction():
            assert not _C._is_torch_function_mode_enabled()
            assert isinstance(numtorch.ones(1), numtorch.Tensor)
            with _C._EnableTorchFunction():
                assert numtorch.ones(1) == "mode"
        with _C.DisableTorchFunctionSubclass():
            assert numtorch.ones(1) == "mode"
    with _C.DisableTorchFunctionSubclass(), pytest.raises(TypeError, match="must be Tensor"):
        numtorch.neg(D())
    assert numtorch.neg(D()) == "duck"


def test_has_torch_function_and_is_tensor_like():
    D = _duck("D", 1, [])
    assert not has_torch_function((numtorch.ones(1), 2))
    assert has_torch_function((1, D()))
    assert is_tensor_like(numtorch.ones(1)) and is_tensor_like(D()) and not is_tensor_like(6)
    assert handle_torch_function(numtorch.add, (D(),), D(), 1) == 1


def test_wrap_torch_function():
    D = _duck("D", "handled", [])

    @wrap_torch_function(lambda x: (x,))
    def f(x):
        return x + 1

    assert f(D()) == "handled" and f(numtorch.ones(1)).item() == 2.0


def test_testing_overrides_have_exact_signatures():
    d = get_testing_overrides()
    assert str(inspect.signature(d[numtorch.add])) == "(input, other, *, alpha=1, out=None)"
    assert d[numtorch.add](1, 2) == -1


def test_overridable_functions_nn_functional_starts_like_pytorch():
    names = [f.__name__ for f in get_overridable_functions()[numtorch.nn.functional]]
    assert names == sorted(names) and names[0].startswith("adaptive_avg_pool1d")


def test_ignored_and_method_tables():
    ignored = get_ignored_functions()
    assert numtorch.is_tensor in ignored and numtorch.add not in ignored
    assert is_tensor_method_or_property(numtorch.Tensor.add)
    assert is_tensor_method_or_property(numtorch.Tensor.shape.__get__)
    assert not is_tensor_method_or_property(numtorch.add)


def _build_args(sig, arg, lists=()):
    args, kwargs = [], {}
    for p in sig.parameters.values():
        value = [arg] if p.name in lists else arg
        if p.kind is p.VAR_POSITIONAL:
            args.append(arg)
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            kwargs[p.name] = value
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            args.append(value)
    return args, kwargs


class _Probe:
    seen: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return -1


class _ProbeMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        _Probe.seen.append(func)
        return -1


def _call_with_probe(f, sig):
    """Tensor-likes in every required tensor slot; a mode for functions that take none."""
    from numtorch._overridable import PUBLIC

    b = PUBLIC.get(f)
    name = resolve_name(f)
    if name.endswith(".__set__"):
        return f(_Probe(), 0)
    if name.endswith(".__get__"):
        return f(_Probe())
    if b is not None and not b.relevant and not b.lists:  # factories: only a mode sees them
        with _ProbeMode():
            args, kwargs = _build_args(sig, 1)
            return f(*args, **kwargs)
    args, kwargs = _build_args(sig, _Probe(), b.lists if b is not None else ())
    return f(*args, **kwargs)


def test_every_overridable_function_reaches_the_handler_with_itself():
    """Each function's handler must receive exactly that function (for an operator, the method
    PyTorch passes: Note [Operators pass the method PyTorch passes])."""
    from numtorch._api import TF_FUNC

    overrides = get_testing_overrides()
    failures, count = [], 0
    for ns, funcs in get_overridable_functions().items():
        for f in funcs:
            name = resolve_name(f)
            _Probe.seen.clear()
            try:
                r = _call_with_probe(f, inspect.signature(overrides[f]))
            except Exception as e:  # noqa: BLE001
                failures.append((name, repr(e)[:200]))
                continue
            count += 1
            short = name.rsplit(".", 1)[-1]
            expected = getattr(numtorch.Tensor, TF_FUNC[short]) if ns is numtorch.Tensor and short in TF_FUNC else f
            if _Probe.seen[:1] != [expected] or (r != -1 and not name.endswith("__set__")):
                failures.append((name, _Probe.seen[:1], r))
    assert not failures, failures[:20]
    assert count > 1000


def test_c_module_names():
    assert issubclass(numtorch.Tensor, _C.TensorBase)
    assert _C._has_torch_function((1,)) is False
    _C._log_api_usage_once("numtorch.test")

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with M() as m:
        assert _C._len_torch_function_stack() == 1 and _C._get_function_stack_at(0) is m


def test_note_scalar_tensor_example():
    HANDLED = {}

    class ScalarTensor:
        def __init__(self, N, value):
            self._N, self._value = N, value

        def __repr__(self):
            return f"ScalarTensor(N={self._N}, value={self._value})"

        def tensor(self):
            return self._value * numtorch.eye(self._N)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func not in HANDLED or not all(issubclass(t, (numtorch.Tensor, ScalarTensor)) for t in types):
                return NotImplemented
            return HANDLED[func](*args, **kwargs)

    HANDLED[numtorch.mean] = lambda input: float(input._value) / input._N
    s = ScalarTensor(5, 2)
    assert numtorch.mean(s) == 0.4
    with pytest.raises(TypeError) as e:
        numtorch.mul(s, 3)
    assert "'torch.mul'" in str(e.value) and "ScalarTensor" in str(e.value)


def test_note_metadata_tensor_example():
    class MetadataTensor:
        def __init__(self, data, metadata=None, **kwargs):
            self._t = numtorch.as_tensor(data, **kwargs)
            self._metadata = metadata

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            metadatas = tuple(a._metadata for a in args if hasattr(a, "_metadata"))
            args = [getattr(a, "_t", a) for a in args]
            return MetadataTensor(func(*args, **(kwargs or {})), metadata=metadatas[0])

    m = MetadataTensor([[1, 2], [3, 4]], metadata={"owner": "x"})
    t = numtorch.tensor([[1, 2], [1, 2]])
    r = numtorch.add(t, m)
    assert r._metadata == {"owner": "x"} and r._t.tolist() == [[2, 4], [4, 6]]
    assert numtorch.mul(t, m)._t.tolist() == [[1, 4], [3, 8]]


def test_no_warnings_on_classmethod_handlers():
    D = _duck("D", 0, [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.add(D(), 1)


def test_dir_array_wrap_long_and_reduce_ex_route_as_in_torch():
    import pickle

    import numpy as np

    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(numtorch.overrides.resolve_name(func))
            return func(*args, **(kwargs or {}))

    x = numtorch.ones(1)
    with Log():
        assert "shape" in dir(x)
        w = x.__array_wrap__(np.array([True]))
        assert x.__long__() == 1
        pickle.dumps(x)  # a plain Tensor without state pickles without the protocol (torch's fast path)
    assert seen == ["torch.Tensor.__dir__", "torch.Tensor.__array_wrap__", "torch.Tensor.__int__"]
    assert w.dtype == numtorch.uint8 and numtorch.Tensor.__long__ is numtorch.Tensor.__int__

    s = numtorch.ones(2).as_subclass(PickledSub)
    seen.clear()
    with Log():
        data = pickle.dumps(s)
    assert seen == ["torch.Tensor.__reduce_ex__"]
    assert type(pickle.loads(data)) is PickledSub


class PickledSub(numtorch.Tensor):
    pass


def test_handlers_returning_not_implemented_or_raising_type_error_under_operators():
    # a mode over plain tensors: the function's own error; an operator: Python's operand error
    # (torch's C++ operators turn a handler's TypeError into NotImplemented)
    class Refuse(numtorch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

        def __repr__(self):
            return "Refuse()"

    class Boom(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            raise TypeError("boom")

    x = numtorch.ones(1)
    b = x.as_subclass(Boom)
    with Refuse(), pytest.raises(TypeError) as e:
        x.sum()
    assert str(e.value).startswith(
        "Multiple dispatch failed for 'torch.Tensor.sum'; all __torch_function__ handlers "
        "returned NotImplemented:\n\n  - mode object Refuse()\n"
    )
    with Refuse(), pytest.raises(TypeError, match=r"^no implementation found for 'torch.nn"):
        numtorch.nn.functional.relu(x)
    with Refuse(), pytest.raises(TypeError, match=r"operand type\(s\) for \+: 'Tensor' and 'Tensor'"):
        x + x
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Boom' and 'Boom'"):
        b + b
    with pytest.raises(TypeError, match="^boom$"):
        b.add(b)
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'Boom'"):
        x < b
