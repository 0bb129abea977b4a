"""OpInfo: how an op is tested (inputs, NumPy reference, dtypes, tolerances, variants).

One OpInfo per public op; the property tests in tests/ops/ run over every entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
ALL_REAL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")
NUMERIC = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")


@dataclass
class SampleInput:
    """One call: ``op(input, *args, **kwargs)``. Tensors are NumPy arrays here; the test
    harness converts them (and arrays inside lists) to numtorch tensors."""

    input: object
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    name: str = ""
    out: bool = True  # the overload this call reaches takes out= (``prod(x)``'s has none)

    def __repr__(self) -> str:
        return f"SampleInput({self.name or _describe(self.input)})"


def _describe(x) -> str:
    if isinstance(x, np.ndarray):
        return f"{x.dtype}{list(x.shape)}"
    return type(x).__name__


@dataclass
class OpInfo:
    """Test description of one public op.

    name: public name; "add" -> numtorch.add, "nn.functional.relu" -> numtorch.nn.functional.relu.
    ref: NumPy reference called like the op but on NumPy arrays; returns an array or a tuple.
    sample_inputs: fn(dtype: str, rng: np.random.Generator) -> list[SampleInput].
    dtypes: dtype names the value test runs on.
    method / inplace: Tensor method names checked against the function ("" to skip).
    supports_out: the function takes out=.
    grad: differentiable (gradcheck + gradgradcheck in float64 on the float64 samples).
    grad_dtypes / gradgrad: narrow the gradient tests.
    tol: {dtype name: (rtol, atol)} overriding the defaults.
    variants: other binding names this entry covers (e.g. "__add__", "__radd__").
    """

    name: str
    ref: Callable | None
    sample_inputs: Callable
    dtypes: tuple = FLOATS
    method: str | None = None
    inplace: str | None = None
    supports_out: bool = False
    grad: bool = True
    gradgrad: bool = True
    tol: dict = field(default_factory=dict)
    variants: tuple = ()
    skips: dict = field(default_factory=dict)  # property name -> reason (must say why)
    nondeterministic: bool = False

    def resolve(self):
        import numtorch

        obj = numtorch
        for part in self.name.split("."):
            obj = getattr(obj, part)
        return obj

    def tolerance(self, dtype: str) -> tuple[float, float]:
        default = {"float16": (1e-3, 1e-3), "float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}
        return self.tol.get(dtype, default.get(dtype, (0.0, 0.0)))


def make_arg(shape, dtype: str, rng: np.random.Generator, low=None, high=None, noncontiguous=False):
    """Random array of ``dtype`` in [low, high) (floats default [-9, 9], ints [-9, 10))."""
    if dtype == "bool":
        a = rng.random(shape) > 0.5
    elif dtype in ("float16", "float32", "float64"):
        lo = -9.0 if low is None else low
        hi = 9.0 if high is None else high
        a = (rng.random(shape) * (hi - lo) + lo).astype(dtype)
    elif dtype in ("complex64", "complex128"):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        lo = max(-9 if low is None else low, info.min)
        hi = min(10 if high is None else high, info.max)
        a = rng.integers(lo, hi, size=shape).astype(dtype)
    a = np.asarray(a)
    if noncontiguous and a.ndim >= 1 and a.size > 1:
        wide = np.repeat(a, 2, axis=-1)
        a = wide[..., ::2]
    return a


def elementwise_shapes():
    """Shapes every elementwise op is tried on: 0-d, empty, 1-d, 2-d, non-contiguous."""
    return [((), {}), ((0,), {}), ((5,), {}), ((3, 4), {}), ((2, 3, 4), {"noncontiguous": True})]


def unary_samples(low=None, high=None):
    def gen(dtype, rng):
        return [
            SampleInput(make_arg(s, dtype, rng, low, high, **kw), name=f"{list(s)}{'nc' if kw else ''}")
            for s, kw in elementwise_shapes()
        ]

    return gen


def binary_samples(low=None, high=None, rhs_low=None, rhs_high=None, scalar=True):
    """Same-shape, broadcasting and (optionally) Python-scalar right-hand sides."""

    def gen(dtype, rng):
        lo2 = low if rhs_low is None else rhs_low
        hi2 = high if rhs_high is None else rhs_high
        out = [
            SampleInput(make_arg(s, dtype, rng, low, high, **kw), (make_arg(s, dtype, rng, lo2, hi2),), name=f"{list(s)}")
            for s, kw in elementwise_shapes()
        ]
        out.append(SampleInput(make_arg((3, 1), dtype, rng, low, high), (make_arg((4,), dtype, rng, lo2, hi2),), name="bcast"))
        if scalar:
            val = 2 if dtype not in ("float16", "float32", "float64") else 2.5
            if dtype == "bool":
                val = True
            out.append(SampleInput(make_arg((4,), dtype, rng, low, high), (val,), name="scalar"))
        return out

    return gen
