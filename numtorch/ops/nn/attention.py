"""Attention: ``scaled_dot_product_attention`` (ATen's math composite) and
``F.multi_head_attention_forward`` (a port of PyTorch's Python function, minus static_k/static_v)."""

from __future__ import annotations

import math
import warnings

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from .._registry import body_of, defop, fast_of, public
from ...backends.cuda import _SDP  # the sdpa backend flags (nn.attention.sdpa_kernel sets them)

_F = "torch.nn.functional"

aten = _ops.aten  # Note [Composite bodies are below the Python API]


class _Fn:
    """F.linear / F.pad / F.dropout without their gates (the calls a mode must not see)."""

    @staticmethod
    def linear(x, w, b=None):
        return aten.linear.default(x, w, b)

    @staticmethod
    def pad(x, pad, mode="constant", value=None):
        return aten.pad.default(x, list(pad), mode, value)

    @staticmethod
    def dropout(x, p=0.5, training=True, inplace=False):
        return body_of("dropout", "torch.nn.functional")(x, p, training, inplace)


def _bool_to_bias(mask, dtype):
    """A boolean mask (True = attend) as an additive float mask (-inf where masked)."""
    zeros = aten.zeros.default(mask.shape, dtype=dtype, device=mask.device)
    keep = dispatch(aten.logical_not.default, [mask])
    return dispatch(aten.masked_fill.Scalar, [zeros, keep, float("-inf")])


def _safe_softmax(x, dim):
    out = dispatch(aten.softmax.int, [x, dim, None])
    masked = dispatch(aten.eq.Scalar, [x, float("-inf")])
    masked = fast_of("all", "Tensor")(masked, dim, True)  # Tensor.all's fused path
    return dispatch(aten.masked_fill.Scalar, [out, masked, 0.0])


# Note [Composite bodies are below the Python API]: op calls, never Tensor methods or operators
# (patching Tensor.transpose must not change attention); dispatch() with every schema value
# skips the aten overloads' argument binding.
def _sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    if attn_mask is not None and attn_mask.dtype is D.bool:
        attn_mask = _bool_to_bias(attn_mask, query.dtype)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
            )
        L, S = query.shape[-2], key.shape[-2]
        ones = aten.ones.default((L, S), dtype=D.bool, device=query.device)
        attn_mask = _bool_to_bias(dispatch(aten.tril.default, [ones, 0]), query.dtype)
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = dispatch(aten.repeat_interleave.self_int, [key, rep, -3, None])
        value = dispatch(aten.repeat_interleave.self_int, [value, rep, -3, None])
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    root = math.sqrt(abs(s))
    q = dispatch(aten.mul.Tensor, [query, -root if s < 0 else root])
    kt = dispatch(aten.mul.Tensor, [body_of("transpose", "Tensor")(key, -2, -1), root])
    attn = dispatch(aten.matmul.default, [q, kt])
    if attn_mask is not None:
        attn = dispatch(aten.add.Tensor, [attn, attn_mask, 1])
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = aten.dropout.default(attn, dropout_p, True)
    return dispatch(aten.matmul.default, [attn, value])


scaled_dot_product_attention = defop(
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
    "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
    composite=_sdpa,
)


def _f_sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """softmax(Q K^T * scale + mask) V, with optional causal mask and dropout.

    >>> q = numtorch.ones(1, 2, 4)
    >>> numtorch.nn.functional.scaled_dot_product_attention(q, q, q).shape
    torch.Size([1, 2, 4])
    """
    if not _SDP["math"]:  # numtorch's only backend; the fused ones are CUDA kernels it lacks (nn.attention)
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due to turning off "
            "both the math kernel and the fused kernels."
        )
    return dispatch(
        scaled_dot_product_attention,
        [query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa],
    )


public("scaled_dot_product_attention", "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, "
       "scale=None, enable_gqa=False", _f_sdpa, relevant=("query", "key", "value", "attn_mask"), module=_F,
       ops=(scaled_dot_product_attention,))  # fmt: skip


# ---- multi-head attention ---------------------------------------------------------------------------
def _canonical_mask(mask, name, other_type, other_name, target_type):
    if mask is None:
        return None
    if mask.dtype is not D.bool and mask.dtype.category != D._FLOAT:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=4)  # fmt: skip
    if mask.dtype is D.bool:
        return aten.zeros.default(mask.shape, dtype=target_type).masked_fill(mask, float("-inf"))
    return mask


def _batched(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _rows_linear(x, w, b):
    """F.linear of an (L, N, E) input. A batch_first module hands over the transpose of a
    contiguous (N, L, E) tensor; linear acts on the last dim only, so the product runs on the
    contiguous tensor (one addmm) and is transposed back, instead of copying the input first."""
    if x.dim() == 3 and not x.is_contiguous():
        xt = dispatch(aten.transpose.int, [x, 0, 1])
        if xt.is_contiguous():
            return dispatch(aten.transpose.int, [_Fn.linear(xt, w, b), 0, 1])
    return _Fn.linear(x, w, b)


def _project(query, key, value, E, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w):
    if not separate and query is key and key is value:
        # self-attention: one product with the packed weight (PyTorch's _in_projection_packed)
        return _rows_linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias.chunk(3)
    if not separate:
        wq, wk, wv = in_proj_weight.chunk(3)
    else:
        wq, wk, wv = q_w, k_w, v_w
    return _rows_linear(query, wq, bq), _rows_linear(key, wk, bk), _rows_linear(value, wv, bv)


def _merge_masks(attn_mask, key_padding_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    return attn_mask


def _mha_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                 add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
                 attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
                 average_attn_weights, is_causal):  # fmt: skip
    """The attention computation of :class:`numtorch.nn.MultiheadAttention` on (L, N, E) inputs.

    >>> x = numtorch.ones(2, 1, 4)
    >>> w, b = numtorch.ones(12, 4) / 4, numtorch.zeros(12)
    >>> out, _ = numtorch.nn.functional.multi_head_attention_forward(
    ...     x, x, x, 4, 2, w, b, None, None, False, 0.0, numtorch.eye(4), None)
    >>> out.shape
    torch.Size([2, 1, 4])
    """
    F = _Fn
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "numtorch's multi_head_attention_forward does not take static_k / static_v"
        )
    batched = _batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)  # fmt: skip
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _project(query, key, value, embed_dim, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                       q_proj_weight, k_proj_weight, v_proj_weight)  # fmt: skip
    attn_mask = _merge_masks(attn_mask, key_padding_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        k = aten.cat.default([k, bias_k.repeat(1, bsz, 1)])
        v = aten.cat.default([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = aten.zeros.default((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k, v = aten.cat.default([k, zeros], 1), aten.cat.default([v, zeros], 1)
        attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = (
            key_padding_mask.reshape(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        w = aten.matmul.default(q * math.sqrt(1.0 / float(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            w = w + attn_mask
        w = w.softmax(-1)
        if dropout_p > 0.0:
            w = F.dropout(w, p=dropout_p)
        out = aten.matmul.default(w, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        w = w.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(1)
        if not batched:
            out, w = out.squeeze(1), w.squeeze(0)
        return out, w
    if attn_mask is not None:
        attn_mask = (
            attn_mask.unsqueeze(0)
            if attn_mask.shape[0] == 1
            else attn_mask.reshape(bsz, num_heads, -1, src_len)
        )
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = _sdpa(q, k, v, attn_mask, dropout_p, is_causal, None, False)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not batched:
        out = out.squeeze(1)
    return out, None


public("multi_head_attention_forward",
       "query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, "
       "add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, "
       "need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None, "
       "v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True, is_causal=False",
       _mha_forward, relevant=("query", "key", "value", "in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                               "out_proj_weight", "out_proj_bias", "key_padding_mask", "attn_mask"),
       module=_F)  # fmt: skip
