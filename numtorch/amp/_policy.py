"""Autocast's op lists, one table per device type, and the key that applies them.

# Note [Autocast key]
# PyTorch's AutocastCPU/AutocastCUDA keys sit above Autograd: a listed op's floating inputs on
# that device are cast (the casts are recorded by autograd, so fp32 parameters get fp32
# gradients) and the op runs below the autocast key, so its own body is not cast again. numtorch
# has no key bit to spare on the hot path, so the key is installed instead: while autocast is on
# for any device type, each listed op's ``op.fast`` is wrapped (``sync``); when it is off
# everywhere, the wrappers are removed and plain calls pay nothing. A wrapper reads the state of
# its operands' device type, so CPU and CUDA regions share one mechanism and differ only by
# their rows of ``LISTS``. The fast path regenerates itself (``_dispatch._upgrade``); the wrapper
# notices that after the call and wraps the new one.
"""

from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor

# the lower-precision dtypes an autocast region may target; bfloat16 joins when _dtype has it
LOWER_DTYPES = tuple(d for d in (D.float16, getattr(D, "bfloat16", None)) if d is not None)

_CONV = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d convolution prelu"
_MM = "addmm addmv addr matmul einsum mm mv linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot"
_LOSSES = ("cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div l1_loss smooth_l1_loss "
           "huber_loss mse_loss margin_ranking_loss multilabel_margin_loss soft_margin_loss "
           "triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits poisson_nll_loss "
           "cross_entropy_loss")  # fmt: skip

# PyTorch's aten/src/ATen/autocast_mode.cpp, by packet name: "lower" runs in the region's dtype,
# "fp32" in float32, "fp32_dtype" passes dtype=float32 when none is given, "promote" runs in
# the widest floating type of its operands; "banned" raises BANNED_MSG.
LISTS: dict = {
    "cuda": {
        "lower": f"{_CONV} {_MM} lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell scaled_dot_product_attention",
        "fp32": "acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow softplus "
        "layer_norm native_layer_norm group_norm nuclear_norm cosine_similarity dist pdist cdist renorm "
        "logsumexp upsample_nearest1d upsample_nearest2d upsample_linear1d upsample_bilinear2d " + _LOSSES,
        "fp32_dtype": "prod softmax log_softmax cumprod cumsum linalg_vector_norm linalg_matrix_norm sum",
        "promote": "addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add",
        "banned": "binary_cross_entropy",
    },
    "cpu": {
        "lower": "conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm addbmm linear matmul "
        "conv_transpose1d conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention",
        "fp32": "avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft cdist trace "
        "view_as_complex cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse "
        "max_pool3d max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d "
        "replication_pad1d replication_pad2d replication_pad3d ctc_loss qr svd triangular_solve "
        "fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d linalg_qr linalg_cholesky_ex "
        "linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex " + _LOSSES,
        "fp32_dtype": "",
        "promote": "stack cat index_copy",
        "banned": "",
    },
}

BANNED_MSG = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
)

_POLICY: dict = {}  # packet name -> {device type: policy}, built on first use
_WRAPPED: dict = {}  # OpOverload -> (wrapper, holder of the wrapped fast)
_INSTALLED: list = []  # [True] while the wrappers are in the ops' fast slots
_BELOW = [0]  # > 0 while a listed op runs below the key (its body is not cast again)
_CACHE: dict = {}  # id(leaf) -> (leaf, version, dtype, cast): PyTorch's weight cast cache


def _policies() -> dict:
    if not _POLICY:
        for dev, rows in LISTS.items():
            for policy, names in rows.items():
                for name in names.split():
                    _POLICY.setdefault(name, {})[dev] = policy
    return _POLICY


def sync(state: dict) -> None:
    """Install the key's wrappers while any device type has autocast on; remove them otherwise."""
    on = any(s["enabled"] for s in state.values())
    if on == bool(_INSTALLED):
        return
    if not _WRAPPED:
        _make_wrappers(state)
    for op, (wrapper, holder) in _WRAPPED.items():
        if on:
            holder[0], op.fast = op.fast, wrapper
        elif op.fast is wrapper:
            op.fast = holder[0]
    _INSTALLED[:] = [True] if on else []


def clear_cache() -> None:
    _CACHE.clear()


def _make_wrappers(state: dict) -> None:
    # made once per process and kept: a region's entry then costs one attribute write per op
    from ..ops._registry import OPS

    table = _policies()
    for qual, op in OPS.items():
        ns, _, name = qual.partition("::")
        pol = table.get(name.partition(".")[0]) if ns == "aten" else None
        if pol and op.kind == "functional":
            _WRAPPED[op] = _wrap(op, pol, state)


def _wrap(op, pol: dict, state: dict):
    holder = [None]

    def fast(*vals):
        dev = _device_type(op, vals)
        st = state.get(dev)
        policy = pol.get(dev)
        if policy is None or _BELOW[0] or not st["enabled"]:
            r = holder[0](*vals)
        else:
            vals = _apply(op, policy, vals, st, dev)
            _BELOW[0] += 1
            try:
                r = holder[0](*vals)
            finally:
                _BELOW[0] -= 1
        if op.fast is not fast:  # the fast path regenerated itself (Note [Autocast key])
            holder[0], op.fast = op.fast, fast
        return r

    return fast, holder


def _device_type(op, vals):
    for i in op.tensor_idx:
        v = vals[i]
        if isinstance(v, Tensor):
            return v._device.type
    for i in op.list_idx:
        for v in vals[i]:
            if isinstance(v, Tensor):
                return v._device.type
    return None


def _eligible(v, dev) -> bool:
    return isinstance(v, Tensor) and v.dtype.is_floating_point and v.dtype is not D.float64 and v._device.type == dev


def _apply(op, policy: str, vals, st: dict, dev: str):
    if policy == "banned":
        raise RuntimeError(BANNED_MSG)
    if policy == "fp32_dtype":
        first = vals[op.tensor_idx[0]] if op.tensor_idx else None
        names = [a.name for a in op._schema.arguments]
        if "dtype" in names and _eligible(first, dev):
            vals = list(vals)
            i = names.index("dtype")
            vals[i] = D.float32 if vals[i] is None else vals[i]
        return vals
    if policy == "lower":
        to = st["dtype"]
    elif policy == "fp32":
        to = D.float32
    else:  # promote: the widest eligible floating type, starting from the region's dtype
        to = st["dtype"]
        for v in _operands(op, vals):
            if _eligible(v, dev):
                to = v.dtype if to is st["dtype"] else D.promote_types(to, v.dtype)
    cache = st["cache"] and policy == "lower"
    out = list(vals)
    for i in op.tensor_idx:
        out[i] = _cast(out[i], to, dev, cache)
    for i in op.list_idx:
        out[i] = [_cast(v, to, dev, cache) for v in out[i]]
    return out


def _operands(op, vals):
    for i in op.tensor_idx:
        yield vals[i]
    for i in op.list_idx:
        yield from vals[i]


def _cast(v, to, dev: str, cache: bool):
    if not _eligible(v, dev) or v.dtype is to:
        return v
    if not (cache and v._rg and v.is_leaf):
        return v.to(to)
    hit = _CACHE.get(id(v))
    if hit is not None and hit[0] is v and hit[1] == v._version and hit[2] is to:
        return hit[3]
    c = v.to(to)
    _CACHE[id(v)] = (v, v._version, to, c)
    return c
