"""numtorch.library: custom ops, the low-level Library API, opcheck, the scalar-function route."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import typing

import numpy as np
import pytest

import numtorch
from numtorch import Tensor
from numtorch.autograd import gradcheck
from numtorch.kernels._jit import kernel
from numtorch.library import Library, OpCheckError, custom_op, elementwise, infer_schema, opcheck
from numtorch.overrides import TorchFunctionMode
from numtorch.utils._python_dispatch import TorchDispatchMode

from . import _library_ops as L

_COUNTER = [0]


def _ns() -> str:
    _COUNTER[0] += 1
    return f"libtest{_COUNTER[0]}"


@kernel
def _sin_kernel(x, out):
    for i in range(x.size):
        out[i] = np.sin(x[i])


def _numba_sin(x: Tensor) -> Tensor:
    a = x.detach().numpy().reshape(-1)
    out = np.empty_like(a)
    _sin_kernel(a, out)
    return numtorch.from_numpy(out.reshape(x.shape))


def _make_sin(ns):
    op = custom_op(f"{ns}::sin", mutates_args=())(_numba_sin)

    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()

    op.register_autograd(backward, setup_context=setup_context)
    op.register_fake(lambda x: numtorch.empty_like(x))
    return op


# ---- custom_op ---------------------------------------------------------------------------------
def test_custom_op_values_schema_and_namespace():
    ns = _ns()
    op = _make_sin(ns)
    x = numtorch.randn(5)
    np.testing.assert_allclose(op(x).numpy(), np.sin(x.numpy()), rtol=1e-6)
    ov = getattr(numtorch.ops, ns).sin.default
    assert str(ov._schema) == f"{ns}::sin(Tensor x) -> Tensor"
    assert numtorch.Tag.pt2_compliant_tag in ov.tags
    np.testing.assert_allclose(ov(x).numpy(), np.sin(x.numpy()), rtol=1e-6)


def test_custom_op_autograd_and_gradcheck():
    op = _make_sin(_ns())
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    y = op(x)
    assert type(y.grad_fn).__name__.startswith("GeneratedBackwardFor_")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()))
    assert gradcheck(op, (x,))


def test_custom_op_without_autograd_raises_at_backward():
    ns = _ns()
    op = custom_op(f"{ns}::s", mutates_args=())(_numba_sin)
    x = numtorch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"Trying to backward through {ns}.s.default but no autograd formula"):
        op(x).sum().backward()


def test_backward_returning_wrong_number_of_grads():
    ns = _ns()

    @custom_op(f"{ns}::mul", mutates_args=())
    def mul(x: Tensor, k: float) -> Tensor:
        return x * k

    mul.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, output: None)
    x = numtorch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Expected the return from backward to be of the same structure"):
        mul(x, 2.0).sum().backward()


def test_kwarg_only_and_setup_context_keyword_only_inputs():
    ns = _ns()

    @custom_op(f"{ns}::scale", mutates_args=())
    def scale(x: Tensor, *, k: float = 2.0) -> Tensor:
        return x * k

    seen = {}

    def setup(ctx, inputs, keyword_only_inputs, output):
        seen.update(keyword_only_inputs)
        ctx.k = keyword_only_inputs["k"]

    scale.register_autograd(lambda ctx, g: (g * ctx.k,), setup_context=setup)
    x = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    scale(x, k=3.0).sum().backward()
    assert seen == {"k": 3.0}
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_mutating_op_bumps_version_counter():
    ns = _ns()

    @custom_op(f"{ns}::add_one_", mutates_args=("x",))
    def add_one_(x: Tensor) -> None:
        x.numpy()[...] += 1

    x = numtorch.zeros(3)
    v = x._version
    add_one_(x)
    assert x._version == v + 1 and x.tolist() == [1.0, 1.0, 1.0]
    assert "Tensor(a0!) x" in str(numtorch.ops.__getattr__(ns).add_one_.default._schema)


def test_dispatch_mode_sees_custom_op():
    op = _make_sin(_ns())
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = numtorch.randn(3, requires_grad=True)
    with Log():
        op(x)
    assert seen[0] == f"{op._namespace}.sin.default"


def test_register_torch_dispatch_handler_runs_for_mode_and_subclass():
    op = _make_sin(_ns())
    calls = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(("mode", str(func)))
            return func(*args, **(kwargs or {}))

    @op.register_torch_dispatch(Log)
    def _(mode, func, types, args, kwargs):
        assert isinstance(mode, Log) and func is op._opoverload
        calls.append(("handler", str(func)))
        return args[0] + 100

    x = numtorch.randn(3)
    with Log():
        r = op(x)
        other = x.cos()  # ops without a registration still reach the mode
    assert calls[0] == ("handler", f"{op._namespace}.sin.default")
    assert ("mode", "aten.cos.default") in calls and ("mode", f"{op._namespace}.sin.default") not in calls
    np.testing.assert_allclose(r.numpy(), x.numpy() + 100)
    np.testing.assert_allclose(other.numpy(), np.cos(x.numpy()), rtol=1e-6)

    class Wrap(Tensor):
        @staticmethod
        def __new__(cls, inner):
            r = Tensor._make_wrapper_subclass(cls, inner.shape, dtype=inner.dtype, device=inner.device)
            r.inner = inner
            return r

        __torch_function__ = numtorch._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise AssertionError("the registered handler must run instead")

    @op.register_torch_dispatch(Wrap)
    def _(cls, func, types, args, kwargs):
        assert cls is Wrap and Wrap in types
        return Wrap(func(args[0].inner))

    w = op(Wrap(x))
    assert type(w) is Wrap
    np.testing.assert_allclose(w.inner.numpy(), np.sin(x.numpy()), rtol=1e-6)  # float32: 1 ulp


def test_torch_function_mode_and_subclass_see_custom_op():
    op = _make_sin(_ns())
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = numtorch.randn(3)
    with Log():
        op(x)
    assert seen and seen[0] is op._opoverload

    class Sub(Tensor):
        calls: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    s = x.as_subclass(Sub)
    op(s)
    assert op._opoverload in Sub.calls


def test_missing_kernel_for_device():
    ns = _ns()

    @custom_op(f"{ns}::only_cuda", mutates_args=(), device_types="cuda")
    def only_cuda(x: Tensor) -> Tensor:
        return x.clone()

    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::only_cuda' with arguments from the 'CPU' backend"):
        only_cuda(numtorch.ones(2))
    only_cuda.register_kernel("cpu")(lambda x: x + 1)
    assert only_cuda(numtorch.ones(2)).tolist() == [2.0, 2.0]


def test_bad_arguments_and_double_definition():
    op = _make_sin(_ns())
    with pytest.raises(RuntimeError, match=r"Expected a value of type 'Tensor' for argument 'x'"):
        op(1.5)
    with pytest.raises(RuntimeError, match="takes 1 positional argument but 2 were given"):
        op(numtorch.ones(1), 2)
    with pytest.raises(RuntimeError, match="with the same name and overload name multiple times"):
        custom_op(f"{op._namespace}::sin", mutates_args=())(_numba_sin)


def test_register_autograd_refuses_mutating_ops():
    ns = _ns()

    @custom_op(f"{ns}::m", mutates_args=("x",))
    def m(x: Tensor) -> None:
        pass

    with pytest.raises(RuntimeError, match="Cannot register autograd formula for non-functional operator"):
        m.register_autograd(lambda ctx, g: g)


# ---- infer_schema -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "hint, text",
    [
        (Tensor, "Tensor"), (typing.Optional[Tensor], "Tensor?"), (list[Tensor], "Tensor[]"),
        (typing.Sequence[Tensor], "Tensor[]"), (int, "SymInt"), (float, "float"), (bool, "bool"),
        (str, "str"), (typing.Sequence[int], "SymInt[]"), (list[float], "float[]"),
        (typing.Optional[int], "SymInt?"), (numtorch.dtype, "ScalarType"), (numtorch.device, "Device"),
        (typing.Union[int, float, bool], "Scalar"), (typing.Optional[typing.Sequence[int]], "SymInt[]?"),
    ],
)  # fmt: skip
def test_infer_schema_every_supported_hint(hint, text):
    def f(x): ...

    f.__annotations__ = {"x": hint, "return": Tensor}  # real types (this module's hints are strings)
    assert infer_schema(f, mutates_args=()) == f"({text} x) -> Tensor"


def test_infer_schema_returns_defaults_and_mutation():
    def f(x: Tensor, n: int = 2, *, s: str = "a", d: numtorch.dtype = numtorch.float32) -> tuple[Tensor, Tensor]: ...

    assert infer_schema(f, op_name="f", mutates_args=("x",)) == (
        'f(Tensor(a0!) x, SymInt n=2, *, str s="a", ScalarType d=float32) -> (Tensor, Tensor)'
    )

    def g(x: Tensor) -> None: ...

    assert infer_schema(g, mutates_args=()) == "(Tensor x) -> ()"


@pytest.mark.parametrize(
    "fn_src, msg",
    [
        ("def f(x) -> Tensor: ...", "Parameter x must have a type annotation."),
        ("def f(*x: Tensor) -> Tensor: ...", "We do not support positional-only args, varargs, or varkwargs."),
        ("def f(x: dict) -> Tensor: ...", "Parameter x has unsupported type"),
        ("def f(x: tuple[int, int]) -> Tensor: ...", "Parameter x has unsupported type tuple[int, int]. We do not support Tuple inputs in schema"),
        ("def f(x: Tensor): ...", "No return type annotation was provided. Please add one."),
        ("def f(x: Tensor) -> dict: ...", "Return has unsupported type"),
    ],
)
def test_infer_schema_unsupported_hints(fn_src, msg):
    ns = {"Tensor": Tensor}
    exec(fn_src, ns)  # test input: a function with the hint under test
    with pytest.raises(ValueError, match=r"^infer_schema\(func\): " + __import__("re").escape(msg)):
        infer_schema(ns["f"], mutates_args=())


def test_mutates_args_must_name_tensors():
    def f(x: Tensor, n: int) -> Tensor: ...

    with pytest.raises(ValueError, match="Parameter n is in mutable_args but only Tensors"):
        infer_schema(f, mutates_args=("n",))
    with pytest.raises(ValueError, match="in mutates_args were not found"):
        infer_schema(f, mutates_args=("y",))


# ---- Library --------------------------------------------------------------------------------------
def test_library_define_impl_and_destroy():
    ns = _ns()
    lib = Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor", tags=(numtorch.Tag.pointwise,))
    lib.impl("twice", lambda x: x * 2, "CPU")
    ov = getattr(numtorch.ops, ns).twice.default
    assert numtorch.Tag.pointwise in ov.tags
    assert ov(numtorch.ones(2)).tolist() == [2.0, 2.0]
    numtorch.library.register_autograd(f"{ns}::twice", lambda ctx, g: g * 2)
    x = numtorch.ones(2, requires_grad=True)
    ov(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    packet = getattr(numtorch.ops, ns).twice
    lib._destroy()
    # Note [Op lookups are plain attributes]: the cached attributes go with the op
    with pytest.raises(AttributeError):
        getattr(numtorch.ops, ns).twice
    with pytest.raises(AttributeError, match="has no overload name 'default'"):
        packet.default


def test_malformed_schema():
    lib = Library(_ns(), "FRAGMENT")
    with pytest.raises(ValueError, match="invalid schema"):
        lib.define("bad(Tensor x -> Tensor")
    lib._destroy()


def test_aten_override_restored_on_deletion():
    x = numtorch.tensor([0.0, 1.0])
    before = numtorch.sin(x).tolist()
    lib = Library("aten", "IMPL")
    lib.impl("sin", lambda self: numtorch.from_numpy(np.full(self.shape, 42.0, np.float32)), "CPU")
    assert numtorch.sin(x).tolist() == [42.0, 42.0]
    assert numtorch.ops.aten.sin.default(x).tolist() == [42.0, 42.0]
    del lib
    import gc

    gc.collect()
    assert numtorch.sin(x).tolist() == before


def test_module_level_define_impl_fake():
    ns = _ns()
    numtorch.library.define(f"{ns}::neg", "(Tensor x) -> Tensor")
    numtorch.library.impl(f"{ns}::neg", "cpu", lambda x: -x)

    @numtorch.library.register_fake(f"{ns}::neg")
    def _(x):
        return numtorch.empty_like(x)

    assert getattr(numtorch.ops, ns).neg.default(numtorch.ones(1)).tolist() == [-1.0]
    assert opcheck(f"{ns}::neg" and getattr(numtorch.ops, ns).neg.default, (numtorch.ones(3),))["test_faketensor"] == "SUCCESS"


# ---- opcheck -------------------------------------------------------------------------------------
def test_opcheck_passes_for_a_correct_op():
    op = _make_sin(_ns())
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    res = opcheck(op, (x,))
    assert all(v == "SUCCESS" for v in res.values()), res


def test_opcheck_catches_undeclared_mutation():
    ns = _ns()

    @custom_op(f"{ns}::sneaky", mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.numpy()[...] += 1
        return x.clone()

    with pytest.raises(OpCheckError, match="argument 'x' is not defined as mutable but was mutated"):
        opcheck(sneaky, (numtorch.ones(3),), test_utils="test_schema")


def test_opcheck_catches_output_aliasing_input():
    ns = _ns()

    @custom_op(f"{ns}::alias", mutates_args=())
    def alias(x: Tensor) -> Tensor:
        return x.view(-1)

    with pytest.raises(OpCheckError, match="the output aliases argument 'x'"):
        opcheck(alias, (numtorch.ones(3),), test_utils="test_schema")


def test_opcheck_fake_mismatch_and_missing_fake():
    ns = _ns()

    @custom_op(f"{ns}::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x * 2

    with pytest.raises(OpCheckError, match="There was no fake impl registered"):
        opcheck(f, (numtorch.ones(3),), test_utils="test_faketensor")
    f.register_fake(lambda x: numtorch.empty(4, device=x.device))
    with pytest.raises(OpCheckError, match="the fake function's output 0 has"):
        opcheck(f, (numtorch.ones(3),), test_utils="test_faketensor")
    f.register_fake(lambda x: numtorch.empty(3))  # a fake must stay on its inputs' (meta) device
    with pytest.raises(OpCheckError, match="output 0 is on cpu, not on the meta device"):
        opcheck(f, (numtorch.ones(3),), test_utils="test_faketensor")
    f.register_fake(lambda x: numtorch.empty_like(x))
    assert opcheck(f, (numtorch.ones(3),), test_utils="test_faketensor")["test_faketensor"] == "SUCCESS"
    y = f(numtorch.ones(2, 5, device="meta"))
    assert y.is_meta and y.shape == (2, 5)


def test_opcheck_wrong_gradient():
    ns = _ns()

    @custom_op(f"{ns}::sq", mutates_args=())
    def sq(x: Tensor) -> Tensor:
        return x * x

    sq.register_autograd(lambda ctx, g: g * 3, setup_context=lambda ctx, inputs, output: None)
    x = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    with pytest.raises(OpCheckError, match="test_autograd_registration failed"):
        opcheck(sq, (x,), test_utils="test_autograd_registration")


# ---- elementwise (the scalar-function route) ----------------------------------------------------------
@pytest.fixture(scope="module")
def softplus():
    return elementwise(f"{_ns()}::softplus", L.softplus, derivative=L.dsoftplus)


def _np_softplus(x, beta=1.0):
    return np.log1p(np.exp(beta * x)) / beta


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_elementwise_values_across_dtypes(softplus, dtype):
    x = numtorch.tensor([-1, 0, 1, 2]).to(getattr(numtorch, dtype))
    r = softplus(x)
    expect_dt = dtype if dtype.startswith("float") else "float32"  # integers promote, as torch's float ops
    assert r.dtype == getattr(numtorch, expect_dt)
    np.testing.assert_allclose(r.numpy(), _np_softplus(x.numpy().astype(np.float64)), rtol=1e-6)


def test_elementwise_strided_out_inplace_param(softplus):
    x = numtorch.randn(4, 6)
    v = x[:, ::2]
    np.testing.assert_allclose(softplus(v, beta=2.0).numpy(), _np_softplus(v.numpy(), 2.0), rtol=1e-5)
    out = numtorch.empty(4, 6)
    r = softplus(x, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), _np_softplus(x.numpy()), rtol=1e-6)
    y = x.clone()
    ver = y._version
    softplus.inplace(y)
    assert y._version == ver + 1
    np.testing.assert_allclose(y.numpy(), _np_softplus(x.numpy()), rtol=1e-6)
    big = numtorch.randn(1 << 19)  # above the parallel threshold
    np.testing.assert_allclose(softplus(big).numpy(), _np_softplus(big.numpy()), rtol=1e-5)


def test_elementwise_broadcasting_promotion_and_two_operand_gradcheck():
    lerp = elementwise(f"{_ns()}::lerp2", L.lerp2, derivative={"a": L.dlerp2_a, "b": L.dlerp2_b})
    a = numtorch.randn(3, 1, dtype=numtorch.float64, requires_grad=True)
    b = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    r = lerp(a, b)
    assert r.shape == (3, 4)
    np.testing.assert_allclose(r.detach().numpy(), a.detach().numpy() + 0.25 * (b.detach().numpy() - a.detach().numpy()))
    assert gradcheck(lambda p, q: lerp(p, q, 0.7), (a, b))
    assert lerp(numtorch.ones(2, dtype=numtorch.float32), numtorch.ones(2, dtype=numtorch.float64)).dtype == numtorch.float64


def test_elementwise_gradcheck(softplus):
    x = numtorch.randn(5, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda t: softplus(t, 1.5), (x,))


def test_elementwise_typing_error_names_op_and_dtype():
    ns = _ns()
    bad = elementwise(f"{ns}::bad", L.bad_typing)
    with pytest.raises(RuntimeError, match=rf"{ns}::bad: the scalar function 'bad_typing' failed to compile for inputs of dtype Float"):
        bad(numtorch.ones(2))


def test_elementwise_refuses_lambdas_and_closures():
    with pytest.raises(TypeError, match="not a lambda"):
        elementwise(f"{_ns()}::l", lambda x: x)
    k = 2.0

    def closure(x):
        return x * k

    with pytest.raises(TypeError, match="reads variables of an enclosing function"):
        elementwise(f"{_ns()}::c", closure)


def test_elementwise_seen_by_dispatch_mode(softplus):
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        softplus(numtorch.ones(2))
    assert seen[-1].endswith("softplus.default")


def test_elementwise_kernels_hit_disk_cache_in_second_process(tmp_path):
    script = textwrap.dedent(
        """
        import sys, time
        sys.path.insert(0, %r)
        import numtorch, numba
        from tests import _library_ops as L
        sp = numtorch.library.elementwise("cachetest::softplus", L.softplus, derivative=L.dsoftplus)
        sp(numtorch.ones(3))
        sp.default.impls["cpu"].__self__  # the engine
        pw = sp.default.impls["cpu"].__self__
        k = pw.kernel("c_a")
        print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))
        """
    ) % os.getcwd()
    env = {**os.environ, "NUMTORCH_KERNEL_CACHE": str(tmp_path / "k"), "NUMBA_CACHE_DIR": str(tmp_path / "n")}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=os.getcwd()) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (tuple(map(int, r.stdout.split())) for r in runs)
    assert first == (0, 1) and second == (1, 0), (first, second)


def test_recording_fast_path_mixed_inputs_saved_output_and_graph():
    # Note [Custom-op recording fast path]: one input needing grad, one not, the output saved
    ns = _ns()

    @custom_op(f"{ns}::mulexp", mutates_args=())
    def mulexp(x: Tensor, y: Tensor, k: float) -> Tensor:
        return numtorch.from_numpy(np.exp(x.numpy(force=True) * y.numpy(force=True) * k))

    def setup_context(ctx, inputs, output):
        x, y, k = inputs
        ctx.save_for_backward(x, y, output)
        ctx.k = k

    def backward(ctx, g):
        x, y, out = ctx.saved_tensors
        return g * out * y * ctx.k, g * out * x * ctx.k, None

    mulexp.register_autograd(backward, setup_context=setup_context)
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.randn(4, dtype=numtorch.float64)
    r = mulexp(x.exp(), y, 0.5)  # a non-leaf input: its edge is the exp node
    assert r.requires_grad and r.grad_fn.next_functions[0][0] is not None
    assert r.grad_fn.next_functions[1] == (None, 0)
    assert r.grad_fn.needs_input_grad[:3] == (True, False, False)
    r.sum().backward()
    ex = np.exp(x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), np.exp(ex * y.numpy() * 0.5) * y.numpy() * 0.5 * ex)
    yg = y.clone().requires_grad_()
    assert gradcheck(lambda a, b: mulexp(a, b, 0.5), (x.detach().clone().requires_grad_(), yg))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out = mulexp(x, y, 1.0)
        out.add_(1)
        out.sum().backward()


def test_from_numpy_fast_path_keeps_the_checks():
    a = np.arange(4.0)
    t = numtorch.from_numpy(a)
    a[0] = 7.0
    assert t[0].item() == 7.0 and t.dtype == numtorch.float64
    with pytest.raises(ValueError, match="negative"):
        numtorch.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        numtorch.from_numpy(np.arange(4.0).astype(">f8"))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        numtorch.from_numpy(ro)
    with pytest.raises(TypeError, match="numpy.longdouble. The only supported types are: .*uint64, uint32, uint16"):
        numtorch.from_numpy(np.zeros(2, np.longdouble))
    assert numtorch.from_numpy(np.zeros(2, np.uint16)).dtype == numtorch.uint16  # as PyTorch 2.3+
