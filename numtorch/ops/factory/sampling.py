"""Samplers with a Numba rejection kernel: ``binomial`` (numtorch/kernels/cpu/sampling.py)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._functorch._levels import VMAP_LEVELS as _V
from ..._random import generator_of
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._fast_guard import or_body, plain
from .._pointwise import _cname, broadcast_shapes, warn_resize
from .._registry import defop, public
from ._bitgen import call

K = lazy("numtorch.kernels.cpu.sampling")


def _binomial_cpu(count, prob, generator=None):
    for name, t in (("count", count), ("prob", prob)):
        if t._dtype.category != D._FLOAT:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {_cname(t._dtype)}")
    if prob._dtype is not count._dtype:
        raise RuntimeError(f"Found dtype {_cname(prob._dtype)} but expected {_cname(count._dtype)}")
    if count._dtype is D.float16:
        raise NotImplementedError("\"binomial_cpu\" not implemented for 'Half'")
    c, p = count._data, prob._data
    if c.shape != p.shape:  # (np.broadcast_to is ~2 us a call: only where the shapes differ)
        shape = tuple(broadcast_shapes(c.shape, p.shape))
        if shape != c.shape and c.size:  # PyTorch sizes the output like count first
            warn_resize(c.shape, shape, 5)
        c, p = np.broadcast_to(c, shape), np.broadcast_to(p, shape)
    return _make(call(K.binomial_samples, generator_of(generator), c, p), count._dtype)


def _no_derivative(grad):
    raise RuntimeError("derivative for aten::binomial is not implemented")


binomial = defop("binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor", cpu=_binomial_cpu,
                 backward={"count": _no_derivative, "prob": _no_derivative})  # fmt: skip


def _binomial(count, prob, generator):
    """Binomial samples: successes in ``count`` trials of probability ``prob`` (floating tensors
    of one dtype, broadcast together), drawn by BTRS for large counts and inversion otherwise.

    >>> numtorch.binomial(numtorch.tensor([0.0, 5.0]), numtorch.tensor([0.5, 1.0]))
    tensor([0., 5.])
    """
    for pos, (name, t) in enumerate((("count", count), ("prob", prob)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' (position {pos}) must be Tensor, not {type(t).__name__}")
    generator_of(generator, "binomial")
    return dispatch(binomial, [count, prob, generator])


def _binomial_fast(count, prob, generator):
    """The binding's fast call: the CPU kernel's function without the dispatch layers for plain
    CPU tensors with nothing to record, the default generator and no vmap level (the random
    ops' gate: Note [Guarded fast paths]); its checks and errors are the kernel's own."""
    if generator is not None or _V or not (plain(count) and plain(prob)):
        return None
    return _binomial_cpu(count, prob)


public("binomial", "count, prob, generator=None", _binomial, relevant=("count", "prob"), ops=(binomial,),
       fast=(or_body(_binomial_fast, _binomial), ("count", "prob", "generator")))  # fmt: skip
