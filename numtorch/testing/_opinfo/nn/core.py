"""OpInfos for the nn area (numtorch/ops/nn/
and numtorch/nn/functional.py). References are NumPy: convolutions and pools are direct loops over
kernel taps / windows, independent of the im2col kernels they check."""

from __future__ import annotations

import math

import numpy as np
from .. import _npmath as special

from ..core import OpInfo, SampleInput, make_arg, unary_samples

F = "nn.functional."
_T32 = {"float32": (1e-4, 1e-4)}


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x, dim):
    m = x.max(axis=dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def _sig(x):
    return special.expit(x)


# ---- activations -----------------------------------------------------------------------------------
_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _act(name, ref, low=-3, high=3, **kw):
    return OpInfo(F + name, ref, unary_samples(low, high), **kw)


def _with(kwargs, low=-3, high=3):
    """unary samples plus one keyword-argument variant."""

    def gen(dtype, rng):
        out = unary_samples(low, high)(dtype, rng)
        return out + [
            SampleInput(make_arg((3, 4), dtype, rng, low, high), kwargs=kwargs, name=str(kwargs))
        ]

    return gen


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + special.erf(x / math.sqrt(2)))


def _glu_samples(dtype, rng):
    return [
        SampleInput(make_arg((3, 4), dtype, rng, -3, 3)),
        SampleInput(make_arg((2, 6, 2), dtype, rng, -3, 3), (1,)),
    ]


def _glu(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return a * _sig(b)


def _dim_samples(dtype, rng):
    return [
        SampleInput(make_arg((3, 4), dtype, rng, -3, 3), (1,)),
        SampleInput(make_arg((2, 3, 2), dtype, rng, -3, 3), (0,)),
    ]


def _normalize(x, p=2.0, dim=1, eps=1e-12):
    n = np.sum(np.abs(x) ** p, axis=dim, keepdims=True) ** (1 / p)
    return x / np.maximum(n, eps)


ACTIVATIONS = [
    _act("relu", lambda x, inplace=False: np.maximum(x, 0).astype(x.dtype), dtypes=("float32", "float64", "int64"),
         variants=("relu_", "nn.functional.relu_", "Tensor.relu", "Tensor.relu_")),
    _act("relu6", lambda x, inplace=False: np.clip(x, 0, 6), -8, 8),
    OpInfo(F + "leaky_relu", lambda x, negative_slope=0.01, inplace=False: np.where(x > 0, x, x * negative_slope),
           _with({"negative_slope": 0.2}), variants=("nn.functional.leaky_relu_",)),
    OpInfo(F + "elu", lambda x, alpha=1.0, inplace=False: np.where(x > 0, x, alpha * np.expm1(x)), _with({"alpha": 0.5}),
           variants=("nn.functional.elu_",)),
    _act("selu", lambda x, inplace=False: _SELU_S * np.where(x > 0, x, _SELU_A * np.expm1(x)),
         variants=("selu", "selu_", "nn.functional.selu_")),
    OpInfo(F + "celu", lambda x, alpha=1.0, inplace=False: np.where(x > 0, x, alpha * np.expm1(x / alpha)),
           _with({"alpha": 2.0}), variants=("celu", "celu_", "nn.functional.celu_")),
    OpInfo(F + "gelu", _gelu, _with({"approximate": "tanh"})),
    _act("silu", lambda x, inplace=False: x * _sig(x)),
    _act("mish", lambda x, inplace=False: x * np.tanh(np.log1p(np.exp(x)))),
    OpInfo(F + "softplus", lambda x, beta=1.0, threshold=20.0: np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta),
           _with({"beta": 2.0, "threshold": 3.0})),
    _act("softsign", lambda x: x / (1 + np.abs(x))),
    OpInfo(F + "hardtanh", lambda x, min_val=-1.0, max_val=1.0, inplace=False: np.clip(x, min_val, max_val),
           _with({"min_val": -2.0, "max_val": 0.5}), variants=("nn.functional.hardtanh_",)),
    _act("hardsigmoid", lambda x, inplace=False: np.clip(x / 6 + 0.5, 0, 1), -5, 5),
    _act("hardswish", lambda x, inplace=False: x * np.clip(x / 6 + 0.5, 0, 1), -5, 5),
    _act("sigmoid", _sig),
    _act("tanh", np.tanh),
    _act("logsigmoid", lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))),
    _act("tanhshrink", lambda x: x - np.tanh(x)),
    OpInfo(F + "hardshrink", lambda x, lambd=0.5: np.where(np.abs(x) <= lambd, 0, x), _with({"lambd": 1.2}),
           variants=("hardshrink", "Tensor.hardshrink")),
    OpInfo(F + "softshrink", lambda x, lambd=0.5: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)),
           _with({"lambd": 1.2})),

    OpInfo(F + "threshold", lambda x, t, v, inplace=False: np.where(x > t, x, v),
           lambda d, r: [SampleInput(s.input, (0.5, -2.0), name=s.name) for s in unary_samples(-3, 3)(d, r)],
           variants=("threshold", "threshold_", "nn.functional.threshold_")),
    OpInfo(F + "glu", _glu, _glu_samples),
    OpInfo(F + "softmin", lambda x, dim: _softmax(-x, dim), _dim_samples),
    OpInfo(F + "normalize", _normalize, lambda d, r: [SampleInput(make_arg((3, 4), d, r, -3, 3)),
                                                      SampleInput(make_arg((2, 3), d, r, -3, 3), kwargs={"p": 1.0, "dim": 0})]),
]  # fmt: skip


# ---- convolution -------------------------------------------------------------------------------------
def _n(v, k=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * k


def conv2d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct convolution: one einsum per kernel tap over strided views of the padded input."""
    unbatched = x.ndim == 3
    x = x[None] if unbatched else x
    s, p, d = _n(stride), _n(padding), _n(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    N, C, H, W = x.shape
    OC, Cg, KH, KW = w.shape
    OH, OW = (H - d[0] * (KH - 1) - 1) // s[0] + 1, (W - d[1] * (KW - 1) - 1) // s[1] + 1
    out = np.zeros((N, OC, OH, OW), np.result_type(x, w))
    Og = OC // groups
    for g in range(groups):
        for kh in range(KH):
            for kw in range(KW):
                h0, w0 = kh * d[0], kw * d[1]
                patch = x[
                    :,
                    g * Cg : (g + 1) * Cg,
                    h0 : h0 + s[0] * (OH - 1) + 1 : s[0],
                    w0 : w0 + s[1] * (OW - 1) + 1 : s[1],
                ]
                out[:, g * Og : (g + 1) * Og] += np.einsum(
                    "ncij,oc->noij", patch, w[g * Og : (g + 1) * Og, :, kh, kw]
                )
    if b is not None:
        out += b[None, :, None, None]
    return out[0] if unbatched else out


def conv1d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    out = conv2d_ref(x[..., None, :], w[:, :, None, :], b, (1, _n(stride, 1)[0]), (0, _n(padding, 1)[0]),
                     (1, _n(dilation, 1)[0]), groups)  # fmt: skip
    return out[..., 0, :]


def conv_transpose2d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Scatter form: every input position adds weight-scaled taps into the (uncropped) output."""
    s, p, op, d = _n(stride), _n(padding), _n(output_padding), _n(dilation)
    N, C, H, W = x.shape
    Cg, Og, KH, KW = C // groups, w.shape[1], w.shape[2], w.shape[3]
    FH, FW = (
        (H - 1) * s[0] + d[0] * (KH - 1) + 1 + op[0],
        (W - 1) * s[1] + d[1] * (KW - 1) + 1 + op[1],
    )
    full = np.zeros((N, Og * groups, FH, FW), np.result_type(x, w))
    for g in range(groups):
        for kh in range(KH):
            for kw in range(KW):
                h0, w0 = kh * d[0], kw * d[1]
                contrib = np.einsum(
                    "ncij,co->noij",
                    x[:, g * Cg : (g + 1) * Cg],
                    w[g * Cg : (g + 1) * Cg, :, kh, kw],
                )
                full[
                    :,
                    g * Og : (g + 1) * Og,
                    h0 : h0 + s[0] * (H - 1) + 1 : s[0],
                    w0 : w0 + s[1] * (W - 1) + 1 : s[1],
                ] += contrib
    out = full[:, :, p[0] : FH - p[0], p[1] : FW - p[1]]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def conv_transpose1d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    out = conv_transpose2d_ref(x[..., None, :], w[:, :, None, :], b, (1, _n(stride, 1)[0]), (0, _n(padding, 1)[0]),
                               (0, _n(output_padding, 1)[0]), groups, (1, _n(dilation, 1)[0]))  # fmt: skip
    return out[..., 0, :]


def _conv2d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [
        SampleInput(a(1, 2, 4, 4), (a(2, 2, 2, 2), a(2)), name="basic"),
        SampleInput(
            a(2, 2, 5, 4), (a(3, 2, 3, 2),), {"stride": 2, "padding": 1}, name="stride_pad"
        ),
        SampleInput(
            a(1, 2, 5, 5),
            (a(2, 2, 2, 2), a(2)),
            {"dilation": 2, "padding": (1, 0)},
            name="dilation",
        ),
        SampleInput(
            a(1, 4, 3, 3), (a(4, 2, 2, 2),), {"groups": 2, "stride": (1, 2)}, name="groups"
        ),
        SampleInput(a(2, 3, 3), (a(2, 2, 2, 2),), name="unbatched"),
        SampleInput(a(2, 3, 6, 7), (a(4, 3, 1, 1), a(4)), name="1x1"),
    ]


def _conv1d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [SampleInput(a(2, 2, 6), (a(3, 2, 3), a(3)), {"stride": 2, "padding": 1}),
            SampleInput(a(1, 4, 7), (a(2, 2, 2),), {"groups": 2, "dilation": 2})]  # fmt: skip


def _convt2d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [
        SampleInput(a(1, 2, 3, 3), (a(2, 2, 2, 2), a(2)), name="basic"),
        SampleInput(
            a(1, 2, 3, 2),
            (a(2, 1, 3, 2),),
            {"stride": 2, "padding": 1, "output_padding": 1},
            name="stride",
        ),
        SampleInput(
            a(1, 4, 2, 3), (a(4, 1, 2, 2), a(2)), {"groups": 2, "dilation": (2, 1)}, name="groups"
        ),
    ]


def _convt1d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [
        SampleInput(
            a(1, 2, 4), (a(2, 3, 3), a(3)), {"stride": 3, "padding": 1, "output_padding": 2}
        )
    ]


CONV = [
    OpInfo(F + "conv2d", conv2d_ref, _conv2d_samples, tol=_T32, variants=("conv2d",)),
    OpInfo(F + "conv1d", conv1d_ref, _conv1d_samples, tol=_T32, variants=("conv1d",)),
    OpInfo(F + "conv_transpose2d", conv_transpose2d_ref, _convt2d_samples, tol=_T32, variants=("conv_transpose2d",)),
    OpInfo(F + "conv_transpose1d", conv_transpose1d_ref, _convt1d_samples, tol=_T32, variants=("conv_transpose1d",)),
    OpInfo("convolution", lambda x, w, b, s, p, d, t, op, g: conv2d_ref(x, w, b, s, p, d, g),
           lambda dt, r: [SampleInput(make_arg((1, 2, 4, 4), dt, r, -1, 1), (make_arg((3, 2, 2, 2), dt, r, -1, 1), None,
                                                                             [1, 2], [1, 0], [1, 1], False, [0, 0], 1))],
           tol=_T32),
]  # fmt: skip


# ---- pooling --------------------------------------------------------------------------------------------
def _out_size(n, k, p, s, d, ceil):
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool2d_ref(
    x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    k, p, d = _n(kernel_size), _n(padding), _n(dilation)
    s = _n(stride) if stride not in (None, ()) else k
    H, W = x.shape[-2:]
    OH, OW = (_out_size(n, k[i], p[i], s[i], d[i], ceil_mode) for i, n in enumerate((H, W)))
    out = np.empty(x.shape[:-2] + (OH, OW), x.dtype)
    idx = np.empty(out.shape, np.int64)
    for oh in range(OH):
        for ow in range(OW):
            hs = [
                h
                for h in range(oh * s[0] - p[0], oh * s[0] - p[0] + d[0] * (k[0] - 1) + 1, d[0])
                if 0 <= h < H
            ]
            ws = [
                w
                for w in range(ow * s[1] - p[1], ow * s[1] - p[1] + d[1] * (k[1] - 1) + 1, d[1])
                if 0 <= w < W
            ]
            flat = np.array([h * W + w for h in hs for w in ws])
            win = x.reshape(x.shape[:-2] + (H * W,))[..., flat]
            arg = win.argmax(-1)
            out[..., oh, ow] = np.take_along_axis(win, arg[..., None], -1)[..., 0]
            idx[..., oh, ow] = flat[arg]
    return (out, idx) if return_indices else out


def avg_pool2d_ref(
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    k, p = _n(kernel_size), _n(padding)
    s = _n(stride) if stride not in (None, ()) else k
    H, W = x.shape[-2:]
    OH, OW = (_out_size(n, k[i], p[i], s[i], 1, ceil_mode) for i, n in enumerate((H, W)))
    out = np.empty(x.shape[:-2] + (OH, OW), x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            div = divisor_override or (size if count_include_pad else (h1 - h0) * (w1 - w0))
            out[..., oh, ow] = x[..., h0:h1, w0:w1].sum(axis=(-2, -1)) / div
    return out


def _adaptive_ref(x, output_size, reduce):
    o = _n(output_size)
    H, W = x.shape[-2:]
    out = np.empty(x.shape[:-2] + o, x.dtype)
    for i in range(o[0]):
        for j in range(o[1]):
            h0, h1 = (i * H) // o[0], -((-(i + 1) * H) // o[0])
            w0, w1 = (j * W) // o[1], -((-(j + 1) * W) // o[1])
            out[..., i, j] = reduce(x[..., h0:h1, w0:w1], axis=(-2, -1))
    return out


def _pool_samples(kwargs_list, shape=(1, 2, 5, 6)):
    def gen(dtype, rng):
        k, kw = kwargs_list[0]
        # one batch and channel: small enough for the gradient tests (<= 40 elements)
        small = SampleInput(make_arg((1, 1, *shape[2:]), dtype, rng), (k,), kw, name=f"small{(k, kw)}")
        return [
            SampleInput(make_arg(shape, dtype, rng), (k,), kw, name=str((k, kw)))
            for k, kw in kwargs_list
        ] + [small]

    return gen


def _pool1d(ref):
    def r(x, kernel_size, stride=None, padding=0, *rest, **kw):
        st = None if stride in (None, ()) else (1, _n(stride, 1)[0])
        out = ref(
            x[..., None, :], (1, _n(kernel_size, 1)[0]), st, (0, _n(padding, 1)[0]), *rest, **kw
        )
        return tuple(o[..., 0, :] for o in out) if isinstance(out, tuple) else out[..., 0, :]

    return r


_MAXPOOL = [(2, {}), (3, {"stride": 2, "padding": 1}), ((2, 3), {"dilation": 2, "ceil_mode": True}),
            (2, {"stride": 1, "return_indices": True})]  # fmt: skip
_AVGPOOL = [(2, {}), (3, {"stride": 2, "padding": 1}), (3, {"stride": 2, "padding": 1, "count_include_pad": False}),
            ((2, 3), {"ceil_mode": True, "stride": 2}), (2, {"divisor_override": 3})]  # fmt: skip

POOL = [
    OpInfo(F + "max_pool2d", max_pool2d_ref, _pool_samples(_MAXPOOL), variants=("nn.functional.max_pool2d_with_indices",)),
    OpInfo(F + "max_pool1d", _pool1d(max_pool2d_ref), _pool_samples([(2, {}), (3, {"stride": 2, "padding": 1}),
                                                                     (2, {"return_indices": True})], (2, 3, 7))),
    OpInfo(F + "avg_pool2d", avg_pool2d_ref, _pool_samples(_AVGPOOL)),
    OpInfo(F + "avg_pool1d", _pool1d(avg_pool2d_ref), _pool_samples([(2, {}), (3, {"stride": 2, "padding": 1})], (2, 3, 7))),
    OpInfo(F + "adaptive_avg_pool2d", lambda x, o: _adaptive_ref(x, o, np.mean),
           _pool_samples([(1, {}), ((3, 4), {}), ((2, 5), {})])),
    OpInfo(F + "adaptive_max_pool2d", lambda x, o: _adaptive_ref(x, o, np.max), _pool_samples([(1, {}), ((3, 4), {})])),
    OpInfo(F + "adaptive_avg_pool1d", lambda x, o: _adaptive_ref(x[..., None, :], (1, o), np.mean)[..., 0, :],
           _pool_samples([(3, {}), (1, {})], (2, 3, 7))),
    OpInfo(F + "adaptive_max_pool1d", lambda x, o: _adaptive_ref(x[..., None, :], (1, o), np.max)[..., 0, :],
           _pool_samples([(3, {})], (2, 3, 7))),
]  # fmt: skip

from .layers import OPINFOS as _MORE  # noqa: E402
from .layers_extra import LAYERS_EXTRA  # noqa: E402
from .losses import MARGIN_LOSSES  # noqa: E402
from .layers3d import LAYERS3D  # noqa: E402
from .sampling import SAMPLING  # noqa: E402

OPINFOS = ACTIVATIONS + CONV + POOL + _MORE + MARGIN_LOSSES + LAYERS_EXTRA + LAYERS3D + SAMPLING

# bindings covered by an entry above: torch-level aliases and (values, indices) forms
_VARIANTS = {
    "dropout": ("dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout_"),
    "alpha_dropout": ("alpha_dropout",), "feature_alpha_dropout": ("feature_alpha_dropout", "feature_alpha_dropout_"),
    "layer_norm": ("layer_norm", "native_layer_norm"), "batch_norm": ("batch_norm", "native_batch_norm"),
    "group_norm": ("group_norm", "native_group_norm"), "instance_norm": ("instance_norm",),
    "embedding": ("embedding", "embedding_renorm_"), "max_pool2d": ("max_pool2d",),
    "max_pool1d": ("max_pool1d", "max_pool1d_with_indices", "nn.functional.max_pool1d_with_indices"),
    "avg_pool1d": ("avg_pool1d",), "adaptive_avg_pool2d": ("_adaptive_avg_pool2d",),
    "adaptive_max_pool2d": ("nn.functional.adaptive_max_pool2d_with_indices",),
    "adaptive_max_pool1d": ("nn.functional.adaptive_max_pool1d_with_indices",),
    "interpolate": ("nn.functional.upsample_nearest", "nn.functional.upsample_bilinear"),
    "pad": ("constant_pad_nd",), "kl_div": ("kl_div",), "margin_ranking_loss": ("margin_ranking_loss",),
    "cosine_embedding_loss": ("cosine_embedding_loss",),
    "triplet_margin_loss": ("triplet_margin_loss",), "hinge_embedding_loss": ("hinge_embedding_loss",),
    "poisson_nll_loss": ("poisson_nll_loss",),
    "binary_cross_entropy_with_logits": ("binary_cross_entropy_with_logits",),
}  # fmt: skip
for _info in OPINFOS:
    _info.variants = tuple(_info.variants) + _VARIANTS.get(_info.name[len(F) :], ())
