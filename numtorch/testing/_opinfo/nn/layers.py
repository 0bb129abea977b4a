"""OpInfos for the nn area, continued: resampling, normalization, layers, attention and losses."""

from __future__ import annotations

import numpy as np
from .. import _npmath as special

from ..core import OpInfo, SampleInput, make_arg

F = "nn.functional."
_T32 = {"float32": (1e-4, 1e-4)}


def _a(dtype, rng, low=-2, high=2):
    return lambda *s: make_arg(s, dtype, rng, low, high)


def _log_softmax(x, dim):
    m = x.max(axis=dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def _reduce(x, reduction):
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(x)


# ---- resampling ---------------------------------------------------------------------------------------
def _taps(n_in, n_out, mode, align, scale, npdt):
    if mode == "nearest":
        s = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
        i = np.minimum(np.floor(np.arange(n_out, dtype=np.float32) * s).astype(np.int64), n_in - 1)
        return i, i, np.ones(n_out), np.zeros(n_out)
    if align:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        src = s * np.arange(n_out)
    else:
        s = 1.0 / scale if scale else n_in / n_out
        src = np.maximum(s * (np.arange(n_out) + 0.5) - 0.5, 0)
    i0 = src.astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    l1 = src - i0
    return i0, i1, 1 - l1, l1


def interpolate_ref(x, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                    antialias=False):  # fmt: skip
    sp = x.shape[2:]
    scales = (
        [scale_factor] * len(sp)
        if scale_factor is not None and not isinstance(scale_factor, tuple)
        else scale_factor
    )
    if size is None:
        size = [int(np.floor(n * s)) for n, s in zip(sp, scales, strict=False)]
    size = [size] * len(sp) if isinstance(size, int) else list(size)
    scales = scales or [None] * len(sp)
    out = x.astype(np.float64)
    for ax, (n_in, n_out, sc) in enumerate(zip(sp, size, scales, strict=False)):
        i0, i1, w0, w1 = _taps(n_in, n_out, mode, bool(align_corners), sc, x.dtype.type)
        axis = 2 + ax
        shape = [1] * x.ndim
        shape[axis] = n_out
        out = np.take(out, i0, axis) * w0.reshape(shape) + np.take(out, i1, axis) * w1.reshape(
            shape
        )
    return out.astype(x.dtype)


def _interp_samples(dtype, rng):
    a = _a(dtype, rng)
    return [
        SampleInput(a(1, 2, 3, 4), kwargs={"scale_factor": 2}, name="nearest_x2"),
        SampleInput(a(1, 2, 3, 4), kwargs={"size": (5, 3)}, name="nearest_size"),
        SampleInput(a(1, 2, 3, 4), kwargs={"size": (5, 7), "mode": "bilinear"}, name="bilinear"),
        SampleInput(
            a(1, 1, 3, 3),
            kwargs={"scale_factor": 1.5, "mode": "bilinear", "align_corners": True},
            name="ac",
        ),
        SampleInput(a(2, 2, 4), kwargs={"scale_factor": 1.5, "mode": "linear"}, name="linear"),
        SampleInput(a(2, 2, 4), kwargs={"size": 6}, name="nearest1d"),
    ]


def pad_ref(x, pad, mode="constant", value=None):
    pad = list(pad)
    widths = [(0, 0)] * x.ndim
    crops = [slice(None)] * x.ndim
    for k in range(len(pad) // 2):
        d = x.ndim - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        widths[d] = (max(lo, 0), max(hi, 0))
        crops[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
    x = x[tuple(crops)]
    np_mode = {
        "constant": "constant",
        "reflect": "reflect",
        "replicate": "edge",
        "circular": "wrap",
    }[mode]
    kw = {"constant_values": value or 0} if mode == "constant" else {}
    return np.pad(x, widths, mode=np_mode, **kw)


def _pad_samples(dtype, rng):
    a = _a(dtype, rng)
    return [
        SampleInput(a(1, 2, 3, 4), ((1, 2, 0, 1),), kwargs={"value": 1.5}, name="constant"),
        SampleInput(a(2, 3, 4), ((-1, 2),), name="negative"),
        SampleInput(a(1, 2, 3, 4), ((1, 2, 2, 1),), {"mode": "reflect"}, name="reflect2d"),
        SampleInput(a(2, 5), ((2, 3),), {"mode": "reflect"}, name="reflect1d"),
        SampleInput(a(1, 2, 3, 4), ((1, 2, 3, 1),), {"mode": "replicate"}, name="replicate"),
        SampleInput(a(1, 2, 3, 4), ((1, 2, 3, 1),), {"mode": "circular"}, name="circular"),
        SampleInput(a(1, 2, 3, 4, 3), ((1, 2, 2, 1, 0, 2),), {"mode": "reflect"}, name="reflect3d"),
        SampleInput(a(2, 3, 2, 3), ((2, 1, 0, 3, 1, 1),), {"mode": "replicate"}, name="replicate3d"),
    ]


def pixel_shuffle_ref(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    return y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2).reshape(
        *b, c // (r * r), h * r, w * r
    )


def pixel_unshuffle_ref(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    return y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3).reshape(
        *b, c * r * r, h // r, w // r
    )


def _unfold_windows(H, W, k, d, p, s):
    OH = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    OW = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return OH, OW


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def unfold_ref(x, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = map(_pair, (kernel_size, dilation, padding, stride))
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    OH, OW = _unfold_windows(H, W, k, d, p, s)
    out = np.empty((N, C, k[0], k[1], OH * OW), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            v = xp[
                :,
                :,
                i * d[0] : i * d[0] + s[0] * (OH - 1) + 1 : s[0],
                j * d[1] : j * d[1] + s[1] * (OW - 1) + 1 : s[1],
            ]
            out[:, :, i, j] = v.reshape(N, C, -1)
    return out.reshape(N, C * k[0] * k[1], OH * OW)


def fold_ref(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = map(_pair, (kernel_size, dilation, padding, stride))
    H, W = _pair(output_size)
    N = x.shape[0]
    C = x.shape[1] // (k[0] * k[1])
    OH, OW = _unfold_windows(H, W, k, d, p, s)
    xp = np.zeros((N, C, H + 2 * p[0], W + 2 * p[1]), x.dtype)
    cols = x.reshape(N, C, k[0], k[1], OH, OW)
    for i in range(k[0]):
        for j in range(k[1]):
            xp[
                :,
                :,
                i * d[0] : i * d[0] + s[0] * (OH - 1) + 1 : s[0],
                j * d[1] : j * d[1] + s[1] * (OW - 1) + 1 : s[1],
            ] += cols[:, :, i, j]
    return xp[:, :, p[0] : p[0] + H, p[1] : p[1] + W]


RESAMPLE = [
    OpInfo(F + "interpolate", interpolate_ref, _interp_samples, tol=_T32, variants=("nn.functional.upsample",)),
    OpInfo(F + "pad", pad_ref, _pad_samples),
    OpInfo(F + "pixel_shuffle", pixel_shuffle_ref, lambda d, r: [SampleInput(_a(d, r)(1, 8, 2, 3), (2,)),
                                                                  SampleInput(_a(d, r)(1, 4, 1, 2), (2,))],
           variants=("pixel_shuffle",)),
    OpInfo(F + "pixel_unshuffle", pixel_unshuffle_ref, lambda d, r: [SampleInput(_a(d, r)(2, 4, 6), (2,)),
                                                                      SampleInput(_a(d, r)(1, 2, 4), (2,))],
           variants=("pixel_unshuffle",)),
    OpInfo(F + "unfold", unfold_ref, lambda d, r: [SampleInput(_a(d, r)(1, 2, 4, 5), ((2, 3),), {"padding": 1, "stride": 2}),
                                                  SampleInput(_a(d, r)(2, 1, 4, 4), (2,), {"dilation": 2})]),
    OpInfo(F + "fold", fold_ref, lambda d, r: [SampleInput(_a(d, r)(1, 8, 8), ((4, 5), 2), {"stride": (2, 1)}),
                                              SampleInput(_a(d, r)(2, 4, 16), ((3, 3), 2), {"padding": 1, "stride": 1}),
                                              SampleInput(_a(d, r)(1, 4, 6), ((3, 4), 2))]),
]  # fmt: skip


# ---- normalization ---------------------------------------------------------------------------------------
def layer_norm_ref(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    return y * (1 if weight is None else weight) + (0 if bias is None else bias)


def batch_norm_ref(
    x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if training:
        m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    else:
        m, v = running_mean.reshape(shape), running_var.reshape(shape)
    y = (x - m) / np.sqrt(v + eps)
    w = 1 if weight is None else weight.reshape(shape)
    return y * w + (0 if bias is None else bias.reshape(shape))


def group_norm_ref(x, num_groups, weight=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, num_groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * (1 if weight is None else weight.reshape(shape)) + (
        0 if bias is None else bias.reshape(shape)
    )


def instance_norm_ref(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                      momentum=0.1, eps=1e-5):  # fmt: skip
    axes = tuple(range(2, x.ndim))
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return y * (1 if weight is None else weight.reshape(shape)) + (
        0 if bias is None else bias.reshape(shape)
    )


def _ln_samples(dtype, rng):
    a = _a(dtype, rng)
    return [SampleInput(a(3, 4), ((4,), a(4), a(4))), SampleInput(a(2, 3, 2), ((3, 2),)),
            SampleInput(a(2, 5), ((5,),), {"eps": 0.1})]  # fmt: skip


def _bn_samples(dtype, rng):
    a = _a(dtype, rng)
    rm, rv = a(3), make_arg((3,), dtype, rng, 0.5, 2)
    return [
        SampleInput(a(4, 3), (None, None, a(3), a(3)), {"training": True}, name="train_1d"),
        SampleInput(a(2, 3, 2, 2), (None, None), {"training": True}, name="train_2d"),
        SampleInput(a(4, 3, 2), (), {"running_mean": rm, "running_var": rv}, name="eval"),
    ]


def rms_norm_ref(x, normalized_shape, weight=None, eps=None):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    e = np.finfo(x.dtype).eps if eps is None else eps
    y = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + e)
    return y * (1 if weight is None else weight)


NORM = [
    OpInfo(F + "layer_norm", layer_norm_ref, _ln_samples, tol=_T32),
    OpInfo(F + "batch_norm", batch_norm_ref, _bn_samples, tol=_T32),
    OpInfo(F + "group_norm", group_norm_ref, lambda d, r: [SampleInput(_a(d, r)(2, 4, 3), (2, _a(d, r)(4), _a(d, r)(4))),
                                                          SampleInput(_a(d, r)(2, 6, 2, 2), (3,))], tol=_T32),
    OpInfo(F + "rms_norm", rms_norm_ref, lambda d, r: [SampleInput(_a(d, r)(3, 4), ((4,), _a(d, r)(4))),
                                                      SampleInput(_a(d, r)(2, 2, 3), ((2, 3),), {"eps": 0.1})], tol=_T32),
    OpInfo(F + "instance_norm", instance_norm_ref, lambda d, r: [SampleInput(_a(d, r)(2, 3, 4)),
                                                                SampleInput(_a(d, r)(1, 2, 2, 3), (), {"eps": 0.01})],
           tol=_T32),
]  # fmt: skip


# ---- layers ----------------------------------------------------------------------------------------------
def _bilinear_ref(x1, x2, w, b=None):
    out = np.einsum("...i,oij,...j->...o", x1, w, x2)
    return out + b if b is not None else out


def _sdpa_ref(
    q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    s = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    att = q @ np.swapaxes(k, -1, -2) * s
    if is_causal:
        att = np.where(np.tril(np.ones(att.shape[-2:], bool)), att, -np.inf)
    if attn_mask is not None:
        att = np.where(attn_mask, att, -np.inf) if attn_mask.dtype == bool else att + attn_mask
    e = np.exp(att - att.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def _sdpa_samples(dtype, rng):
    a = _a(dtype, rng)
    mask = np.array([[True, False, True], [True, True, False]])
    return [SampleInput(a(1, 2, 3), (a(1, 3, 3), a(1, 3, 2))),
            SampleInput(a(2, 3, 2), (a(2, 3, 2), a(2, 3, 2)), {"is_causal": True, "scale": 0.5}),
            SampleInput(a(1, 2, 3), (a(1, 3, 3), a(1, 3, 2)), {"attn_mask": mask})]  # fmt: skip


def _identity_dropout(x, p=0.5, training=True, inplace=False):
    return x


def _dropout_samples(dtype, rng):
    a = _a(dtype, rng)
    return [
        SampleInput(a(2, 3, 2), (0.5, False), name="eval"),
        SampleInput(a(2, 3, 2), (0.0, True), name="p0"),
    ]


def _cos_ref(x1, x2, dim=1, eps=1e-8):
    n1 = np.maximum(np.linalg.norm(x1, axis=dim, keepdims=True), eps)
    n2 = np.maximum(np.linalg.norm(x2, axis=dim, keepdims=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _embedding_samples(dtype, rng):
    w = make_arg((6, 3), dtype, rng)
    return [
        SampleInput(np.array([[0, 2, 5], [2, 2, 1]]), (w,)),
        SampleInput(np.array([4, 0]), (w,), {"padding_idx": 0}),
    ]


LAYERS = [
    OpInfo(F + "linear", lambda x, w, b=None: x @ w.T + (0 if b is None else b),
           lambda d, r: [SampleInput(_a(d, r)(3, 4), (_a(d, r)(2, 4), _a(d, r)(2))),
                         SampleInput(_a(d, r)(2, 2, 3), (_a(d, r)(4, 3),))], tol=_T32),
    OpInfo(F + "bilinear", _bilinear_ref, lambda d, r: [SampleInput(_a(d, r)(3, 2), (_a(d, r)(3, 3), _a(d, r)(4, 2, 3),
                                                                                     _a(d, r)(4)))],
           tol=_T32, variants=("bilinear",)),
    OpInfo(F + "dropout", _identity_dropout, _dropout_samples),
    OpInfo(F + "dropout1d", _identity_dropout, _dropout_samples),
    OpInfo(F + "dropout2d", _identity_dropout, lambda d, r: [SampleInput(_a(d, r)(1, 2, 2, 2), (0.3, False))]),
    OpInfo(F + "alpha_dropout", _identity_dropout, _dropout_samples),
    OpInfo(F + "feature_alpha_dropout", _identity_dropout, _dropout_samples),
    OpInfo(F + "embedding", lambda i, w, padding_idx=None: w[i], _embedding_samples, grad=False,
           skips={"grad": "the input is an index tensor; weight gradients are checked in tests/ops/nn/test_nn.py"}),
    OpInfo(F + "one_hot", lambda t, num_classes=-1: np.eye(t.max() + 1 if num_classes < 0 else num_classes,
                                                            dtype=np.int64)[t],
           lambda d, r: [SampleInput(np.array([0, 3, 1])), SampleInput(np.array([[1], [0]]), (4,))],
           dtypes=("int64",), grad=False),
    OpInfo(F + "cosine_similarity", _cos_ref, lambda d, r: [SampleInput(_a(d, r)(3, 4), (_a(d, r)(3, 4),)),
                                                           SampleInput(_a(d, r)(2, 3), (_a(d, r)(1, 3), 1))],
           variants=("cosine_similarity",)),
    OpInfo(F + "pairwise_distance", lambda x1, x2, p=2.0, eps=1e-6, keepdim=False:
           np.linalg.norm(x1 - x2 + eps, ord=p, axis=-1, keepdims=keepdim),
           lambda d, r: [SampleInput(_a(d, r)(3, 4), (_a(d, r)(3, 4),)), SampleInput(_a(d, r)(4), (_a(d, r)(4), 1.0))],
           variants=("pairwise_distance",)),
    OpInfo(F + "scaled_dot_product_attention", _sdpa_ref, _sdpa_samples, tol=_T32),
    OpInfo(F + "multi_head_attention_forward", None,
           lambda d, r: [SampleInput(_a(d, r)(2, 1, 4), (_a(d, r)(2, 1, 4), _a(d, r)(2, 1, 4), 4, 2, _a(d, r)(12, 4),
                                                        _a(d, r)(12), None, None, False, 0.0, _a(d, r)(4, 4),
                                                        _a(d, r)(4)))],
           skips={"gradgrad": "covered by the linear/softmax/matmul pieces it is built from"}),
]  # fmt: skip


# ---- losses -----------------------------------------------------------------------------------------------
def cross_entropy_ref(x, t, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                      label_smoothing=0.0):  # fmt: skip
    cd = 0 if x.ndim == 1 else 1
    C = x.shape[cd]
    logp = _log_softmax(x, cd)
    w = np.ones(C, x.dtype) if weight is None else weight
    wshape = [1] * x.ndim
    wshape[cd] = C
    if t.dtype.kind == "f":
        tt = t * (1 - label_smoothing) + label_smoothing / C
        per = -(logp * tt * w.reshape(wshape)).sum(cd)
        return per.sum() / (x.size / C) if reduction == "mean" else _reduce(per, reduction)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, np.expand_dims(safe, cd), cd).squeeze(cd)
    wt = w[safe] * keep
    nll = -picked * wt
    smooth = -(logp * w.reshape(wshape)).sum(cd) * keep
    if reduction == "mean":
        nll_r, smooth_r = nll.sum() / wt.sum(), smooth.sum() / wt.sum()
    else:
        nll_r, smooth_r = _reduce(nll, reduction), _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll_r + label_smoothing / C * smooth_r


def nll_loss_ref(
    x, t, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    return _nll(x, t, weight, ignore_index, reduction)


def _nll(x, t, weight, ignore_index, reduction):
    cd = 0 if x.ndim == 1 else 1
    w = np.ones(x.shape[cd], x.dtype) if weight is None else weight
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(x, np.expand_dims(safe, cd), cd).squeeze(cd)
    wt = w[safe] * keep
    per = -picked * wt
    return per.sum() / wt.sum() if reduction == "mean" else _reduce(per, reduction)


def _ce_samples(dtype, rng):
    a = _a(dtype, rng)
    t = np.array([0, 2, 1, 2])
    w = make_arg((3,), dtype, rng, 0.5, 2)
    return [
        SampleInput(a(4, 3), (t,), name="index"),
        SampleInput(a(4, 3), (t,), {"reduction": "sum", "ignore_index": 2}, name="ignore"),
        SampleInput(a(4, 3), (t,), {"weight": w, "reduction": "none"}, name="weight"),
        SampleInput(
            a(4, 3),
            (t,),
            {"weight": w, "label_smoothing": 0.2, "ignore_index": 1},
            name="smoothing",
        ),
        SampleInput(a(3), (np.array(1),), name="unbatched"),
        SampleInput(a(2, 3, 2, 2), (rng.integers(0, 3, (2, 2, 2)),), name="4d"),
        SampleInput(a(2, 3, 3), (rng.integers(0, 3, (2, 3)),), {"reduction": "none"}, name="3d"),
        SampleInput(
            a(3, 3), (make_arg((3, 3), dtype, rng, 0, 1),), {"label_smoothing": 0.1}, name="probs"
        ),
    ]


def _nll_samples(dtype, rng):
    return [s for s in _ce_samples(dtype, rng) if s.name not in ("smoothing", "probs")]


def _pair_samples(low=-2, high=2, tlow=-2, thigh=2, extra=(), reductions=("mean", "sum", "none")):
    def gen(dtype, rng):
        out = []
        for red in reductions:
            x = make_arg((3, 4), dtype, rng, low, high)
            out.append(SampleInput(x, (make_arg((3, 4), dtype, rng, tlow, thigh),), {"reduction": red, **dict(extra)},
                                   name=red))  # fmt: skip
        return out

    return gen


def _smooth_l1(x, t, size_average=None, reduce=None, reduction="mean", beta=1.0):
    d = np.abs(x - t)
    return _reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def _huber(x, t, reduction="mean", delta=1.0, weight=None):
    d = np.abs(x - t)
    return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def _bce(x, t, weight=None, size_average=None, reduce=None, reduction="mean"):
    per = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return _reduce(per * (1 if weight is None else weight), reduction)


def _bce_logits(
    x, t, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    pw = 1 if pos_weight is None else pos_weight
    per = -(pw * t * np.log(special.expit(x)) + (1 - t) * np.log(special.expit(-x)))
    return _reduce(per * (1 if weight is None else weight), reduction)


def _kl(x, t, size_average=None, reduce=None, reduction="mean", log_target=False):
    per = np.exp(t) * (t - x) if log_target else special.xlogy(t, t) - t * x
    if reduction == "batchmean":
        return per.sum() / x.shape[0]
    return _reduce(per, reduction)


def _ranking(x1, x2, y, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _reduce(np.maximum(0, -y * (x1 - x2) + margin), reduction)


def _cos_embedding(x1, x2, y, margin=0, size_average=None, reduce=None, reduction="mean"):
    cos = (x1 * x2).sum(-1) / np.sqrt(((x1 * x1).sum(-1) + 1e-12) * ((x2 * x2).sum(-1) + 1e-12))
    return _reduce(np.where(y == 1, 1 - cos, np.maximum(0, cos - margin)), reduction)


def _triple_samples(dtype, rng):
    y = np.array([1.0, -1.0, 1.0, -1.0], dtype)
    return [SampleInput(_a(dtype, rng)(4, 3), (_a(dtype, rng)(4, 3), y), {"margin": 0.2, "reduction": r}, name=r)
            for r in ("mean", "sum", "none")]  # fmt: skip


def _ranking_samples(dtype, rng):
    y = np.array([1.0, -1.0, 1.0, -1.0], dtype)
    return [SampleInput(_a(dtype, rng)(4), (_a(dtype, rng)(4), y), {"margin": 0.3, "reduction": r}, name=r)
            for r in ("mean", "sum", "none")]  # fmt: skip


LOSSES = [
    OpInfo(F + "cross_entropy", cross_entropy_ref, _ce_samples, tol=_T32),
    OpInfo(F + "nll_loss", nll_loss_ref, _nll_samples, tol=_T32),
    OpInfo(F + "mse_loss", lambda x, t, size_average=None, reduce=None, reduction="mean", weight=None:
           _reduce((x - t) ** 2, reduction), _pair_samples(), tol=_T32),
    OpInfo(F + "l1_loss", lambda x, t, size_average=None, reduce=None, reduction="mean", weight=None:
           _reduce(np.abs(x - t), reduction), _pair_samples(), tol=_T32),
    OpInfo(F + "smooth_l1_loss", _smooth_l1, _pair_samples(extra={"beta": 0.7}.items()), tol=_T32),
    OpInfo(F + "huber_loss", _huber, _pair_samples(extra={"delta": 0.7}.items()), tol=_T32),
    OpInfo(F + "binary_cross_entropy", _bce, _pair_samples(0.05, 0.95, 0, 1), tol=_T32),
    OpInfo(F + "binary_cross_entropy_with_logits", _bce_logits, _pair_samples(-3, 3, 0, 1), tol=_T32),
    OpInfo(F + "kl_div", _kl, _pair_samples(-2, 0, 0.1, 1, reductions=("batchmean", "sum", "none")), tol=_T32),
    OpInfo(F + "margin_ranking_loss", _ranking, _ranking_samples, tol=_T32),
    OpInfo(F + "cosine_embedding_loss", _cos_embedding, _triple_samples, tol=_T32),
]  # fmt: skip

OPINFOS = RESAMPLE + NORM + LAYERS + LOSSES
