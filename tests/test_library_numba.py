"""Numba functions registered directly as custom ops' CPU kernels (Note [Numba kernels as op
kernels]): the returning form (``custom_op`` on an ``@njit`` function) and the form that takes
its outputs as parameters (allocated from the op's fake function)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch import Tensor
from numtorch.autograd import gradcheck
from numtorch.kernels._jit import kernel
from numtorch.library import CustomOpDef, custom_op, opcheck
from numtorch.utils._python_dispatch import TorchDispatchMode

_COUNTER = [0]


def _ns() -> str:
    _COUNTER[0] += 1
    return f"libnumba{_COUNTER[0]}"


@kernel
def _scale_ret(x, k):
    out = np.empty_like(x)
    for i in range(x.size):
        out.flat[i] = math.sin(x.flat[i]) * k
    return out


@kernel
def _sin_out(x, out):
    for i in range(x.size):
        out.flat[i] = math.sin(x.flat[i])


@kernel
def _split_ret(xs, dtype, dims):
    # a Tensor[] arrives as a tuple of arrays, a dtype as NumPy's, an int[] as a tuple
    a = xs[0] + xs[1]
    return a.astype(dtype), np.full(dims, a.size, dtype)


@kernel
def _total(x):
    return x.sum()  # a Python float for a Tensor output: a 0-d tensor


@kernel
def _add_one_(x):
    for i in range(x.size):
        x.flat[i] += 1.0


@kernel
def _typing_bad(x):
    return x.nonexistent_attribute


def _scale_op(ns):
    op = custom_op(f"{ns}::scale", _scale_ret, mutates_args=(), schema="(Tensor x, float k) -> Tensor")

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * ctx.k, None

    op.register_autograd(backward, setup_context=setup_context)
    op.register_fake(lambda x, k: numtorch.empty_like(x))
    return op


def _out_op(ns, fake=None):
    numtorch.library.define(f"{ns}::sin", "(Tensor x) -> Tensor")
    calls = []

    def default_fake(x):
        calls.append(tuple(x.shape))
        return x.new_empty(x.shape)

    numtorch.library.register_fake(f"{ns}::sin", fake or default_fake)
    numtorch.library.register_kernel(f"{ns}::sin", "cpu", _sin_out)
    return numtorch.library._custom_def(f"{ns}::sin"), calls


def test_njit_function_is_the_kernel_values_strides_and_dtypes():
    op = _scale_op(_ns())
    assert isinstance(op, CustomOpDef) and type(op) is not CustomOpDef  # the generated call
    assert str(op._opoverload._schema).endswith("(Tensor x, float k) -> Tensor")
    x = numtorch.randn(3, 4, dtype=numtorch.float64)
    for t in (x, x.t()):  # contiguous and strided inputs, fast and general routes
        for r in (op(t, 2.0), op(t, k=2.0)):
            np.testing.assert_allclose(r.numpy(), np.sin(t.numpy()) * 2.0)
            assert r.shape == t.shape and r.dtype == numtorch.float64
    assert op(x.float(), 1.0).dtype == numtorch.float32
    y = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda t: op(t, 1.5), (y,))
    assert op(y, 1.5).grad_fn is not None


def test_custom_op_decorates_an_annotated_njit_function():
    ns = _ns()

    def neg(x: Tensor, k: int = 1) -> Tensor:
        return -x * k

    op = custom_op(f"{ns}::neg", kernel(neg), mutates_args=())
    assert str(op._opoverload._schema) == f"{ns}::neg(Tensor x, SymInt k=1) -> Tensor"
    np.testing.assert_array_equal(op(numtorch.arange(3.0)).numpy(), [-0.0, -1.0, -2.0])
    np.testing.assert_array_equal(op(numtorch.arange(3.0), 2).numpy(), [-0.0, -2.0, -4.0])


def test_outputs_as_parameters_allocated_from_the_fake_once_per_metadata():
    op, calls = _out_op(_ns())
    x = numtorch.randn(5, dtype=numtorch.float64)
    for _ in range(3):
        np.testing.assert_allclose(op(x).numpy(), np.sin(x.numpy()))
    assert calls == [(5,)]  # learned: the fake ran once for this shape
    z = numtorch.randn(2, 3, dtype=numtorch.float32)
    r = op(z)
    assert r.dtype == numtorch.float32 and calls == [(5,), (2, 3)]
    np.testing.assert_allclose(r.numpy(), np.sin(z.numpy()), rtol=1e-6)
    out = op(z)  # a fresh output each call
    assert not np.shares_memory(out.numpy(), r.numpy())
    assert all(v == "SUCCESS" for v in opcheck(op, (x,)).values())
    op.register_fake(lambda x: x.new_empty(x.shape, dtype=numtorch.float32))  # plans start over
    assert op(x).dtype == numtorch.float32


def test_outputs_follow_the_fakes_strides():
    ns = _ns()
    op, _ = _out_op(ns, fake=lambda x: x.new_empty((x.shape[1], x.shape[0])).t())  # column-major
    x = numtorch.randn(3, 4, dtype=numtorch.float64)
    r = op(x)
    assert r.stride() == (1, 3)
    np.testing.assert_allclose(r.numpy(), np.sin(x.numpy()))


def test_out_kernel_without_fake_and_bad_parameter_count():
    ns = _ns()
    numtorch.library.define(f"{ns}::sin", "(Tensor x) -> Tensor")
    numtorch.library.register_kernel(f"{ns}::sin", "cpu", _sin_out)
    with pytest.raises(RuntimeError, match=rf"{ns}::sin: the Numba kernel '_sin_out' takes its outputs as parameters; register a fake"):
        getattr(numtorch.ops, ns).sin(numtorch.ones(2))
    numtorch.library.define(f"{ns}::two", "(Tensor x, Tensor y, Tensor z) -> Tensor")
    with pytest.raises(TypeError, match=rf"{ns}::two: the Numba kernel '_sin_out' takes 2 parameters; the op's schema has 3"):
        numtorch.library.register_kernel(f"{ns}::two", "cpu", _sin_out)
    with pytest.raises(ValueError, match="a Numba CPU function can only be the 'cpu' kernel"):
        custom_op(f"{ns}::cu", _scale_ret, mutates_args=(), device_types="cuda", schema="(Tensor x, float k) -> Tensor")


def test_typing_error_names_the_op_kernel_and_dtypes():
    ns = _ns()
    op = custom_op(f"{ns}::bad", _typing_bad, mutates_args=(), schema="(Tensor x) -> Tensor")
    msg = rf"{ns}::bad: the Numba kernel '_typing_bad' failed to compile for arguments \(torch.float32\[2\]\): Unknown attribute"
    with pytest.raises(RuntimeError, match=msg):
        op(numtorch.ones(2))  # the generated call
    with pytest.raises(RuntimeError, match=msg):
        op(x=numtorch.ones(2))  # the full route
    with pytest.raises(RuntimeError, match=msg):
        getattr(numtorch.ops, ns).bad(numtorch.ones(2))  # the overload packet


def test_typing_error_in_a_python_kernel_body_names_the_op():
    ns = _ns()

    @custom_op(f"{ns}::body", mutates_args=())
    def body(x: Tensor) -> Tensor:
        a = x.numpy(force=True)
        return numtorch.from_numpy(_typing_bad(a))

    msg = (rf"{ns}::body: the kernel 'body' failed: a Numba function it calls did not compile for the op's "
           r"arguments \(torch.float64\[3\]\): Unknown attribute")  # fmt: skip
    x = numtorch.ones(3, dtype=numtorch.float64)
    packet = getattr(numtorch.ops, ns).body
    for call in (lambda: body(x), lambda: body(x=x), lambda: packet.default(x), lambda: packet(x)):
        with pytest.raises(RuntimeError, match=msg):
            call()
    body.register_kernel("cpu", lambda x: x.new_ones(bad=1))
    with pytest.raises(TypeError, match="new_ones"):  # other errors pass through as they are
        body(x)


def test_lists_dtypes_multiple_outputs_and_mutation():
    ns = _ns()
    op = custom_op(f"{ns}::split", _split_ret, mutates_args=(),
                   schema="(Tensor[] xs, ScalarType dtype, int[] dims) -> (Tensor, Tensor)")  # fmt: skip
    a, b = op([numtorch.ones(3), numtorch.ones(3)], numtorch.int64, [2, 2])
    assert a.dtype == numtorch.int64 and a.tolist() == [2, 2, 2]
    assert b.dtype == numtorch.int64 and b.tolist() == [[3, 3], [3, 3]]
    tot = custom_op(f"{ns}::total", _total, mutates_args=(), schema="(Tensor x) -> Tensor")
    r = tot(numtorch.arange(4.0, dtype=numtorch.float64))
    assert r.shape == () and r.dtype == numtorch.float64 and r.item() == 6.0
    inc = custom_op(f"{ns}::inc_", _add_one_, mutates_args=("x",), schema="(Tensor(a!) x) -> ()")
    x = numtorch.zeros(2, dtype=numtorch.float64)
    v = x._version
    assert inc(x) is None
    assert x.tolist() == [1.0, 1.0] and x._version == v + 1


def test_modes_and_meta_device_see_numba_ops():
    ns = _ns()
    op, _ = _out_op(ns)
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = numtorch.randn(4, dtype=numtorch.float64)
    with Log():
        r = op(x)
    assert seen == [f"{ns}.sin.default"]
    np.testing.assert_allclose(r.numpy(), np.sin(x.numpy()))
    m = op(numtorch.empty(2, 3, device="meta"))
    assert m.is_meta and m.shape == (2, 3)


def test_outputs_as_parameters_record_autograd():
    ns = _ns()
    op, _ = _out_op(ns)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)  # an input and the output (saved without a cycle)

    def backward(ctx, g):
        x, out = ctx.saved_tensors
        np.testing.assert_allclose(out.detach().numpy(), np.sin(x.detach().numpy()))
        return g * x.cos()

    op.register_autograd(backward, setup_context=setup_context)
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    r = op(x)
    assert type(r.grad_fn).__name__.startswith(f"GeneratedBackwardFor_{ns}_sin_default")
    r.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()))
    assert gradcheck(op, (x,))
    with numtorch.no_grad():
        assert op(x).grad_fn is None


def test_module_level_helpers_get_ctx_vmap_torch_dispatch_and_tags():
    # the module-level spellings not covered elsewhere: impl_abstract + get_ctx, register_vmap,
    # register_torch_dispatch; Library kinds; an out-tagged op refuses autograd as PyTorch does
    ns = _ns()
    numtorch.library.define(f"{ns}::sin", "(Tensor x) -> Tensor")
    numtorch.library.register_kernel(f"{ns}::sin", "cpu", _sin_out)
    seen = []

    @numtorch.library.impl_abstract(f"{ns}::sin")
    def _(x):
        ctx = numtorch.library.get_ctx()
        seen.append(type(ctx).__name__)
        with pytest.raises(NotImplementedError, match="symbolic shapes"):
            ctx.new_dynamic_size()
        return x.new_empty(x.shape)

    op = getattr(numtorch.ops, ns).sin.default
    x = numtorch.randn(3, 2, dtype=numtorch.float64)
    np.testing.assert_allclose(op(x).numpy(), np.sin(x.numpy()))
    assert seen == ["FakeImplCtx"]

    def rule(info, in_dims, x):
        seen.append(("vmap", info.batch_size, in_dims))
        return op(x), in_dims[0]

    numtorch.library.register_vmap(f"{ns}::sin", rule)
    r = numtorch.func.vmap(op)(x)
    np.testing.assert_allclose(r.numpy(), np.sin(x.numpy()))
    assert seen[-1] == ("vmap", 3, (0,))

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise AssertionError("the registered handler runs instead")

    sentinel = numtorch.zeros(3, 2, dtype=numtorch.float64)
    numtorch.library.register_torch_dispatch(f"{ns}::sin", Log, lambda mode, func, types, args, kwargs: sentinel)
    with Log():
        assert op(x) is sentinel

    with pytest.raises(RuntimeError, match="define\\(\\) is not allowed on a Library of kind IMPL"):
        numtorch.library.Library(ns, "IMPL").define("f(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="Unsupported kind"):
        numtorch.library.Library(ns, "BAD")
    numtorch.library.define(f"{ns}::sin_out", "(Tensor x, *, Tensor(a!) out) -> Tensor(a!)", tags=numtorch.Tag.out)
    assert numtorch.Tag.out in getattr(numtorch.ops, ns).sin_out.default.tags
    with pytest.raises(RuntimeError, match="Cannot register autograd formula for operator tagged with torch.Tag.out"):
        numtorch.library.register_autograd(f"{ns}::sin_out", lambda ctx, g: g)


def test_custom_op_numba_example_runs_to_its_end(capsys):
    # examples/custom_op_numba.py checks its own ops (values, gradcheck, opcheck) as it runs
    import pathlib
    import runpy

    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "custom_op_numba.py"
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert "bias_gelu: values, gradcheck and opcheck ok" in out
    assert "logsumexp from a combine function: values, gradcheck and gradgradcheck ok" in out
