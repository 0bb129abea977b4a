"""Batching rules: how each op runs on the values of BatchedTensors (Note [vmap key]).

Every value carries its batch dim first. Rule families:
- pointwise: pad the batched values' ranks (B, 1.., *shape) so that broadcasting lines up, call
  the op once; in-place ops need a batched ``self``.
- dim ops (reductions, scans, softmax, views that take dims): as pointwise, then each dim argument
  shifted past the batch dim; ``dim=None`` reductions reduce every per-sample dim.
- shape ops taking sizes (view, reshape, expand, repeat): the batch size prepended.
- trailing-dims ops (tril, linalg, pixel_shuffle ...): the op already treats leading dims as batch.
- matmul family: folded into one broadcasting ``matmul``; nn ops with a leading N (conv, pools,
  pads, upsampling): the batch dim folded into N.
- random ops: ``randomness`` decides (Note [vmap randomness], _random_rules.py).
- nn ops needing more than a fold (_rules_nn.py), indexing (_rules_index.py), ops with their own
  index arithmetic (einsum, take/put, searchsorted, norm natives, lstsq) and the data-dependent
  shape errors (_rules_more.py).
The vmap key skips this table for most pointwise calls (Note [vmap pointwise fast path]).
"""

from __future__ import annotations

from .. import _dispatch
from .._tensor import Tensor
from . import _rules_index, _rules_more, _rules_nn
from ._random_rules import random_rule
from .batched import BatchedTensor, is_batched_at, make_batched, raise_inplace_error, unwrap, wrap

_CACHE: dict = {}
_POINTWISE_OWNERS = {"Elementwise", "Routed", "Pointwise"}
_POINTWISE_NAMES = {
    "where", "_s_where", "clamp", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv",
    "masked_fill", "copysign", "nan_to_num", "xlogy", "logit", "polygamma", "heaviside", "fill",
    "clone", "detach", "_to_copy", "alias", "ones_like", "zeros_like", "empty_like", "full_like",
    "elu_backward", "gelu_backward", "sigmoid_backward", "tanh_backward", "leaky_relu_backward",
    "log_sigmoid_backward", "softshrink_backward", "hardshrink_backward", "softplus_backward",
    "threshold_backward", "hardtanh_backward", "silu_backward", "mish_backward", "lift_fresh",
    "hardswish_backward", "hardsigmoid_backward", "gelu", "complex", "angle", "isfinite", "isnan",
    "isinf", "isposinf", "isneginf", "signbit", "sgn", "conj_physical", "_conj_physical", "positive", "bitwise_not",
    "logical_not", "logical_and", "logical_or", "logical_xor", "frac", "round", "trunc", "square",
    "copy", "celu", "pow", "floor_divide", "zero", "frexp", "mvlgamma",
}  # fmt: skip
# reductions where dim=None (or an empty list) means every dim
_ALL_WHEN_NONE = {"sum", "mean", "nansum", "amax", "amin", "argmax", "argmin", "var", "std",
                  "var_mean", "std_mean", "any", "all", "count_nonzero", "norm", "aminmax"}  # fmt: skip
_DIM_OPS = _ALL_WHEN_NONE | {
    "prod", "logsumexp", "max", "min", "median", "nanmedian", "mode", "kthvalue", "sort", "argsort",
    "topk", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "_softmax", "_log_softmax",
    "glu", "flip", "transpose", "unsqueeze", "squeeze", "select", "slice", "narrow", "diagonal",
    "movedim", "split", "split_with_sizes", "chunk", "unbind", "flatten", "unflatten", "diag_embed",
    "_softmax_backward_data", "_log_softmax_backward_data", "glu_backward", "linalg_cross",
    "index_select", "cross", "diagonal_backward", "select_backward", "slice_backward",
    "_fft_c2c", "_fft_r2c", "_fft_c2r", "unfold", "unfold_backward", "_cumprod_grad",
}  # fmt: skip
# dim ops whose tensor arguments must all carry the batch (no broadcasting inside the kernel)
_EXPAND = {"gather", "scatter", "scatter_add", "scatter_reduce", "index_add",
           "index_copy", "index_fill", "linalg_cross"}  # fmt: skip
_DIM_OPS |= _EXPAND
_INDEX_ARGS = {"index"}  # 1-D index lists of index_* ops: never padded or expanded
_PLUS_ONE = {"unsqueeze", "diag_embed"}  # the dim wraps against the result's rank
_DIM_NAMES = {"dim", "dims", "dim0", "dim1", "dim2", "start_dim", "end_dim", "source", "destination",
              "dimension"}  # fmt: skip
_SIZE_OPS = {"view": "size", "reshape": "shape", "_unsafe_view": "size", "expand": "size",
             "repeat": "repeats", "_reshape_alias": "size"}  # fmt: skip
_TRAILING = {"tril", "triu", "linalg_inv", "inverse", "linalg_cholesky", "cholesky", "linalg_det",
             "linalg_slogdet", "linalg_eigh", "linalg_qr", "_linalg_svd", "linalg_svd",
             "linalg_svdvals", "linalg_eigvalsh", "pixel_shuffle", "pixel_unshuffle",
             "constant_pad_nd", "t", "numpy_T", "contiguous", "matrix_H", "view_as_real",
             "view_as_complex", "linalg_eig", "linalg_lu_factor_ex", "geqrf"}  # fmt: skip
# nn ops with an optional leading N: (the rank with N,) the batch dim folds into N
_FOLD = {"convolution": 0, "max_pool2d_with_indices": 4, "avg_pool2d": 4, "upsample_nearest2d": 4,
         "upsample_bilinear2d": 4, "reflection_pad2d": 4, "replication_pad2d": 4,
         "reflection_pad1d": 3, "replication_pad1d": 3, "reflection_pad3d": 5, "replication_pad3d": 5, "adaptive_avg_pool2d": 4,
         "_adaptive_avg_pool2d": 4, "adaptive_max_pool2d": 4, "im2col": 4, "col2im": 3, "avg_pool3d": 5,
         "max_pool3d_with_indices": 5, "adaptive_max_pool3d": 5, "_adaptive_avg_pool3d": 5}  # fmt: skip
# ops whose N is never optional, of any rank (channel_shuffle: Note [channel_shuffle's own node])
_FOLD_ANY = {"channel_shuffle"}
_RANDOM_NAMES = {"rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial",
                 "poisson", "rand_like", "randn_like", "randint_like", "uniform", "uniform_",
                 "normal_", "random_", "exponential_", "bernoulli_", "geometric_", "cauchy_",
                 "log_normal_"}  # fmt: skip


def rule_for(op):
    # keyed by id: an OpOverload's own __hash__ is Python code, paid on every vmapped call
    e = _CACHE.get(id(op))
    if e is None or e[0] is not op:
        e = _CACHE[id(op)] = (op, _classify(op))
    return e[1]


def _classify(op):
    name = op._schema.name.rstrip("_") if op.kind == "inplace" else op._schema.name
    if op._schema.name in _RANDOM_NAMES or name in _RANDOM_NAMES:
        return random_rule
    if op.kind == "out":
        return None
    if name in _MATMUL:
        return _MATMUL[name]
    if name in _rules_nn.RULES:
        return _rules_nn.RULES[name]
    if name in _rules_more.RULES:
        return _rules_more.RULES[name]
    if name in _rules_index.RULES and (name != "index" or op._overloadname == "Tensor"):
        return _rules_index.RULES[name]
    impl = op.impls.get("cpu")
    if op.kind == "inplace":  # an in-place op is pointwise when its functional variant is
        from ..ops._registry import OPS

        ov = "" if op._overloadname == "default" else f".{op._overloadname}"
        fn = OPS.get(f"{op._schema.namespace}::{name}{ov}")
        impl = fn.impls.get("cpu") if fn is not None else impl
    owner = type(getattr(impl, "__self__", None)).__name__
    if owner in _POINTWISE_OWNERS or name in _POINTWISE_NAMES:
        return pointwise
    has_dim = any(a.name in _DIM_NAMES for a in op._schema.arguments)
    if name in _FULL_REDUCE and not has_dim:
        return full_reduce
    if name in _DIM_OPS:
        return dim_rule
    if name in ("new_zeros", "new_ones", "new_empty", "new_full"):
        return new_factory_rule
    if name == "view" and op._overloadname == "dtype":
        return view_dtype_rule
    if name in _SIZE_OPS:
        return size_rule
    if name in _TRAILING:
        return trailing
    if name in _FOLD or name in _FOLD_ANY:
        return fold_rule
    if name in ("cat", "concat", "concatenate"):
        return cat_rule
    return None


# ---- helpers --------------------------------------------------------------------------------
def _pad(x: Tensor, r: int, rank: int) -> Tensor:
    # value (B, *s) of logical rank r -> (B, 1, .., *s) of logical rank ``rank``
    for _ in range(rank - r):
        x = x.unsqueeze(1)
    return x


def _shift(d, rank: int):
    n = max(rank, 1)
    if isinstance(d, (list, tuple)):
        return [_shift(x, rank) for x in d]
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return (d + n if d < 0 else d) + 1


def _aligned(op, vals, level, expand: bool, skip=()):
    """Pad every batched tensor argument to the common logical rank (and, with ``expand``, give
    unbatched ones the batch dim); returns (new vals, rank, batch size or None)."""
    rank, bsz = 0, None
    for i in op.tensor_idx:
        v = vals[i]
        if isinstance(v, Tensor) and op._schema.arguments[i].name not in skip:
            rank = max(rank, v._data.ndim)
            if is_batched_at(v, level):
                bsz = v._value._data.shape[0]
    new = list(vals)
    for i in op.tensor_idx:
        v = vals[i]
        if not isinstance(v, Tensor) or op._schema.arguments[i].name in skip:
            continue
        if is_batched_at(v, level):
            new[i] = _pad(v._value, v._data.ndim, rank) if not expand else v._value
        elif expand:
            new[i] = v.expand((bsz,) + tuple(v.shape))
    return new, rank


def _check_inplace(op, vals, level):
    if op.kind == "inplace" and not is_batched_at(vals[op.self_idx], level):
        raise_inplace_error(op)


def _finish(op, vals, out, level):
    if op.kind == "inplace":
        return vals[op.self_idx]
    return wrap(out, level)


# ---- pointwise ------------------------------------------------------------------------------
def pointwise(op, vals, lv):
    # the hottest rule (Note [vmap key]): one pass for the common rank, one to unwrap and pad
    level = lv.level
    if op.list_idx:
        return _loop(op, vals, lv)
    tix = op.tensor_idx
    rank = 0
    for i in tix:
        v = vals[i]
        if isinstance(v, Tensor) and v._data.ndim > rank:
            rank = v._data.ndim
    new = list(vals)
    for i in tix:
        v = vals[i]
        if v.__class__ is BatchedTensor and v._level == level:
            x = v._value
            r = v._data.ndim
            new[i] = x if r == rank else x.reshape(x.shape[:1] + (1,) * (rank - r) + x.shape[1:])
    if op.kind == "inplace":
        _check_inplace(op, vals, level)
        op.fast(*new)
        return vals[op.self_idx]
    out = op.fast(*new)
    return make_batched(out, level) if isinstance(out, Tensor) else wrap(out, level)


# ---- dims -----------------------------------------------------------------------------------
def dim_rule(op, vals, lv):
    level = lv.level
    _check_inplace(op, vals, level)
    name = op._schema.name.rstrip("_")
    skip = _INDEX_ARGS if name.startswith("index_") else ()
    for i in op.tensor_idx:
        if op._schema.arguments[i].name in skip and is_batched_at(vals[i], level):
            return _loop(op, vals, lv)
    new, rank = _aligned(op, vals, level, name in _EXPAND, skip=skip)
    if name in _PLUS_ONE:
        rank += 1
    args = op._schema.arguments
    for i, a in enumerate(args):
        if a.name == "input_sizes":  # the *_backward ops take the per-sample input shape
            new[i] = [lv.batch_size, *new[i]]
            rank = len(new[i]) - 1
        if a.name not in _DIM_NAMES or a.is_tensor:
            continue
        d = new[i]
        if d is None and name == "cross":  # the first per-sample dim of size 3
            d = next((k for k, n in enumerate(vals[op.tensor_idx[0]].shape) if n == 3), -1)
        if d is None or (isinstance(d, (list, tuple)) and not d and name in _ALL_WHEN_NONE):
            if name not in _ALL_WHEN_NONE or d is not None and name == "flip":
                continue
            if "[]" in str(a.type):
                new[i] = list(range(1, rank + 1))
                if rank == 0:
                    return _reduce_scalar(op, vals, new, i, level)
                continue
            return _reduce_flat(op, vals, new, i, rank, level)
        if isinstance(d, str):  # named dims are not supported under vmap
            return _loop(op, vals, lv)
        new[i] = _shift(d, rank)
    return _finish(op, vals, _call(op, new), level)


def _call(op, new):
    return op.fast(*new) if not op.list_idx else _dispatch.slow_dispatch(op, new)


def _reduce_scalar(op, vals, new, i, level):
    # a 0-d sample: reduce over a unit dim made for it
    t = op.tensor_idx[0]
    new[t] = new[t].unsqueeze(1)
    new[i] = [1]
    for k, a in enumerate(op._schema.arguments):
        if a.name == "keepdim":
            new[k] = False
    return wrap(op.fast(*new), level)


def _reduce_flat(op, vals, new, i, rank, level):
    # dim=None (argmax ...): flatten each sample, reduce dim 1, restore keepdim's unit dims
    t = op.tensor_idx[0]
    x = new[t]
    new[t] = x.reshape((x.shape[0], -1))
    new[i] = 1
    keep = False
    for k, a in enumerate(op._schema.arguments):
        if a.name == "keepdim":
            keep, new[k] = bool(new[k]), False
    out = op.fast(*new)
    if keep:
        shape = (out.shape[0],) + (1,) * rank
        out = tuple(o.reshape(shape) for o in out) if isinstance(out, tuple) else out.reshape(shape)
    return wrap(out, level)


_FULL_REDUCE = {"sum", "mean", "prod", "max", "min", "median", "nanmedian", "nansum", "all", "any",
                "trace", "amax", "amin", "logsumexp", "var", "std"}  # fmt: skip


def full_reduce(op, vals, lv):
    from .. import ops

    level = lv.level
    x = unwrap(vals[0], level)
    if not is_batched_at(vals[0], level):
        return _loop(op, vals, lv)
    name = op._schema.name
    if name == "trace":
        return wrap(x.diagonal(0, 1, 2).sum(-1), level)
    flat = x.reshape((x.shape[0], -1))
    aten = ops.aten
    if name in ("sum", "mean", "nansum"):
        dt = vals[1] if len(vals) > 1 else None
        return wrap(getattr(aten, name).dim_IntList(flat, [1], False, dtype=dt)
                    if name != "mean" else aten.mean.dim(flat, [1], False, dtype=dt), level)  # fmt: skip
    if name == "prod":
        return wrap(aten.prod.dim_int(flat, 1, False, dtype=vals[1] if len(vals) > 1 else None), level)
    if name in ("max", "min"):
        return wrap((flat.amax if name == "max" else flat.amin)(1), level)
    if name in ("median", "nanmedian"):
        return wrap(getattr(flat, name)(1)[0], level)
    if name in ("all", "any"):
        return wrap(getattr(flat, name)(1), level)
    return _loop(op, vals, lv)


# ---- sizes, trailing dims, folds --------------------------------------------------------------
def size_rule(op, vals, lv):
    level = lv.level
    x = vals[0]
    if not is_batched_at(x, level):
        return _loop(op, vals, lv)
    name = op._schema.name
    size = list(vals[1])
    v = x._value
    if name in ("expand", "repeat"):
        v = _pad(v, x._data.ndim, len(size))
    new = list(vals)
    new[0] = v
    new[1] = [v.shape[0] if name != "repeat" else 1] + size
    return wrap(op.fast(*new), level)


def new_factory_rule(op, vals, lv):
    # PyTorch's rule: a batched result (in-place writes of batched values into it then work)
    new = list(vals)
    new[0] = vals[0]._value
    new[1] = [lv.batch_size, *vals[1]]
    return make_batched(op.fast(*new), lv.level)


def view_dtype_rule(op, vals, lv):
    # the element size may change the last dim: a per-sample one, unless a sample is 0-d
    x = vals[0]
    if x.dim() == 0:
        return _loop(op, vals, lv)
    return make_batched(op.fast(x._value, vals[1]), lv.level)


def trailing(op, vals, lv):
    level = lv.level
    batched = [i for i in op.tensor_idx if is_batched_at(vals[i], level)]
    if batched != [op.tensor_idx[0]] or op.kind == "inplace":
        return _loop(op, vals, lv)
    if op._schema.name in ("t", "numpy_T"):
        v = vals[0]._value
        return make_batched(v.transpose(1, 2) if v.dim() == 3 else v, level)
    new = list(vals)
    new[0] = vals[0]._value
    return wrap(op.fast(*new), level)


def fold_rule(op, vals, lv):
    level = lv.level
    x = vals[0]
    name = op._schema.name
    full = x._data.ndim if name in _FOLD_ANY else _FOLD[name] or vals[1]._data.ndim
    others = [i for i in op.tensor_idx[1:] if is_batched_at(vals[i], level)]
    if not is_batched_at(x, level) or others:
        return _loop(op, vals, lv)
    v = x._value
    new = list(vals)
    if x._data.ndim == full:
        b, n = v.shape[0], v.shape[1]
        new[0] = v.reshape((b * n,) + tuple(v.shape[2:]))
        out = op.fast(*new)

        def unfold(o):
            return o.reshape((b, n) + tuple(o.shape[1:]))

        out = tuple(unfold(o) for o in out) if isinstance(out, tuple) else unfold(out)
        return wrap(out, level)
    new[0] = v
    return wrap(op.fast(*new), level)


def cat_rule(op, vals, lv):
    level = lv.level
    tensors = vals[0]
    bsz = next(t._value.shape[0] for t in tensors if is_batched_at(t, level))
    rank = max(t._data.ndim for t in tensors)
    vs = []
    for t in tensors:
        if t._data.ndim == 1 and t._data.shape[0] == 0 and rank > 1:
            continue  # PyTorch's legacy empty tensors are skipped by cat
        vs.append(t._value if is_batched_at(t, level) else t.expand((bsz,) + tuple(t.shape)))
    return wrap(op.fast(vs, _shift(vals[1], rank)), level)


# ---- matmul family --------------------------------------------------------------------------
def _mm_vals(a, b, level):
    """matmul of two (possibly batched) arguments on values, PyTorch's matmul semantics."""
    ba, bb = is_batched_at(a, level), is_batched_at(b, level)
    ra, rb = a._data.ndim, b._data.ndim
    va, vb = unwrap(a, level), unwrap(b, level)
    if ra == 1:
        va = va.unsqueeze(-2)
    if rb == 1:
        vb = vb.unsqueeze(-1)
    r = max(ra, rb, 2)
    if ba:
        va = _pad(va, max(ra, 2), r)
    if bb:
        vb = _pad(vb, max(rb, 2), r)
    out = _product(va, vb, ba, bb)
    if rb == 1:
        out = out.squeeze(-1)
    if ra == 1:
        out = out.squeeze(-1 if rb == 1 else -2)
    return out


def _product(va, vb, ba, bb):
    from .. import matmul

    if ba and not bb and vb.dim() == 2:  # one BLAS product over every sample's rows
        k, m = vb.shape
        return matmul(va.reshape((-1, k)), vb).reshape(tuple(va.shape[:-1]) + (m,))
    if bb and not ba and va.dim() == 2:
        n, k = va.shape
        rows = vb.transpose(-1, -2).reshape((-1, k))
        return matmul(rows, va.t()).reshape(tuple(vb.shape[:-2]) + (vb.shape[-1], n)).transpose(-1, -2)
    return matmul(va, vb)


def _matmul(op, vals, lv):
    return wrap(_mm_vals(vals[0], vals[1], lv.level), lv.level)


def _outer(op, vals, lv):
    level = lv.level
    a, b = vals
    va = unwrap(a, level).unsqueeze(-1)
    vb = unwrap(b, level)
    vb = vb.unsqueeze(-2) if is_batched_at(b, level) else vb.unsqueeze(0)
    return wrap(va * vb, level)


def _addmm(op, vals, lv):
    # beta * self + alpha * (m1 @ m2): the product folded, the sum broadcast (pointwise rule)
    level = lv.level
    s, m1, m2, beta, alpha = vals
    prod = _mm_vals(m1, m2, level)
    if is_batched_at(m1, level) or is_batched_at(m2, level):
        prod = make_batched(prod, level)
    if alpha != 1:
        prod = prod * alpha
    if op._schema.name in ("addbmm",):
        prod = prod.sum(0)
    return prod if beta == 0 else prod + (s if beta == 1 else s * beta)


_MATMUL = {"mm": _matmul, "bmm": _matmul, "matmul": _matmul, "mv": _matmul, "dot": _matmul,
           "inner": _matmul, "outer": _outer, "ger": _outer, "addmm": _addmm,
           "addmv": _addmm, "baddbmm": _addmm, "addbmm": _addmm}  # fmt: skip


def _loop(op, vals, lv):
    from .batched import loop_fallback

    return loop_fallback(op, vals, lv)


__all__ = ["BatchedTensor", "rule_for"]


def rule_table() -> dict:
    """``{op name: batching rule name, "composite", "no tensor input" or None}`` for every
    registered op but out= variants: None marks the ops that take the loop fallback (the closing
    note's table is made from it)."""
    from ..ops._registry import OPS

    def kind(op):
        if op.impls.get("composite") is not None:
            return "composite"  # decomposes into ops that dispatch themselves
        if not op.tensor_idx and not op.list_idx and rule_for(op) is None:
            return "no tensor input"  # a factory: never batched
        return getattr(rule_for(op), "__name__", None)

    return {name: kind(op) for name, op in sorted(OPS.items()) if op.kind != "out"}
