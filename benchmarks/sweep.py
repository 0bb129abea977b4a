"""The benchmark sweep: every OpInfo entry (``numtorch.testing._opinfo.op_db``), forward and
forward+backward (``op(x).sum().backward()`` where the entry is differentiable), at a small and
a large size, built for numtorch and PyTorch from the same NumPy sample.

Inputs come from the entry's own sample generator (float32 where the entry runs it): the largest
contiguous sample is the small case as it is (tens of elements); the large case tiles it to at
least ``LARGE`` input elements, by the first of these that both libraries accept:

- ``tile``: repeat along axis 0 every array whose leading dimension matches the input's
  (both operands of a binary op, an index with its source, ...);
- ``input``: repeat only the input along axis 0 (``mv``'s matrix, ``index_select``'s source);
- ``batch``: stack copies of every array on a new leading axis (square-matrix linalg, ``dot``).

Used by ``compare.py sweep`` (workloads) and ``bench_sweep.py`` (asv). Nothing runs at import
but reading the table; PyTorch is imported lazily. Nothing here is named ``time_*``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

import numtorch

SIZES = ("small", "large")
MODES = ("fwd", "fwd+bwd")
LARGE = 131_072
SEED = 1234
_STRATEGIES = ("tile", "input", "batch")


# Broadcast cases of the binary arithmetic and comparison ops (``add@bias``, ...): the entries'
# own samples are same-shape operands, which hid the cost of a broadcasting call (``x + bias``
# took 3.5x PyTorch's time in session 16 while ``add`` read 1.2x). (input shape, other shape)
# at the small and the large size; the large outer case makes 131072 output elements.
BROADCAST_OPS = ("add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge")
BROADCASTS = {
    "bias": (((16, 32), (32,)), ((512, 256), (256,))),
    "col": (((16, 32), (16, 1)), ((512, 256), (512, 1))),
    "outer": (((16, 1), (1, 32)), ((512, 1), (1, 256))),
    "0d": (((16, 32), ()), ((512, 256), ())),
}


@functools.lru_cache(maxsize=None)
def entries() -> dict:
    """``{id: OpInfo}`` in table order; a repeated name gets ``#2``, ``#3``, ...; then the
    broadcast cases ``<op>@<kind>`` of BROADCAST_OPS."""
    from numtorch.testing._opinfo import op_db

    out, seen = {}, {}
    for info in op_db:
        n = seen[info.name] = seen.get(info.name, 0) + 1
        out[info.name if n == 1 else f"{info.name}#{n}"] = info
    for name in BROADCAST_OPS:
        if name in out:
            for kind in BROADCASTS:
                out[f"{name}@{kind}"] = out[name]
    return out


def _broadcast_case(entry: str, size: str):
    """(input, args, kwargs) of a broadcast entry: float32 operands away from zero (div)."""
    kind = entry.partition("@")[2]
    shapes = BROADCASTS[kind][SIZES.index(size)]
    rng = np.random.default_rng(SEED)
    x, y = (np.asarray(rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s), np.float32) for s in shapes)
    return x, (y,), {}


def entry_ids() -> list:
    return list(entries())


def _resolve(root, name: str):
    obj = root
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def torch_counterpart(entry: str):
    """``torch.<name>`` of the entry, or None where PyTorch has no such attribute."""
    import torch

    try:
        return _resolve(torch, entries()[entry].name)
    except AttributeError:
        return None


def unresolved() -> list:
    """Entries without a PyTorch counterpart (the sweep skips them)."""
    return [e for e in entries() if torch_counterpart(e) is None]


# ---- samples -----------------------------------------------------------------------------------
def _arrays(x):
    if isinstance(x, np.ndarray):
        yield x
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _arrays(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _arrays(v)


def _numel(sample) -> int:
    return sum(a.size for a in _arrays(sample.input))


def _dtype(info) -> str:
    return "float32" if "float32" in info.dtypes else info.dtypes[0]


@functools.lru_cache(maxsize=None)
def base_sample(entry: str):
    """The entry's largest sample whose arrays are all contiguous (None: no array input)."""
    info = entries()[entry]
    samples = info.sample_inputs(_dtype(info), np.random.default_rng(SEED))
    good = [s for s in samples if _numel(s) > 0 and all(
        a.flags.c_contiguous for a in _arrays((s.input, s.args, s.kwargs)))]  # fmt: skip
    return max(good, key=_numel) if good else (samples[0] if samples else None)


def _grow(x, k: int, how: str, lead):
    if isinstance(x, np.ndarray):
        if how == "batch":
            return np.ascontiguousarray(np.broadcast_to(x, (k, *x.shape)))
        if x.ndim and x.shape[0] == lead:
            return np.concatenate([x] * k, axis=0)
        return x
    if isinstance(x, list):
        return [_grow(v, k, how, lead) for v in x]
    if isinstance(x, tuple):
        return tuple(_grow(v, k, how, lead) for v in x)
    if isinstance(x, dict):
        return {key: _grow(v, k, how, lead) for key, v in x.items()}
    return x


def scaled(sample, how: str, target: int = LARGE):
    """(input, args, kwargs) of ``sample`` grown to at least ``target`` input elements by ``how``."""
    n = _numel(sample)
    if n == 0:
        raise NotImplementedError("no array input to scale")
    k = math.ceil(target / n)
    first = next(_arrays(sample.input))
    if how != "batch" and first.ndim == 0:
        raise NotImplementedError("0-d input: nothing to tile")
    lead = first.shape[0] if first.ndim else None
    inp = _grow(sample.input, k, how, lead)
    if how == "input":
        return inp, sample.args, sample.kwargs
    return inp, _grow(sample.args, k, how, lead), _grow(sample.kwargs, k, how, lead)


# ---- building a callable -------------------------------------------------------------------------------
def _convert(L, x, grad: bool, leaves: list):
    if isinstance(x, np.ndarray):
        t = L.from_numpy(x.copy())
        if grad and x.dtype.kind == "f":
            t.requires_grad_(True)
            leaves.append(t)
        return t
    if isinstance(x, numtorch.dtype):
        return getattr(L, x.name)
    if isinstance(x, list):
        return [_convert(L, v, grad, leaves) for v in x]
    if isinstance(x, tuple):
        return tuple(_convert(L, v, grad, leaves) for v in x)
    if isinstance(x, dict):  # keyword arguments are never differentiated
        return {k: _convert(L, v, False, leaves) for k, v in x.items()}
    return x


def _first_float(L, out):
    if isinstance(out, L.Tensor):
        return out if out.requires_grad and out.dtype.is_floating_point else None
    if isinstance(out, (list, tuple)):
        for v in out:
            r = _first_float(L, v)
            if r is not None:
                return r
    return None


def _callable(L, fn, inp, args, kwargs, mode: str):
    grad = mode == "fwd+bwd"
    leaves: list = []
    x = _convert(L, inp, grad, leaves)
    a = _convert(L, args, grad, leaves)
    kw = _convert(L, kwargs, False, leaves)
    if not grad:
        return functools.partial(fn, x, *a, **kw)
    if not leaves:
        raise NotImplementedError("no floating-point input to differentiate")

    def step():
        for t in leaves:
            t.grad = None
        out = _first_float(L, fn(x, *a, **kw))
        if out is None:
            raise NotImplementedError("no differentiable output")
        out.sum().backward()

    return step


def _lib(name):
    if name == "numtorch":
        return numtorch
    import torch

    return torch


def _out_numel(x) -> int:
    if isinstance(x, numtorch.Tensor):
        return x.numel()
    if isinstance(x, (list, tuple)):
        return sum(_out_numel(v) for v in x)
    return 0


def _superlinear(info, sample, how: str) -> bool:
    """The output grows faster than the input (outer, kron, cdist, cartesian_prod, ...): at
    ``LARGE`` it would not fit in memory. Probed with numtorch at 1024 and 4096 elements."""
    fn = _resolve(numtorch, info.name)
    sizes = [_out_numel(_callable(numtorch, fn, *scaled(sample, how, n), "fwd")())
             for n in (1024, 4096)]  # fmt: skip
    return sizes[1] > 8 * max(sizes[0], 1)


def _candidates(entry: str, size: str):
    if "@" in entry:
        yield "broadcast", _broadcast_case(entry, size)
        return
    s = base_sample(entry)
    if s is None:
        raise NotImplementedError("the entry has no samples")
    if size == "small":
        yield "as is", (s.input, s.args, s.kwargs)
        return
    for how in _STRATEGIES:
        try:
            if _superlinear(entries()[entry], s, how):
                raise NotImplementedError(f"{how}: the output grows faster than the input")
            yield how, scaled(s, how)
        except NotImplementedError:
            continue
        except Exception:  # this strategy does not fit the op: the next may
            continue


@functools.lru_cache(maxsize=None)
def plan(entry: str, size: str, mode: str, libs=("numtorch", "torch")):
    """(strategy, (input, args, kwargs)) of the first candidate every library in ``libs`` runs
    once; NotImplementedError with the reasons otherwise."""
    info = entries()[entry]
    if mode == "fwd+bwd" and not info.grad:
        raise NotImplementedError("not differentiable")
    errors = []
    for how, case in _candidates(entry, size):
        try:
            for name in libs:
                L = _lib(name)
                _callable(L, _resolve(L, info.name), *case, mode)()
            return how, case
        except NotImplementedError:
            raise
        except Exception as e:  # the next strategy may fit; keep the reason
            errors.append(f"{how}: {type(e).__name__}: {str(e)[:100]}")
    raise NotImplementedError("; ".join(errors) or "no way to scale the sample")


def build(entry: str, size: str, mode: str, lib: str, libs=("numtorch", "torch")):
    """A zero-argument callable running ``entry`` in library ``lib`` (NotImplementedError:
    not applicable, e.g. forward+backward of a non-differentiable entry)."""
    if lib == "torch" and torch_counterpart(entry) is None:
        raise NotImplementedError(f"torch has no {entries()[entry].name}")
    _, case = plan(entry, size, mode, libs)
    L = _lib(lib)
    return _callable(L, _resolve(L, entries()[entry].name), *case, mode)


def geomean(ratios) -> float:
    ratios = [r for r in ratios if r]
    return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
