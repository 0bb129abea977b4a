"""The fast call of F.multi_head_attention_forward (Note [Multi-head attention fast call])."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._tensor import _make, _view
from .._fast_guard import free, or_body, recordless
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ..linalg._contract import product
from .attention import _sdpa

_empty, _multiply = np.empty, np.multiply

# Note [Multi-head attention fast call]
# The body (attention._mha_forward, a port of PyTorch's Python function) runs some twenty
# calls through the public methods and the linear/matmul composites' dispatch: 127 us on the
# sweep's (2, 1, 4) inputs where PyTorch takes 44. With no dispatch mode, forward-AD level or
# autocast region, nothing to record, one float32/float64 dtype throughout and no mask, bias_k/v,
# zero attention, separate projection weights, causal hint or live dropout, this runs the same
# steps with the composites unfolded as their bodies run them on plain tensors: the scaling is
# the mul kernel's one IEEE product in the dtype (into a C-ordered array, as the kernel's), each linear is
# the addmm its composite dispatches on the (rows, E) view of a contiguous input (a batch_first
# module's transposed input: on the contiguous transpose, as _rows_linear), each matmul is
# matmul_cpu's `product` of the arrays, reshapes and transposes are NumPy's (a reshape copies
# in C order exactly where the body's does), and the softmax, mean and
# scaled_dot_product_attention are the body's own calls. The results are the body's bits, with
# the same views of the same bases (tests/nn/test_mha_fast.py). Anything else takes the body.
_FLOATS = (D.float32, D.float64)
_CLASSES: set = set()  # Tensor and nn.Parameter (a module's weights), filled by install
_OVERRIDES = [0]  # _api's count of kernels registered over aten ops, bound by install
_ADDMM = None  # aten.addmm.default, bound by install (the op table is filled by then)


def _linear_rows(x, w, b):
    """F.linear of the (L, N, E) tensor ``x`` with weight ``w`` and bias ``b`` as the linear
    composite computes it: one addmm over the rows of the contiguous layout (an array)."""
    dt = x._dtype
    a = x._data
    swapped = not a.flags.c_contiguous  # _rows_linear: a batch_first module's transposed input
    if swapped:
        a = a.swapaxes(0, 1)
    flat = _make(a.reshape(-1, a.shape[-1]), dt)
    r = dispatch(_ADDMM, [b, flat, _make(w._data.T, dt), 1, 1])._data
    r = r.reshape(*a.shape[:-1], r.shape[-1])
    return r.swapaxes(0, 1) if swapped else r


def _rows_ok(x) -> bool:
    a = x._data
    return a.flags.c_contiguous or a.swapaxes(0, 1).flags.c_contiguous


def _mha_fast(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
              add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
              attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
              average_attn_weights, is_causal):  # fmt: skip
    if (bias_k is not None or bias_v is not None or key_padding_mask is not None or attn_mask is not None
            or static_k is not None or static_v is not None or add_zero_attn is not False
            or use_separate_proj_weight is not False or is_causal is not False or in_proj_bias is None
            or num_heads.__class__ is not int or embed_dim_to_check.__class__ is not int or not free()
            or _OVERRIDES[0]):  # fmt: skip
        return None
    if training is not False and (dropout_p.__class__ is not float or dropout_p != 0.0):
        return None
    dt = query._dtype
    tensors = (query, key, value, in_proj_weight, in_proj_bias, out_proj_weight)
    if out_proj_bias is not None:
        tensors += (out_proj_bias,)
    for t in tensors:
        if t._dtype is not dt or t.__class__ not in _CLASSES or not recordless(t):
            return None
    if dt not in _FLOATS:
        return None
    nd = query._data.ndim
    if nd not in (2, 3) or key._data.ndim != nd or value._data.ndim != nd:
        return None
    if nd == 2:  # unbatched: the body's unsqueeze(1) views, three objects (no packed product)
        query, key, value = (_view(t, t._data[:, None]) for t in (query, key, value))
    L, N, E = query._data.shape
    S = key._data.shape[0]
    H = num_heads
    if (E != embed_dim_to_check or H <= 0 or E % H or key._data.shape != (S, N, E)
            or value._data.shape != (S, N, E) or in_proj_weight._data.shape != (3 * E, E)
            or in_proj_bias._data.shape != (3 * E,) or out_proj_weight._data.shape != (E, E)
            or out_proj_bias is not None and out_proj_bias._data.shape != (E,) or L == 0 or S == 0 or N == 0):  # fmt: skip
        return None
    for t in (query, key, value):
        if not _rows_ok(t):
            return None
    hd = E // H
    W, B = in_proj_weight._data, in_proj_bias._data
    if query is key and key is value:
        qkv = _linear_rows(query, in_proj_weight, in_proj_bias)
        q, k, v = qkv[..., :E], qkv[..., E : 2 * E], qkv[..., 2 * E :]
    else:
        q = _linear_rows(query, _make(W[:E], dt), _make(B[:E], dt))
        k = _linear_rows(key, _make(W[E : 2 * E], dt), _make(B[E : 2 * E], dt))
        v = _linear_rows(value, _make(W[2 * E :], dt), _make(B[2 * E :], dt))
    q = q.reshape(L, N * H, hd).swapaxes(0, 1)
    k = k.reshape(S, N * H, hd).swapaxes(0, 1)
    v = v.reshape(S, N * H, hd).swapaxes(0, 1)
    if need_weights:
        # the mul kernel's one IEEE product by the scalar in the dtype, into a C-ordered result
        # as the body's (numtorch's pointwise results of a transposed input are C-ordered)
        qs = _empty(q.shape, q.dtype)
        tok = _quiet(_IGNORE)
        try:
            _multiply(q, q.dtype.type(math.sqrt(1.0 / float(hd))), out=qs)
        finally:
            _restore(tok)
        w = _make(product(qs, k.swapaxes(-2, -1)), dt).softmax(-1)
        out = product(w._data, v).swapaxes(0, 1).reshape(L * N, E)
    else:
        o = _sdpa(_make(q.reshape(N, H, L, hd), dt), _make(k.reshape(N, H, S, hd), dt),
                  _make(v.reshape(N, H, S, hd), dt), None, 0.0, False, None, False)  # fmt: skip
        out = o._data.transpose(2, 0, 1, 3).reshape(N * L, E)
    o2 = _make(out, dt)
    wo = _make(out_proj_weight._data.T, dt)
    if out_proj_bias is None:
        lin = _make(product(out, wo._data), dt)
    else:
        lin = dispatch(_ADDMM, [out_proj_bias, o2, wo, 1, 1])
    res = _view(lin, lin._data.reshape(L, N, -1))
    if nd == 2:
        res = _view(res, res._data[:, 0])
    if not need_weights:
        return res, None
    w = _view(w, w._data.reshape(N, H, L, S))
    if average_attn_weights:
        w = w.mean(1)
    if nd == 2:
        w = _view(w, w._data[0])
    return res, w


def install(bindings) -> None:
    """Put the fast call in front of the binding's body (numtorch/__init__.py, before
    _api.install). Not the binding's own fast call: that takes only plain Tensors for the
    relevant arguments, and bias_k, bias_v and the masks are mostly None here; a body-level
    call is not swapped out while a kernel is registered over an aten op (Note [Fast calls
    under kernel overrides]), so it declines itself then."""
    global _OVERRIDES, _ADDMM
    from ... import _api
    from ..._ops import ops
    from ..._tensor import Tensor
    from ...nn.parameter import Parameter

    _OVERRIDES = _api._OVERRIDES
    _ADDMM = ops.aten.addmm.default
    _CLASSES.update((Tensor, Parameter))
    for b in bindings:
        if (
            b.module == "torch.nn.functional"
            and b.name == "multi_head_attention_forward"
            and b.fast is None
        ):
            if getattr(b.body, "declines", None) is None:
                b.body = or_body(_mha_fast, b.body)
