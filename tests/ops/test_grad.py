"""gradcheck and gradgradcheck in float64 over every differentiable OpInfo."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing._opinfo import op_db

from ._harness import to_nt

GRAD_OPS = [i for i in op_db if i.grad and "float64" in i.dtypes]


def _is_diff(a):
    return isinstance(a, np.ndarray) and a.dtype == np.float64


def _inputs(s):
    """The arrays of ``s.input``: itself, each array of a tensor list (cat, stack), or none (einsum's
    equation string)."""
    if isinstance(s.input, (list, tuple)):
        return list(s.input)
    return [s.input] if isinstance(s.input, np.ndarray) else []


def _leaves(s):
    """The float64 arrays gradcheck perturbs: the input's and the float64 array arguments."""
    return [a for a in _inputs(s) if _is_diff(a)] + [a for a in s.args if _is_diff(a)]


def _samples(info, rng):
    out = []
    for s in info.sample_inputs("float64", rng):
        # each dual / finite-difference pass costs one call per input element: keep inputs small
        main = _inputs(s) if _inputs(s) else [a for a in s.args if isinstance(a, np.ndarray)]
        if not main or not all(_is_diff(a) and 0 < a.size <= 40 for a in main):
            continue
        out.append(s)
    return out[:4]


def _closure(info, s):
    """A function of the differentiable (float64 array) arguments only; the rest is fixed."""
    fn = info.resolve()
    nts = [to_nt(a.copy()).requires_grad_(True) for a in _leaves(s)]

    def f(*ts):
        it = iter(ts)
        if isinstance(s.input, (list, tuple)):
            x = type(s.input)(next(it) for _ in s.input)
        else:
            x = next(it) if isinstance(s.input, np.ndarray) else s.input
        args = [next(it) if _is_diff(a) else to_nt(a) for a in s.args]
        return fn(x, *args, **to_nt(s.kwargs))

    return f, nts


def _grad_samples(info, rng):
    return _samples(info, rng)


def _gradgrad_samples(info, rng):
    return _samples(info, rng)[:2]


def _jvp_samples(info, rng):
    """Small samples for the forward-mode sweep (each costs one dual pass per input element)."""
    small = [s for s in _samples(info, rng) if sum(a.size for a in _inputs(s) or _leaves(s)) <= 12]
    return small[:2] or _samples(info, rng)[:1]


# property -> (skip keys, whether the entry has it, the samples it checks)
_PROPERTIES = {
    "grad": (("grad",), lambda i: True, _grad_samples),
    "gradgrad": (("gradgrad",), lambda i: i.gradgrad, _gradgrad_samples),
    "jvp": (("grad", "fwgrad"), lambda i: True, _jvp_samples),
}


def _skip_reason(info, prop):
    return next((info.skips[k] for k in _PROPERTIES[prop][0] if k in info.skips), None)


def _check(info, prop, rng, **kw):
    reason = _skip_reason(info, prop)
    if reason is not None:
        pytest.skip(reason)
    samples = _PROPERTIES[prop][2](info, rng)
    assert samples, f"no sample of {info.name} is small enough for the {prop} check"
    check = gradgradcheck if prop == "gradgrad" else gradcheck
    for s in samples:
        f, nts = _closure(info, s)
        assert check(f, tuple(nts), eps=1e-6, atol=1e-5, rtol=1e-3, **kw)


@pytest.mark.parametrize("info", GRAD_OPS, ids=lambda i: i.name)
def test_grad_matches_finite_differences(info, rng):
    _check(info, "grad", rng)


@pytest.mark.parametrize("info", [i for i in GRAD_OPS if i.gradgrad], ids=lambda i: i.name)
def test_gradgrad_matches_finite_differences(info, rng):
    _check(info, "gradgrad", rng)


@pytest.mark.parametrize("info", GRAD_OPS, ids=lambda i: i.name)
def test_jvp_matches_finite_differences(info, rng):
    """Forward mode: the JVP of every differentiable op, column by column, vs central differences."""
    _check(info, "jvp", rng, check_forward_ad=True, check_backward_ad=False)


def test_every_differentiable_op_has_checked_samples_in_each_grad_property(rng):
    """A differentiable entry either names why a property is skipped or has a sample it checks:
    an entry whose samples the size filter drops would otherwise pass without running."""
    empty = [
        f"{info.name}: {prop}"
        for info in GRAD_OPS
        for prop, (_, has, samples) in _PROPERTIES.items()
        if has(info) and _skip_reason(info, prop) is None and not samples(info, rng)
    ]
    assert not empty, "no checked sample: " + ", ".join(empty)


def test_gradcheck_detects_a_wrong_derivative():
    class Wrong(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    x = numtorch.tensor([0.5, 1.5], dtype=numtorch.float64, requires_grad=True)
    with pytest.raises(numtorch.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False
