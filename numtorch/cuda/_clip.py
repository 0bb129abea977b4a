"""Gradient clipping of CUDA gradients in a few launches (numtorch/nn/utils/clip_grad.py).

# Note [CUDA gradient clipping]
# Eager clipping runs vector_norm per gradient (abs, square, sum, sqrt: ~10 dispatched ops and
# 4 launches each), stacks the norms and takes their norm: the GPT-2 benchmark's 29 gradients
# spent a sixth of a training step's host time there. PyTorch runs _foreach_norm: a few
# launches over all the gradients. Here, on plain contiguous CUDA gradients of one floating
# dtype (float32/float64, none empty), each gradient's chunks reduce into one shared float64
# buffer of partials (one launch per gradient, numtorch/kernels/cuda/foreach.py), one block
# folds them into the per-gradient norms and their total norm (rounded where eager's are: each
# norm in the result dtype before its root), and the scaling is one launch per gradient that
# computes the coefficient from the total norm on the device, as eager's clamp(max_norm /
# (total + 1e-6), max=1), so nothing synchronises unless error_if_nonfinite reads the total.
# Anything else (another dtype or device, a mixed list, a strided gradient, modes, forward AD)
# keeps eager's path.
"""

from __future__ import annotations

import math

import numpy as np

from .._state import STATE
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _storage as S
from ._launch import launch, meta, run

K_FE = lazy("numtorch.kernels.cuda.foreach")
_KINDS = {2.0: 0, 1.0: 1, math.inf: 2}


def _plain(tensors, dt, dev) -> bool:
    for t in tensors:
        if t.__class__ is not Tensor or t._device != dev or t._dtype is not dt:
            return False
        a = t._data
        if not a.size or not a.contiguous:
            return False
    return True


def _eligible(tensors) -> bool:
    if STATE.td_modes or STATE.tf_modes or STATE.fw_level >= 0:
        return False
    dt = tensors[0]._dtype
    dev = tensors[0]._device
    return dev.type == "cuda" and dt.name in ("float32", "float64") and _plain(tensors, dt, dev)


def total_norm(tensors, norm_type: float):
    """The ``norm_type``-norm of the norms of CUDA ``tensors`` as a 0-d tensor of their dtype,
    or None where eager's path applies (Note [CUDA gradient clipping])."""
    kind = _KINDS.get(norm_type)
    if kind is None or not _eligible(tensors):
        return None
    from ..kernels.cuda import _SIM, RED_THREADS

    cap = 4 if _SIM else 512  # chunks of one gradient: enough blocks to fill the GPU, few partials
    per = RED_THREADS * 16
    ks = [max(1, min(-(-t._data.size // per), cap)) for t in tensors]
    offs = [0]
    for k in ks:
        offs.append(offs[-1] + k)
    ones = [int(kind == 0 and t._data.size == 1) for t in tensors]
    part = S.empty((offs[-1],), np.float64)
    for t, k, o, one in zip(tensors, ks, offs[:-1], ones, strict=True):
        a = t._data
        run(
            K_FE.norm_partials,
            k,
            RED_THREADS,
            (S.window(a), a.size, k, part.root, o, 1 if one else kind),
        )
    dt = tensors[0]._dtype
    g = len(tensors)
    norms = S.empty((g,), dt.np)
    total = S.empty((), dt.np)
    run(
        K_FE.norm_total,
        1,
        RED_THREADS,
        (part.root, meta(offs + ones), g, kind, norms.root, total.root),
    )
    return _make(total, dt, Tensor, tensors[0]._device)


def scale_(grads, max_norm: float, total: Tensor) -> bool:
    """Scale CUDA ``grads`` in place by eager's clipping coefficient of ``total`` (a 0-d tensor
    of their device and dtype); False (nothing done) where eager's path applies."""
    if (
        not _eligible(grads)
        or not _plain([total], grads[0]._dtype, grads[0]._device)
        or total._data.ndim
    ):
        return False
    typ = grads[0]._dtype.np.type
    args = (S.window(total._data), typ(max_norm), typ(1e-6), typ(1.0))
    for g in grads:
        a = g._data
        launch(K_FE.clip_scale, a.size, S.window(a), *args)
        g._vc[0] += 1
    return True
