"""Custom autograd.Function: every example of the note's autograd section, and the ctx API."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

import numtorch
from numtorch.autograd import Function, gradcheck, gradgradcheck, once_differentiable

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "extending_autograd.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("extending_autograd", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ex = _load_example()


def d(*shape):
    return numtorch.randn(*shape, dtype=numtorch.float64, requires_grad=True)


def test_note_example_script_runs_and_prints_true(capsys):
    ex.main()
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "True"
    assert "LinearFunctionBackward" in out


def test_linear_function_gradients_and_grad_fn_name():
    x, w, b = d(4, 3), d(2, 3), d(2)
    out = ex.linear(x, w, b)
    assert out.grad_fn.name() == "LinearFunctionBackward"
    assert "grad_fn=<LinearFunctionBackward>" in repr(out)
    assert gradcheck(ex.linear, (x, w, b), eps=1e-6, atol=1e-4)
    assert gradcheck(ex.LinearFunctionCombined.apply, (x, w, b), eps=1e-6, atol=1e-4)
    assert gradcheck(ex.linear, (x, w), eps=1e-6, atol=1e-4)


def test_needs_input_grad_and_none_for_non_tensor_args():
    seen = {}

    class F(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["needs"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a, b = d(2), numtorch.randn(2, dtype=numtorch.float64)
    F.apply(a, b, 3.0).sum().backward()
    assert seen["needs"] == (True, False, False)


def test_inputs_are_seen_without_history_inside_forward():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            y = a * 2
            assert y.grad_fn is None and not numtorch.is_grad_enabled()
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    F.apply(d(2)).sum().backward()


def test_mycube_double_backward():
    x = d(3)
    assert gradgradcheck(ex.my_cube, (x,))


def test_wrong_number_of_gradients_names_the_function():
    class Two(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return (g,)

    with pytest.raises(RuntimeError, match=r"function TwoBackward returned an incorrect number of gradients \(expected 2, got 1\)"):
        Two.apply(d(2), d(2)).sum().backward()


def test_extra_trailing_none_gradients_are_accepted():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a = d(2)
    F.apply(a).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_gradient_of_wrong_shape_raises_naming_the_function():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return numtorch.ones(5, dtype=numtorch.float64)

    with pytest.raises(RuntimeError, match=r"Function BadBackward returned an invalid gradient at index 0 - got \[5\] but expected shape compatible with \[2\]"):
        Bad.apply(d(2)).sum().backward()


def test_mark_non_differentiable_and_integer_outputs():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            idx = numtorch.tensor([0, 1])
            c = a * 2
            ctx.mark_non_differentiable(c)
            return a * 3, c, idx

        @staticmethod
        def backward(ctx, g, gc, gi):
            return g * 3

    y, c, idx = F.apply(d(2))
    assert y.requires_grad and not c.requires_grad and not idx.requires_grad


def test_mark_dirty_inplace_forward():
    class AddOne(Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = d(2)
    y = x * 1
    z = AddOne.apply(y)
    assert z is y and z.grad_fn.name() == "AddOneBackward"
    z.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_set_materialize_grads_false_passes_none():
    got = {}

    class F(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got["g2"] = g2
            return g1

    a = d(2)
    y1, _ = F.apply(a)
    y1.sum().backward()
    assert got["g2"] is None


def test_once_differentiable_raises_on_double_backward():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2 * a

    a = d(2)
    # the incoming gradient requires grad, so the result is part of a graph (as in PyTorch)
    go = numtorch.ones(2, dtype=numtorch.float64, requires_grad=True)
    (g,) = numtorch.autograd.grad(F.apply(a), a, go, create_graph=True)
    assert g.grad_fn.name() == "Error"
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with @once_differentiable"):
        g.sum().backward()


def test_vjp_is_an_alias_of_backward():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    a = d(2)
    F.apply(a).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_apply_with_keyword_arguments_through_setup_context_style():
    class F(Function):
        @staticmethod
        def forward(a, scale=2.0):
            return a * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None

    a = d(2)
    F.apply(a, scale=5.0).sum().backward()
    assert a.grad.tolist() == [5.0, 5.0]


class _Ident(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


class _FirstHalf(Function):
    @staticmethod
    def forward(ctx, x):
        return x[:1]

    @staticmethod
    def backward(ctx, g):
        return numtorch.cat([g, numtorch.zeros(1, dtype=g.dtype)]) * 5


class _Halves(Function):
    @staticmethod
    def forward(ctx, x):
        return x[:1], x[1:]

    @staticmethod
    def backward(ctx, g, h):
        return numtorch.cat([g, h])


def test_an_input_returned_as_is_comes_back_as_a_view_with_the_functions_history():
    x = d(2)
    o = _Ident.apply(x)
    assert o is not x and o._base is x and type(o.grad_fn).__name__ == "_IdentBackward"
    o.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    z = numtorch.ones(2)  # no input requires grad: still a new view, as in PyTorch
    oz = _Ident.apply(z)
    assert oz is not z and oz._base is z and not oz.requires_grad


def test_a_view_of_an_input_keeps_the_custom_backward():
    x = d(2)
    o = _FirstHalf.apply(x)
    assert o._base is x and o.requires_grad and not o.is_leaf
    assert type(o.grad_fn).__name__ == "_FirstHalfBackward"
    o.sum().backward()
    assert x.grad.tolist() == [5.0, 0.0]


def test_inplace_on_a_view_output_of_a_function_is_refused():
    with pytest.raises(RuntimeError, match=r"Output 0 of _Ident is a view and is being modified inplace\. "
                       r"This view was created inside a custom Function \(or because an input was returned as-is\)"):
        _Ident.apply(d(2).clone()).mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of _FirstHalf is a view and is being modified inplace"):
        _FirstHalf.apply(d(2).clone()).mul_(2)
    with pytest.raises(RuntimeError, match="Output 1 of _Halves is a view and is being modified inplace. This view "
                       "is the output of a function that returns multiple views"):
        _Halves.apply(d(2).clone())[1].add_(1)
    o = _Ident.apply(d(2).clone())
    with numtorch.no_grad():  # allowed without recording, as in PyTorch
        o.mul_(2)
    free = _Ident.apply(numtorch.ones(2))
    free.mul_(2)  # nothing requires grad: allowed
    assert free.tolist() == [2.0, 2.0]


def test_gradient_of_another_dtype_is_cast_and_a_complex_one_for_a_real_input_raises():
    class ToFloat(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.to(numtorch.float32)

    class ToComplex(ToFloat):
        @staticmethod
        def backward(ctx, g):
            return g.to(numtorch.complex128)

    x = d(2)
    ToFloat.apply(x).sum().backward()
    assert x.grad.dtype == numtorch.float64 and x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"Expected isFloatingType\(grad.scalar_type\(\)\) \|\| "
                       r"\(input_is_complex == grad_is_complex\) to be true, but got false"):
        ToComplex.apply(d(2)).sum().backward()
