"""The fast call of F.scaled_dot_product_attention (Note [Attention fast call])."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...backends.cuda import _SDP
from .._fast_guard import free, params, recordless
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ..linalg._contract import product
from ..reduction.scan import _softmax_impl
from . import softmax_fast as _SF

# Note [Attention fast call]
# F.scaled_dot_product_attention of a small input took 140 us where PyTorch takes 24: ATen's math
# composite is 14 dispatched ops (the causal mask alone is ones, tril, logical_not, zeros and
# masked_fill; the scalar products, the broadcast add and safe softmax's eq/all/masked_fill each
# take the general pointwise route). For a plain call (_fast_guard: no mode, forward-AD level or
# autocast region; query, key and value record nothing) of C-contiguous, non-empty float32/
# float64 operands of one dtype and shapes the products accept with equal batch dims, no
# attn_mask, no dropout (dropout_p <= 0), no enable_gqa, a bool is_causal, a None or real scale,
# the math backend on and no numtorch.library kernel registered over any op the composite
# calls, the call computes what those ops compute, on the arrays:
# - each scalar product is x * dtype(root), as mul.Tensor's kernel with a Python float (bitwise,
#   checked), key's transposed product C-contiguous, as mul's result of a transposed view is;
# - the products are matmul's CPU function's own (linalg._contract.product);
# - the causal mask is the composite's 0 / -inf matrix (cached per size and dtype), added with
#   NumPy's add, IEEE's sum as add.Tensor's;
# - softmax is Note [Softmax plans]' planned call or _softmax's CPU function, and safe softmax's
#   rows of -inf only are zeroed as its masked_fill zeroes them.
# Anything else declines to the body, errors included. Tests: tests/nn/test_attention_fast_nnperf17.py.
_FLOATS = (D.float32, D.float64)
_MASKS: dict = {}  # (L, S, NumPy dtype) -> the causal mask, read-only
_OPS: tuple = ()  # the composite's ops, whose CPU kernels must be the declared ones
_DECLARED: tuple = ()


def _mask(L, S, dt):
    m = _MASKS.get((L, S, dt))
    if m is None:
        m = np.zeros((L, S), dt)
        m[np.triu_indices(L, 1, S)] = -np.inf
        m.setflags(write=False)
        if len(_MASKS) >= 64:
            _MASKS.clear()
        _MASKS[(L, S, dt)] = m
    return m


def _ok_shapes(q, k, v) -> bool:
    n = q.ndim
    return (n >= 2 and k.ndim == n and v.ndim == n and q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
            and q.shape[-1] == k.shape[-1] and k.shape[-2] == v.shape[-2] and q.size and k.size and v.size
            and q.flags.c_contiguous and k.flags.c_contiguous and v.flags.c_contiguous)  # fmt: skip


def _sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    dt = query._dtype
    c = scale.__class__
    if not (attn_mask is None and enable_gqa is False and is_causal.__class__ is bool and dt in _FLOATS
            and (c is float or c is int or scale is None) and (dropout_p.__class__ is float or dropout_p.__class__ is int)
            and not dropout_p > 0.0 and key._dtype is dt and value._dtype is dt and free() and recordless(query)
            and recordless(key) and recordless(value) and _SDP["math"]):  # fmt: skip
        return None
    q, k, v = query._data, key._data, value._data
    if not _ok_shapes(q, k, v) or tuple(op.impls.get("cpu") for op in _OPS) != _DECLARED:
        return None
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    root = math.sqrt(abs(s))
    f = q.dtype.type
    tok = _quiet(_IGNORE)  # the kernels raise no NumPy warnings (Note [Quiet floating-point flags])
    try:
        attn = product(q * f(-root if s < 0 else root), np.multiply(k.swapaxes(-1, -2), f(root), order="C"))
        if is_causal:
            np.add(attn, _mask(q.shape[-2], k.shape[-2], q.dtype), out=attn)
    finally:
        _restore(tok)
    a = _make(attn, dt)
    sm = _SF.softmax_plain(a, -1, False)
    out = (_softmax_impl(a, -1, False, False) if sm is None else sm)._data
    rows = (attn == -np.inf).all(-1, keepdims=True)  # safe softmax's rows to zero
    if rows.any():
        np.copyto(out, 0.0, where=rows)
    return _make(product(out, v), dt)


def _make_fast(body):
    def fast(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
        r = _sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
        return body(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa) if r is None else r

    return fast


def install(bindings) -> None:
    """Attach the fast call (installed from shuffle_fast.install, before _api.install)."""
    global _OPS, _DECLARED
    from ..._ops import ops
    from .attention import scaled_dot_product_attention

    a = ops.aten
    _OPS = (scaled_dot_product_attention, a.ones.default, a.tril.default, a.logical_not.default, a.zeros.default,
            a.masked_fill.Scalar, a.mul.Tensor, a.transpose.int, a.matmul.default, a.add.Tensor, a.softmax.int,
            a._softmax.default, a.eq.Scalar, a.all.dims)  # fmt: skip
    _DECLARED = tuple(op.impls.get("cpu") for op in _OPS)
    for b in bindings:
        if b.module == "torch.nn.functional" and b.name == "scaled_dot_product_attention" and b.fast is None:
            b.fast = (_make_fast(b.body), params(b.sig))
