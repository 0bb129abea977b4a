"""Autograd regressions found by differential fuzzing against PyTorch (issue 10)."""

import numpy as np
import pytest

import numtorch
import numtorch.autograd.forward_ad as fwAD
from numtorch.autograd import Function, gradcheck
from numtorch.autograd.gradcheck import GradcheckError


class _SquareWithoutConj(Function):
    """z**2 whose backward forgets PyTorch's conjugate: right for real inputs only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


class _RealPartWrongImag(Function):
    """z -> z with a backward that drops the imaginary part of the gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return numtorch.complex(g.real, numtorch.zeros_like(g.real))


def _z():
    return numtorch.tensor([1 + 2j, 0.5 - 1j], dtype=numtorch.complex128, requires_grad=True)


@pytest.mark.parametrize("fn", [_SquareWithoutConj.apply, _RealPartWrongImag.apply])
def test_gradcheck_fails_wrong_complex_gradient(fn):
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(fn, (_z(),))
    assert gradcheck(fn, (_z(),), raise_exception=False) is False


def test_gradcheck_names_the_imaginary_output_part():
    x = numtorch.tensor([1.0, 2.0], dtype=numtorch.float64, requires_grad=True)

    class ImagWrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * (1 + 2j)

        @staticmethod
        def backward(ctx, g):
            return g.real  # loses the 2j part: d Im(out)/dx is wrong

    with pytest.raises(GradcheckError, match="grad output = 1j"):
        gradcheck(ImagWrong.apply, (x,))


@pytest.mark.parametrize("fn", [lambda t: t * t, lambda t: t.abs(), lambda t: t.conj(),
                                lambda t: t.real, numtorch.exp, lambda t: (t * t.conj()).sum(),
                                lambda t: numtorch.view_as_real(t)])  # fmt: skip
def test_gradcheck_passes_right_complex_gradients(fn):
    assert gradcheck(fn, (_z(),), check_forward_ad=True)


@pytest.mark.parametrize("fn,want", [(lambda t: t * t, lambda z, t: 2 * z * t),
                                     (numtorch.exp, lambda z, t: np.exp(z) * t),
                                     (lambda t: t.conj(), lambda z, t: np.conj(t))])  # fmt: skip
def test_forward_ad_complex_tangent_is_not_conjugated(fn, want):
    z, t = np.array([1 + 2j]), np.array([1j])
    with fwAD.dual_level():
        d = fwAD.make_dual(numtorch.tensor(z), numtorch.tensor(t))
        got = fwAD.unpack_dual(fn(d)).tangent
    np.testing.assert_allclose(got.numpy(), want(z, t))


class _MulTwoInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, g):
        return g * 2

    @staticmethod
    def jvp(ctx, t):
        return t.mul_(2)


def test_mark_dirty_with_in_place_jvp_applies_the_tangent_once():
    with fwAD.dual_level():
        x = fwAD.make_dual(numtorch.tensor([1.0, 2.0]), numtorch.tensor([3.0, 4.0]))
        y = _MulTwoInPlace.apply(x)
        assert fwAD.unpack_dual(y).tangent.tolist() == [6.0, 8.0]
        assert fwAD.unpack_dual(y).primal.tolist() == [2.0, 4.0]


def test_grad_with_too_few_grad_outputs_names_the_counts():
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
        numtorch.autograd.grad([y, y * 3], [x], [numtorch.ones(2)])


def test_complex_scalar_backward_needs_a_gradient():
    x = numtorch.tensor(1 + 1j, requires_grad=True)
    msg = "^grad can be implicitly created only for real scalar outputs but got torch.complex64$"
    with pytest.raises(RuntimeError, match=msg):
        (x * x).backward()
    with pytest.raises(RuntimeError, match=msg):
        numtorch.autograd.grad(x * x, x)
    (x * x).backward(numtorch.tensor(1 + 0j))
    assert x.grad.item() == 2 - 2j


@pytest.mark.parametrize("leaf", [False, True])
def test_hooks_may_not_change_dtype_or_size(leaf):
    for hook, msg in [(lambda g: g.double(), r"hook '<lambda>' has changed the type of value \(was "
                       r"torch.FloatTensor got torch.DoubleTensor\)"),
                      (lambda g: g[:1], "hook '<lambda>' has changed the size of value")]:  # fmt: skip
        x = numtorch.ones(2, requires_grad=True)
        y = x * 2
        (x if leaf else y).register_hook(hook)
        with pytest.raises(RuntimeError, match=msg):
            y.sum().backward()


def test_complex_records_a_gradient():
    a = numtorch.tensor([1.0, 2.0], dtype=numtorch.float64, requires_grad=True)
    b = numtorch.tensor([0.5, -1.0], dtype=numtorch.float64, requires_grad=True)
    c = numtorch.complex(a, b)
    assert c.requires_grad and type(c.grad_fn).__name__ == "ComplexBackward0"
    c.abs().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [1 / 1.25**0.5, 2 / 5**0.5])
    np.testing.assert_allclose(b.grad.numpy(), [0.5 / 1.25**0.5, -1 / 5**0.5])
    assert gradcheck(lambda x, y: numtorch.complex(x, y).exp(), (a, b), check_forward_ad=True)


@pytest.mark.parametrize("fn,grad", [
    (lambda x: x + 1, [2.0, 2.0]),
    (lambda x: x.clone(), [2.0, 2.0]),
    (lambda x: -x, [-2.0, -2.0]),
    # ToCopyBackward0 keeps self's dtype and device, not self (Note [Saving sizes only])
    (lambda x: x.double(), [2.0, 2.0]),
    (lambda x: x.to(numtorch.complex64), [2.0, 2.0]),
])  # fmt: skip
def test_second_backward_through_a_graph_that_saved_no_tensor(fn, grad):
    # PyTorch frees saved tensors only: a graph that saved none can be walked again
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    y = fn(x)
    y.backward(numtorch.ones_like(y))
    y.backward(numtorch.ones_like(y))
    np.testing.assert_array_equal(x.grad.numpy(), grad)


def test_second_backward_through_to_under_a_dispatch_mode():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    class Passthrough(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    with Passthrough():
        y = x.double()
        y.backward(numtorch.ones_like(y))
        y.backward(numtorch.ones_like(y))
    assert x.grad.dtype == numtorch.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("fn", [lambda x: x * 2, lambda x: x.exp(), lambda x: x * x])
def test_second_backward_after_freeing_a_saved_tensor_raises(fn):
    # x * 2 saves the wrapped number 2 as a tensor in PyTorch: freed too
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    y = fn(x)
    y.backward(numtorch.ones_like(y))
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward(numtorch.ones_like(y))


def test_backward_counts_gradients_after_pairing_them():
    x = numtorch.tensor(2.0, requires_grad=True)
    for grads, n in (([], 0), ([numtorch.tensor(1.0)], 1)):
        with pytest.raises(RuntimeError, match=f"^got 2 tensors and {n} gradients$"):
            numtorch.autograd.backward([x * 2, x * 3], grads)
    numtorch.autograd.backward([x * 2], [numtorch.tensor(1.0), numtorch.tensor(1.0)])  # zip: extra ignored
    assert x.grad.item() == 2.0
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        numtorch.autograd.backward([numtorch.tensor([1, 2])])


_SIZES_ONLY = {  # ops whose backward needs the input's shape alone (Note [Saving sizes only])
    "sum": lambda a: a.sum(),
    "sum_dim": lambda a: a.sum(1, keepdim=True),
    "mean": lambda a: a.mean(0),
    "expand": lambda a: a[:1].expand(4, 3),
    "view": lambda a: a.view(6),
    "reshape": lambda a: a.reshape(3, 2),
    "squeeze": lambda a: a[:1].squeeze(0),
    "select": lambda a: a[1],
    "slice": lambda a: a[:, 1:],
    "diagonal": lambda a: a.diagonal(),
    "unfold": lambda a: a.unfold(1, 2, 1),
}


@pytest.mark.parametrize("name", sorted(_SIZES_ONLY))
def test_shape_only_backward_saves_sizes_not_the_input(name):
    fn = _SIZES_ONLY[name]
    x = numtorch.arange(6.0, dtype=numtorch.float64).reshape(2, 3).requires_grad_()
    y = fn(x)  # a leaf's graph that saved sizes only can be walked twice, as in PyTorch
    y.backward(numtorch.ones_like(y))
    y.backward(numtorch.ones_like(y))
    want = x.grad.clone()
    a = x * 1
    y = fn(a)
    a.mul_(3)  # the input changes after the op: its shape is all backward reads
    y.backward(numtorch.ones_like(y))
    np.testing.assert_array_equal((x.grad - want).numpy(), want.numpy() / 2)
    assert numtorch.autograd.gradgradcheck(lambda t: fn(t * t), (x.detach().requires_grad_(),))
