"""A setup_context-style autograd.Function binds apply's arguments to forward's signature
(PyTorch's bind_default_args); the signature is looked up once per forward function, and a call
passing plain parameters positionally takes its arguments and forward's trailing defaults."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import function as F


def _scaled(default_scale=2.0, with_tensor_default=False):
    tensor_default = torch.ones(3) if with_tensor_default else None

    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(x, y, scale=default_scale, shift=tensor_default):
            out = x * y * scale
            return out if shift is None else out + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale, shift = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * ctx.scale, g * x * ctx.scale, None, None

    return Scaled


@pytest.mark.parametrize("call", ["all", "defaults", "keyword", "mixed"])
def test_values_and_gradients_match_the_bound_call(call):
    Scaled = _scaled()
    x = torch.tensor([1.0, -2.0, 3.5], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.5, 4.0, -1.0], dtype=torch.float64)
    out = {
        "all": lambda: Scaled.apply(x, y, 3.0, None),
        "defaults": lambda: Scaled.apply(x, y),
        "keyword": lambda: Scaled.apply(x, y, scale=3.0),
        "mixed": lambda: Scaled.apply(x, y=y, scale=3.0),
    }[call]()
    scale = 2.0 if call == "defaults" else 3.0
    np.testing.assert_array_equal(out.detach().numpy(), x.detach().numpy() * y.numpy() * scale)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy() * scale)
    assert torch.autograd.gradcheck(lambda a: Scaled.apply(a, y), (x,))


def test_signature_is_looked_up_once_per_forward(monkeypatch):
    Scaled = _scaled()
    calls = []
    real = inspect.signature
    monkeypatch.setattr(F.inspect, "signature", lambda fn: calls.append(fn) or real(fn))
    x = torch.ones(3, requires_grad=True)
    for _ in range(3):
        Scaled.apply(x, x)
        Scaled.apply(x, x, 1.5, None)
        Scaled.apply(x, x, scale=1.5)
    assert calls == [Scaled.forward]


def test_a_tensor_default_is_passed_and_not_compared():
    Scaled = _scaled(with_tensor_default=True)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = Scaled.apply(x, x)
    np.testing.assert_array_equal(out.detach().numpy(), np.array([1.0, 4.0, 9.0]) * 2 + 1)


def test_a_missing_or_extra_argument_raises_pythons_error():
    Scaled = _scaled()
    x = torch.ones(3)

    def forward(x, y, scale=2.0, shift=None):
        pass

    for args in [(x,), (x, x, 1.0, None, 5)]:
        with pytest.raises(TypeError) as want:
            inspect.signature(forward).bind(*args)
        with pytest.raises(TypeError, match=str(want.value).replace("(", r"\(").replace(")", r"\)")):
            Scaled.apply(*args)


def test_var_positional_forward_binds_through_the_signature():
    class Summed(torch.autograd.Function):
        @staticmethod
        def forward(*xs):
            return sum(xs[1:], xs[0] * 1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.n = len(inputs)

        @staticmethod
        def backward(ctx, g):
            return (g,) * ctx.n

    a = torch.ones(2, requires_grad=True)
    out = Summed.apply(a, a, a)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
