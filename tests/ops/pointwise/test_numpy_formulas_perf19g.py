"""Note [Masked formulas in NumPy] and Note [Arithmetic of formulas in NumPy]: the backward
formulas of fmax/fmin, the clamp family, copysign, pow, float_power, sinc, asin, acos, atanh,
atan, asinh, tan, atan2, erf, erfc, logaddexp, logaddexp2 and special.i1/i1e run in NumPy
where nothing can tell them from their ops: the route is taken (spied on) and gives the op formulas' gradients byte for byte (the ops' run under
create_graph, where the gate declines), over dtypes, layouts, 0-d, empty and broadcast inputs
and the values where the masks matter; it declines where it must."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import _select_grad
from numtorch.utils._python_dispatch import TorchDispatchMode

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, -0.1, math.nan, math.inf, -math.inf, 2.0, 3.0]


@pytest.fixture
def count(monkeypatch):
    calls = []
    out = _select_grad._out

    def spy(a, grad):
        calls.append(1)
        return out(a, grad)

    monkeypatch.setattr(_select_grad, "_out", spy)
    return calls


def _vals(shape, dtype, lo=-3.0, hi=3.0, special=True, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(lo, hi, size=shape)
    if special and a.size:
        flat = a.reshape(-1)
        k = min(flat.size, len(_SPECIAL))
        flat[:k] = rng.permutation(_SPECIAL)[:k]
    return torch.tensor(a, dtype=dtype)


def _unit(shape, dtype, seed=0):
    # inside [-1, 1] (with its ends and 0) for asin / acos / atanh
    a = np.random.default_rng(seed).uniform(-0.99, 0.99, size=shape)
    if a.size:
        a.reshape(-1)[: min(a.size, 4)] = [0.0, -0.0, 1.0, -1.0][: min(a.size, 4)]
    return torch.tensor(a, dtype=dtype)


def _pos(shape, dtype, seed=0):
    a = np.random.default_rng(seed).uniform(0.0, 3.0, size=shape)
    if a.size:
        a.reshape(-1)[: min(a.size, 3)] = [0.0, 1.0, 0.5][: min(a.size, 3)]
    return torch.tensor(a, dtype=dtype)


# name -> (function of the inputs, input makers (shape, dtype, seed) -> tensor)
CASES = {
    "fmax": (torch.fmax, (_vals, _vals)),
    "fmin": (torch.fmin, (_vals, _vals)),
    "fmax_ties": (lambda a, b: torch.fmax(a, b), (_vals, lambda s, d, seed: _vals(s, d, seed=0))),
    "clamp_scalars": (lambda a: torch.clamp(a, -0.5, 0.1), (_vals,)),
    "clamp_min_only": (lambda a: torch.clamp(a, min=0.1), (_vals,)),
    "clamp_max_only": (lambda a: torch.clip(a, max=-0.1), (_vals,)),
    "clamp_int_bounds": (lambda a: torch.clamp(a, -1, 2), (_vals,)),
    "clamp_min_scalar": (lambda a: torch.clamp_min(a, 0.1), (_vals,)),
    "clamp_max_scalar": (lambda a: torch.clamp_max(a, 0.1), (_vals,)),
    "clamp_tensors": (torch.clamp, (_vals, _vals, _vals)),
    "clamp_min_tensor": (torch.clamp_min, (_vals, _vals)),
    "clamp_max_tensor": (torch.clamp_max, (_vals, _vals)),
    "clamp_tensor_min_only": (lambda a, b: torch.clamp(a, min=b), (_vals, _vals)),
    "clamp_tensor_max_only": (lambda a, b: torch.clamp(a, max=b), (_vals, _vals)),
    "copysign": (torch.copysign, (_vals, _vals)),
    "copysign_scalar": (lambda a: torch.copysign(a, -1.5), (_vals,)),
    "pow": (torch.pow, (_pos, _vals)),
    "pow_scalar": (lambda a: torch.pow(a, 2.5), (_vals,)),
    "pow_scalar_tenth": (lambda a: torch.pow(a, 0.1), (_pos,)),
    "pow_scalar_int": (lambda a: a**3, (_vals,)),
    "square": (torch.square, (_vals,)),  # pow(self, 1) skipped: it is a copy
    "pow_two_float": (lambda a: torch.pow(a, 2.0), (_vals,)),
    "pow_number_base": (lambda b: torch.pow(2.5, b), (_vals,)),
    "float_power": (torch.float_power, (_pos, _vals)),
    "sinc": (torch.sinc, (_vals,)),
    "asin": (torch.asin, (_unit,)),
    "acos": (torch.acos, (_unit,)),
    "atanh": (torch.atanh, (_unit,)),
    "special_i1": (torch.special.i1, (_vals,)),
    "special_i1e": (torch.special.i1e, (_vals,)),
    "atan2": (torch.atan2, (_vals, _vals)),
    "logaddexp": (torch.logaddexp, (_vals, _vals)),
    "logaddexp2": (torch.logaddexp2, (_vals, _vals)),
    "tan": (torch.tan, (_vals,)),
    "atan": (torch.atan, (_vals,)),
    "asinh": (torch.asinh, (_vals,)),
    "erf": (torch.erf, (_vals,)),
    "erfc": (torch.erfc, (_vals,)),
}


def _inputs(name, shape, dtype, layout):
    fn, makers = CASES[name]
    xs = []
    for i, mk in enumerate(makers):
        if layout == "transposed" and len(shape) == 2:
            t = mk(shape[::-1], dtype, i).t()
        else:
            t = mk(shape, dtype, i)
        xs.append(t.requires_grad_())
    return fn, xs


def _grads(fn, xs, gout, create_graph):
    out = fn(*xs)
    g = torch.ones_like(out) if gout is None else gout
    return torch.autograd.grad(out, xs, g, create_graph=create_graph)


def _same(got, want):
    for a, b in zip(got, want, strict=True):
        b = b.detach()
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
        if a.dtype == torch.bfloat16:  # no NumPy bfloat16: widened exactly
            a, b = a.float(), b.float()
        assert a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "shape,layout", [((3, 4), "contiguous"), ((3, 4), "transposed"), ((), "0-d"), ((0, 3), "empty")]
)
def test_route_gives_the_op_formulas_bits(name, dtype, shape, layout, count):
    fn, xs = _inputs(name, shape, dtype, layout)
    for gout in (None, "random"):  # a sum's expanded gradient and a plain one
        if gout is not None:
            with torch.no_grad():
                gout = _vals(fn(*xs).shape, fn(*xs).dtype, special=False, seed=7)
        del count[:]
        got = _grads(fn, xs, gout, False)
        taken = len(count)
        want = _grads(fn, xs, gout, True)
        _same(got, want)
        if name != "pow_number_base":  # a number base: the ops
            assert taken >= 1, name
        else:
            assert taken == 0


@pytest.mark.parametrize("name", ["pow", "clamp_tensors", "fmax", "atan2", "logaddexp", "copysign"])
def test_broadcast_operand(name, count):
    fn, makers = CASES[name]
    xs = [
        mk((3, 4) if i == 0 else (4,), torch.float32, i).requires_grad_()
        for i, mk in enumerate(makers)
    ]
    got = _grads(fn, xs, None, False)
    assert count
    _same(got, _grads(fn, xs, None, True))
    assert got[1].shape == (4,)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    "name", ["fmax", "clamp_tensors", "copysign", "pow", "sinc", "asin", "atan2"]
)
def test_half_dtypes_take_the_ops(name, dtype, count):
    fn, xs = _inputs(name, (3, 4), dtype, "contiguous")
    got = _grads(fn, xs, None, False)
    assert not count
    _same(got, _grads(fn, xs, None, True))


@pytest.mark.parametrize("name", ["pow_scalar", "sinc", "asin", "atanh"])
def test_complex_takes_the_ops(name, count):
    fn, _ = CASES[name]
    n = len(CASES[name][1])
    xs = [
        torch.tensor([0.5 + 0.25j, -0.3 + 0.1j, 0.0j], dtype=torch.complex64).requires_grad_()
        for _ in range(n)
    ]
    got = _grads(fn, xs, None, False)
    assert not count
    _same(got, _grads(fn, xs, None, True))


def test_mixed_dtypes_take_the_ops(count):
    x = _vals((3, 4), torch.float32).requires_grad_()
    lo = _vals((3, 4), torch.float64, seed=1).requires_grad_()
    hi = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)  # 0-d: promotion keeps float32
    for fn in (
        lambda: torch.clamp(x, lo, hi),
        lambda: torch.clamp(x, max=hi),
        lambda: torch.fmax(x, lo),
    ):
        xs = [x, lo, hi]
        out = fn()
        used = [t for t in xs if t.grad_fn is None and t is not None]
        got = torch.autograd.grad(out, used, torch.ones_like(out), allow_unused=True)
        want = torch.autograd.grad(
            fn(), used, torch.ones_like(out), allow_unused=True, create_graph=True
        )
        for a, b in zip(got, want, strict=True):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.numpy().tobytes() == b.detach().numpy().tobytes()
    assert not count


def test_a_wide_int_bound_takes_the_ops(count):
    x = _vals((3, 4), torch.float32).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (g,) = torch.autograd.grad(torch.clamp(x, min=-(2**60)).sum(), x)
    assert not count
    _same([g], torch.autograd.grad(torch.clamp(x, min=-(2**60)).sum(), x, create_graph=True))
    torch.autograd.grad(torch.clamp(x, min=-(2**53)).sum(), x)
    assert count


def test_large_inputs_take_the_ops(count):
    x = _vals((100, 100), torch.float32).requires_grad_()
    y = _vals((100, 100), torch.float32, seed=1).requires_grad_()
    got = torch.autograd.grad(torch.fmax(x, y).sum(), (x, y))
    assert not count
    _same(got, torch.autograd.grad(torch.fmax(x, y).sum(), (x, y), create_graph=True))


def test_a_dispatch_mode_sees_the_formula_ops(count):
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = _vals((3, 4), torch.float32).requires_grad_()
    out = torch.clamp(x, -0.5, 0.5).sum()
    with Log():
        (g,) = torch.autograd.grad(out, x)
    assert not count
    assert any("ge" in s for s in seen) and any("where" in s for s in seen)
    assert (
        g.numpy().tobytes()
        == torch.autograd.grad(torch.clamp(x, -0.5, 0.5).sum(), x)[0].numpy().tobytes()
    )


def test_a_kernel_registered_over_a_formula_op_is_called(count):
    x = _vals((3, 4), torch.float32).requires_grad_()
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def ge(self, other):
        seen.append("ge")
        return torch.ones(self.shape, dtype=torch.bool)

    lib.impl("ge.Scalar", ge, "CPU")
    try:
        (g,) = torch.autograd.grad(torch.clamp(x, min=0.1).sum(), x)
    finally:
        lib._destroy()
    assert seen and not count
    assert (g.numpy() == 1).all()  # the registered comparison's mask


@pytest.mark.parametrize(
    "name",
    [
        "fmax",
        "clamp_tensors",
        "copysign",
        "pow",
        "pow_scalar",
        "sinc",
        "asin",
        "acos",
        "atanh",
        "special_i1",
        "special_i1e",
        "atan2",
        "logaddexp",
        "logaddexp2",
        "tan",
        "atan",
        "asinh",
        "erf",
        "erfc",
    ],
)
def test_gradcheck_and_gradgradcheck(name):
    fn, makers = CASES[name]
    rng = np.random.default_rng(3)
    xs = []
    for i, mk in enumerate(makers):
        if mk is _unit:
            a = rng.uniform(-0.8, 0.8, size=(2, 3))
        elif mk is _pos or name == "pow_scalar":
            a = rng.uniform(0.5, 2.0, size=(2, 3))
        else:
            a = rng.uniform(-2.0, 2.0, size=(2, 3)) + 0.37 * i  # away from ties and kinks
        xs.append(torch.tensor(a, dtype=torch.float64, requires_grad=True))
    assert torch.autograd.gradcheck(fn, xs)
    assert torch.autograd.gradgradcheck(fn, xs)


def test_a_0d_intermediate_reaches_the_ops_as_a_0d_array():
    # NumPy's 0-d arithmetic returns a scalar; an op's first call in a process (its _first_call
    # route) failed on a tensor holding one (erf / sinc / logaddexp backward of a 0-d input)
    from numtorch.ops.pointwise import _math_grad

    like = torch.tensor(0.5)
    a = like.numpy() * like.numpy()
    assert not isinstance(a, np.ndarray)
    t = _math_grad._t(a, like)
    assert t._data.__class__ is np.ndarray and t._data.shape == () and t._data.dtype == np.float32


def test_first_call_of_the_kept_op_on_a_0d_input():
    import subprocess
    import sys

    code = (
        "import math\n"
        "import numtorch as t\n"
        "x = t.tensor(0.3, dtype=t.float64, requires_grad=True)\n"
        "(g,) = t.autograd.grad(t.erf(x), x)\n"
        "assert g.shape == () and abs(g.item() - 2 / math.sqrt(math.pi) * math.exp(-0.09)) < 1e-12\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
