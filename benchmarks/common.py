"""Helpers shared by the asv benchmarks and ``benchmarks/compare.py``.

- fixed-seed data (``array``, ``tensor``) built in NumPy, so numtorch and PyTorch see the same
  numbers;
- the PyTorch peer, imported lazily (``torch_or_none``, ``lib``), never at module level;
- ``pending()``: turns "numtorch has no such function yet" into ``NotImplementedError``,
  which asv reports as a skipped benchmark, so benchmarks of ops still being written skip
  instead of failing;
- the registry views (``registry_ops``, ``sample_args``, ``uncovered``) that make benchmark
  params follow ``numtorch.ops._registry``;
- workloads written once for any torch-like library ``L`` (numtorch or torch): the tiny ops,
  the MLP, a custom ``autograd.Function``, the elementwise chain.

Nothing here is named ``time_*``/``track_*``/``mem_*``: asv imports this module too.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import operator
import os
import re
from pathlib import Path

import numpy as np

import numtorch
from numtorch.ops import _registry

SEED = 1234
SIZES = {"1e3": 1_000, "1e6": 1_000_000, "1e7": 10_000_000}
FLOATS = ["float32", "float64"]
BENCH_DIR = Path(__file__).resolve().parent


# ---- data -----------------------------------------------------------------------------------
def array(shape, dtype="float32", low=-1.0, high=1.0, seed=SEED) -> np.ndarray:
    """A fixed-seed array of ``dtype`` uniform in [low, high) (bool: fair coin, ints: [0, 10))."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 10, size=shape).astype(dtype)
    return (rng.random(shape, dtype=np.float64) * (high - low) + low).astype(dtype)


def tensor(
    shape, dtype="float32", *, L=numtorch, requires_grad=False, low=-1.0, high=1.0, seed=SEED
):
    """``array(...)`` wrapped by library ``L`` (numtorch or torch) without a copy."""
    t = L.from_numpy(array(shape, dtype, low, high, seed))
    if requires_grad:
        t.requires_grad_(True)
    return t


# ---- libraries ----------------------------------------------------------------------------
def torch_or_none():
    """PyTorch if installed, else None. Imported lazily: benchmarks must not need it."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def require_torch():
    torch = torch_or_none()
    if torch is None:
        raise NotImplementedError("PyTorch is not installed")
    return torch


def lib(name: str):
    """``"numtorch"`` -> numtorch, ``"torch"`` -> torch (NotImplementedError when absent)."""
    return numtorch if name == "numtorch" else require_torch()


LIBS = ["numtorch", "torch"]


# ---- missing features skip ------------------------------------------------------------------
_MISSING = re.compile(
    r"module 'numtorch[\w.]*' has no attribute|'Tensor' object has no attribute|"
    r"type object 'Tensor' has no attribute|'Tensor' object is not subscriptable|"
    r"'Tensor' object does not support item assignment|'Tensor' object is not callable|"
    r"No module named 'numtorch\.|not supported between instances of 'Tensor'|"
    r"unsupported operand type\(s\) for .*'Tensor'|bad operand type for .*'Tensor'"
)


@contextlib.contextmanager
def pending():
    """Inside, a missing numtorch function, method or module raises NotImplementedError
    (asv: skipped) instead of AttributeError/TypeError (asv: failed)."""
    try:
        yield
    except (AttributeError, TypeError, ImportError) as e:
        if _MISSING.search(str(e)):
            raise NotImplementedError(f"pending in numtorch: {e}") from e
        raise


def resolve(path: str, root=numtorch):
    """``resolve("nn.functional.relu")``; NotImplementedError when a part is missing."""
    obj = root
    with pending():
        for part in path.split("."):
            obj = getattr(obj, part)
    return obj


def has(path: str, root=numtorch) -> bool:
    try:
        resolve(path, root)
    except NotImplementedError:
        return False
    return True


def need(*paths: str) -> None:
    """Skip (NotImplementedError) unless every ``numtorch.<path>`` exists."""
    missing = [p for p in paths if not has(p)]
    if missing:
        raise NotImplementedError(f"pending in numtorch: {', '.join(missing)}")


# ---- the registry -------------------------------------------------------------------------------
# the elementwise engine (numtorch/ops/_pointwise.py) holds the implementations of ops declared
# elsewhere; nn's and factory's modules count as areas of their own (conv, pooling, loss, random, ...)
_ENGINE_AREAS = {"_pointwise": "pointwise"}
_SPLIT_AREAS = {"nn": "activation", "factory": "core"}


def _impl_module(op) -> str:
    for key in ("cpu", "any", "composite"):
        fn = op.impls.get(key)
        if fn is not None:
            owner = getattr(fn, "__self__", None)
            if owner is not None and not isinstance(owner, type):
                return type(owner).__module__
            return getattr(fn, "__module__", "") or ""
    return ""


def op_area(op) -> str:
    """The area of ``op``: the package ``numtorch/ops/<area>/`` holding its kernel (for nn and
    factory the module: conv, pooling, random, ...), the engine mapped to its area (``_pointwise``
    -> pointwise), "" when unknown."""
    mod = _impl_module(op)
    if not mod.startswith("numtorch.ops."):
        return ""
    parts = mod.split(".")[2:]
    if len(parts) == 1:
        return _ENGINE_AREAS.get(parts[0], parts[0])
    if parts[0] in _SPLIT_AREAS and parts[-1] != _SPLIT_AREAS[parts[0]]:
        return parts[-1].split("_")[0]
    return parts[0]


def is_pointwise(op) -> bool:
    """Tagged pointwise, or run by the elementwise engine (one scalar expression per op)."""
    return "pointwise" in op.tags or _impl_module(op) in _ENGINE_MODULES


# the engine's impls, and the learned-call wrapper of Note [Learned prepared calls]
_ENGINE_MODULES = ("numtorch.ops._pointwise", "numtorch.ops.pointwise._elementwise",
                   "numtorch.ops.pointwise._learned")  # fmt: skip


def _public_names() -> set:
    return {b.name for b in _registry.BINDINGS if b.module in ("torch", "torch.nn.functional")}


def _functional_overloads():
    """Functional (not in-place, not out=, not view) overloads with a public function,
    leaving out the ``.Scalar`` twins that Python reaches through wrapped scalars."""
    public = _public_names()
    for op in _registry.OPS.values():
        s = op._schema
        if op.kind != "functional" or s.namespace != "aten" or s.name not in public:
            continue
        if s.overload_name.startswith("Scalar"):
            continue
        yield op


def registry_ops(tag: str | None = None, arity: int | None = None, area: str | None = None,
                 exclude=()) -> list:  # fmt: skip
    """Public op names from the registry, sorted: ``registry_ops(tag="pointwise", arity=1)``.

    ``tag`` matches ``op.tags`` (``"pointwise"``: ``is_pointwise``); ``arity`` counts Tensor
    arguments; ``area`` is ``op_area``. Never empty: ``["<none>"]`` stands in (its setup
    skips) so asv keeps the benchmark's shape.
    """
    names = set()
    for op in _functional_overloads():
        if tag is not None and not (tag in op.tags or (tag == "pointwise" and is_pointwise(op))):
            continue
        if area is not None and op_area(op) != area:
            continue
        if op._schema.name in exclude:
            continue
        if arity is not None and len(op.tensor_idx) != arity:
            continue
        names.add(op._schema.name)
    return sorted(names) or ["<none>"]


def overload(name: str, arity: int | None):
    """The functional overload of ``name`` taking ``arity`` tensors (None: the first one);
    NotImplementedError if there is none."""
    for op in _functional_overloads():
        if op._schema.name == name and (arity is None or len(op.tensor_idx) == arity):
            return op
    raise NotImplementedError(f"pending in numtorch: no {arity}-tensor overload of {name!r}")


_SCALAR_SAMPLES = {"Scalar": 2.0, "float": 2.0, "int": 1, "bool": False, "SymInt": 1}


def sample_args(name: str, arity: int, shape, dtype: str, *, L=numtorch, low=0.1, high=0.9) -> list:
    """Positional arguments for ``L.<name>``: fixed-seed tensors in [low, high) (in the domain
    of log, sqrt, acos, atanh, ...), bool tensors for ``condition``/``mask`` parameters, and
    a sample value for every required non-tensor parameter."""
    op = overload(name, arity)
    args = []
    tensors = 0
    for i, a in enumerate(op._schema.arguments):
        # an optional tensor still counts toward the arity (clamp.Tensor's min and max)
        if a.kwarg_only or a.has_default and not (a.is_tensor and tensors < arity):
            break
        if a.is_tensor:
            tensors += 1
            dt = "bool" if a.name in ("condition", "mask") else dtype
            args.append(tensor(shape, dt, L=L, low=low, high=high, seed=SEED + i))
        else:
            base = a.type.rstrip("?")
            if base not in _SCALAR_SAMPLES:
                raise NotImplementedError(f"no sample value for {name}'s {a.type} {a.name}")
            args.append(_SCALAR_SAMPLES[base])
    return args


# ---- coverage -------------------------------------------------------------------------------
def bench_modules() -> list:
    """Every ``benchmarks/bench_*.py`` module, imported."""
    pkg = __package__ or "benchmarks"
    return [
        importlib.import_module(f"{pkg}.{p.stem}") for p in sorted(BENCH_DIR.glob("bench_*.py"))
    ]


def covered_ops() -> set:
    """Union of the ``COVERS`` sets (op names) the bench modules declare."""
    names = set()
    for mod in bench_modules():
        names |= set(getattr(mod, "COVERS", ()))
    return names


def area_ops(area: str) -> set:
    return {op._schema.name for op in _functional_overloads() if op_area(op) == area}


def uncovered(area: str) -> list:
    """Public functional ops declared in ``numtorch/ops/<area>/`` that no benchmark covers."""
    return sorted(area_ops(area) - covered_ops())


# ---- workloads written once for numtorch and torch ---------------------------------------------
TINY_OPS = ["add", "mul", "relu", "sum", "getitem", "reshape"]


def tiny_call(L, op: str, a, b):
    """A zero-argument callable doing one tiny op (C partials and bound methods: no extra
    Python frame is timed)."""
    with pending():
        if op == "add":
            return functools.partial(operator.add, a, b)
        if op == "mul":
            return functools.partial(operator.mul, a, b)
        if op == "relu":
            return functools.partial(L.relu, a)
        if op == "sum":
            return a.sum
        if op == "getitem":
            return functools.partial(operator.getitem, a, slice(1, 3))
        if op == "reshape":
            return functools.partial(a.reshape, 2, 4)
    raise ValueError(op)


def warm(fn, times: int = 3):
    """Call ``fn`` a few times (JIT compile, caches) with missing features turned into skips."""
    with pending():
        for _ in range(times):
            r = fn()
    return r


MLP_SIZES = (784, 256, 256, 10)


def build_mlp(L, sizes=MLP_SIZES, seed=SEED):
    """``Sequential(Linear, ReLU, Linear, ReLU, Linear)`` with fixed-seed weights."""
    with pending():
        nn = L.nn
        layers = []
        for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:], strict=False)):
            lin = nn.Linear(m, n)
            bound = 1.0 / m**0.5
            lin.weight.data = L.from_numpy(array((n, m), "float32", -bound, bound, seed + i))
            lin.bias.data = L.from_numpy(array((n,), "float32", -bound, bound, seed + 100 + i))
            layers.append(lin)
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)


def mlp_batch(L, batch=128, sizes=MLP_SIZES, seed=SEED):
    x = tensor((batch, sizes[0]), L=L, seed=seed + 7)
    y = L.from_numpy(np.random.default_rng(seed + 8).integers(0, sizes[-1], batch).astype(np.int64))
    return x, y


def mlp_step(L, model, x, y):
    """One forward + backward (grads reset to None first, as ``zero_grad()`` does)."""
    cross_entropy = L.nn.functional.cross_entropy
    params = list(model.parameters())

    def step():
        for p in params:
            p.grad = None
        cross_entropy(model(x), y).backward()

    return step


def make_optimizer(L, name: str, params):
    with pending():
        if name == "sgd":
            return L.optim.SGD(params, lr=0.01, momentum=0.9)
        if name == "adam":
            return L.optim.Adam(params, lr=1e-3)
    raise ValueError(name)


def mul_two_function(L):
    """A trivial custom Function (y = 2x) to time the autograd.Function machinery."""
    with pending():
        Function = L.autograd.Function

    class MulTwo(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0

    return MulTwo


def linear_function(L):
    """PyTorch's tutorial ``LinearFunction`` (extending autograd), for numtorch or torch."""
    with pending():
        Function = L.autograd.Function

    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, input, weight, bias):
            ctx.save_for_backward(input, weight, bias)
            return input.mm(weight.t()) + bias

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            return grad_output.mm(weight), grad_output.t().mm(input), grad_output.sum(0)

    return LinearFunction


def tf_subclass(L):
    """A Tensor subclass whose ``__torch_function__`` defers to the default (the subclass_zoo
    "trivial" case): measures the protocol's overhead."""

    class Passthrough(L.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})

    return Passthrough


def elementwise_chain(x, n: int = 100):
    """``n`` tiny elementwise ops (alternating ``* c`` and ``+ c``) applied to ``x``."""
    for _ in range(n // 2):
        x = x * 1.0001
        x = x + 0.5
    return x


class Benchmark:
    """Base for asv benchmark classes: generous timeout (1e7 workloads, cold compiles)."""

    timeout = 300.0


def kernel_cache_env(tmpdir: str) -> dict:
    """Environment that points Numba's and numtorch's kernel caches at ``tmpdir`` (cold start)."""
    return {"NUMBA_CACHE_DIR": tmpdir, "NUMTORCH_KERNEL_CACHE": os.path.join(tmpdir, "kernels")}
