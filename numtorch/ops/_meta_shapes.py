"""Output shapes per op family for the meta device (numtorch/ops/_meta_rules.py installs them).

Each rule takes the call's arguments by schema name and returns one shape, or a list of shapes
for an op with several results. Dtypes are not decided here (Note [Dtype probe]).
"""

from __future__ import annotations

import math

from .._tensor import _wrap_dim

# ops whose output shape depends on the data: PyTorch's meta device refuses them
DATA_DEPENDENT = frozenset({"nonzero", "nonzero_numpy", "masked_select", "_unique2", "unique_dim",
                            "unique_consecutive", "repeat_interleave", "bincount", "equal",
                            "allclose"})  # fmt: skip


def _sh(t) -> tuple:
    return tuple(t._data.shape)


def _dims(dim, ndim) -> list:
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if not dim:
        return list(range(ndim))
    return sorted({_wrap_dim(d, ndim) for d in dim})


def _reduced(shape, dims, keepdim) -> tuple:
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


def no_meta_kernel(opname: str) -> NotImplementedError:
    return NotImplementedError(
        f"{opname}: attempted to run this operator with Meta tensors, but there was no fake impl or "
        "Meta kernel registered. You may have run into this message while using an operator with "
        "PT2 compilation APIs (torch.compile/torch.export); in order to use this operator with those "
        "APIs you'll need to add a fake impl. Please see the following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


_NONZERO = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
    "data-independent implementation does not exist. This implementation returns a fake value, "
    "assuming all elements of the tensor are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


def data_dependent(op):
    """Ops whose output shape depends on the data: PyTorch's meta error."""

    def rule(*vals):
        name = op._schema.name
        if name in ("nonzero", "nonzero_numpy"):
            raise NotImplementedError(_NONZERO)
        if name == "repeat_interleave":
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        raise no_meta_kernel(op.name())

    return rule


def broadcast(shapes) -> tuple:
    if not shapes:
        return ()
    res = tuple(shapes[0])
    for s in shapes[1:]:
        n = max(len(res), len(s))
        a, b = (1,) * (n - len(res)) + tuple(res), (1,) * (n - len(s)) + tuple(s)
        out = [0] * n
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                    f"non-singleton dimension {i}"
                )
            out[i] = b[i] if a[i] == 1 else a[i]
        res = tuple(out)
    return res


# ---- same shape as the first tensor -------------------------------------------------------------------
def same(a):
    return next(_sh(v) for v in a.values() if hasattr(v, "_data"))


def same2(a):
    return [same(a), same(a)]


# ---- reductions ---------------------------------------------------------------------------------------
def reduce_(a):
    x = a["self"]
    shape = _sh(x)
    if "dim" not in a:  # full reduction (sum(self), max(self))
        return ()
    dims = _dims(a["dim"], len(shape))
    return _reduced(shape, dims, a.get("keepdim", False))


def reduce2(a):
    r = reduce_(a)
    return [r, r]


def topk(a):
    shape = list(_sh(a["self"]))
    if shape:
        d = _wrap_dim(a["dim"], len(shape))
        if a["k"] > shape[d]:
            raise RuntimeError("selected index k out of range")
        shape[d] = a["k"]
    return [tuple(shape), tuple(shape)]


# ---- matrix products ----------------------------------------------------------------------------------
def _mm(x, y, what="mat1 and mat2"):
    if x[-1] != y[-2 if len(y) > 1 else 0]:
        raise RuntimeError(f"{what} shapes cannot be multiplied ({x[0]}x{x[1]} and {y[0]}x{y[1]})")
    return (x[0], y[1])


def mm(a):
    x, y = _sh(a["self"]), _sh(a["mat2"])
    if len(x) != 2:
        raise RuntimeError("self must be a matrix")
    if len(y) != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _mm(x, y)


def bmm(a):
    x, y = _sh(a["self"]), _sh(a["mat2"])
    if len(x) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(y) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if x[0] != y[0] or x[2] != y[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{x[0]}, {x[2]}] but got: [{y[0]}, {y[1]}].")  # fmt: skip
    return (x[0], x[1], y[2])


def matmul(a):
    x, y = _sh(a["self"]), _sh(a["other"])
    if not x or not y:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {len(x)}D and {len(y)}D")
    if len(x) == 1 and len(y) == 1:
        if x[0] != y[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x[0]}] and src [{y[0]}] to have the same number of elements, but got {x[0]} and {y[0]} elements respectively")
        return ()
    xm = x if len(x) > 1 else (1,) + x
    ym = y if len(y) > 1 else y + (1,)
    if xm[-1] != ym[-2]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({math.prod(xm[:-1])}x{xm[-1]} and {ym[-2]}x{ym[-1]})"
        )
    batch = broadcast([xm[:-2], ym[:-2]])
    out = batch + (xm[-2], ym[-1])
    if len(x) == 1:
        out = out[:-2] + out[-1:]
    if len(y) == 1:
        out = out[:-1]
    return out


def mv(a):
    m, v = _sh(a["self"]), _sh(a["vec"])
    if len(m) != 2 or len(v) != 1 or m[1] != v[0]:
        raise RuntimeError(f"size mismatch, got input ({m[0] if m else 0}), mat ({'x'.join(map(str, m))}), vec ({v[0] if v else 0})")
    return (m[0],)


def dot(a):
    x, y = _sh(a["self"]), _sh(a.get("tensor", a.get("other")))
    if len(x) != 1 or len(y) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(x)}D and {len(y)}D tensors")
    if x != y:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x[0]}] and src [{y[0]}] to have the same number of elements, but got {x[0]} and {y[0]} elements respectively")
    return ()


def outer(a):
    return (_sh(a["self"])[0], _sh(a["vec2"])[0])


def addmm(a):
    return _check_bcast(_mm(_sh(a["mat1"]), _sh(a["mat2"])), a["self"])


def addmv(a):
    return _check_bcast((_sh(a["mat"])[0],), a["self"])


def baddbmm(a):
    return _check_bcast(bmm({"self": a["batch1"], "mat2": a["batch2"]}), a["self"])


def addbmm(a):
    return _check_bcast(bmm({"self": a["batch1"], "mat2": a["batch2"]})[1:], a["self"])


def _check_bcast(shape, t):
    if broadcast([shape, _sh(t)]) != shape:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size: {list(_sh(t))} vs {list(shape)}")
    return shape


# ---- joins, indexing, repeats -------------------------------------------------------------------------
def cat(a):
    ts = [t for t in a["tensors"] if _sh(t) != (0,)]
    if not ts:
        return (0,)
    ref = _sh(ts[0])
    d = _wrap_dim(a["dim"], len(ref))
    total = 0
    for t in ts:
        s = _sh(t)
        if len(s) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}")
        for i, (p, q) in enumerate(zip(ref, s)):
            if i != d and p != q:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {p} but got size {q} for tensor number {a['tensors'].index(t)} in the list.")
        total += s[d]
    return ref[:d] + (total,) + ref[d + 1 :]


def index_select(a):
    s = list(_sh(a["self"]))
    if s:
        s[_wrap_dim(a["dim"], len(s))] = a["index"]._data.size
    return tuple(s)


def gather(a):
    return _sh(a["index"])


def take(a):
    return _sh(a["index"])


def repeat(a):
    s, r = _sh(a["self"]), list(a["repeats"])
    if len(r) < len(s):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    s = (1,) * (len(r) - len(s)) + s
    return tuple(n * k for n, k in zip(s, r))


def where(a):
    return broadcast([_sh(v) for k in ("condition", "self", "other", "mask") if hasattr(v := a.get(k), "_data")])


def constant_pad_nd(a):
    s, pad = list(_sh(a["self"])), list(a["pad"])
    for i in range(len(pad) // 2):
        d = len(s) - 1 - i
        s[d] += pad[2 * i] + pad[2 * i + 1]
        if s[d] < 0:
            raise RuntimeError("The input size and padding result in a negative output size")
    return tuple(s)


def index(a):
    s, idx = _sh(a["self"]), list(a["indices"])
    if any(t is not None and t._dtype.name in ("bool", "uint8") for t in idx):
        raise data_dependent(_NZ)()
    used = [i for i, t in enumerate(idx) if t is not None]
    b = broadcast([_sh(idx[i]) for i in used])
    rest = list(s[len(idx):])
    pre = [s[i] for i in range(len(idx)) if idx[i] is None]
    adjacent = used == list(range(used[0], used[-1] + 1))
    if adjacent:
        head = [s[i] for i in range(used[0])]
        mid = [s[i] for i in range(used[-1] + 1, len(idx))]
        return tuple(head) + b + tuple(mid + rest)
    return b + tuple(pre + rest)


class _NZOp:  # the name data_dependent reads for boolean indices (PyTorch's nonzero error)
    class _schema:  # noqa: N801
        name = "nonzero"

    @staticmethod
    def name():
        return "aten::nonzero"


_NZ = _NZOp()


# ---- nn -----------------------------------------------------------------------------------------------
def _conv_out(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def convolution(a):
    x, w = _sh(a["input"]), _sh(a["weight"])
    sp = len(x) - 2
    st, pd, dl = (_exp(a[k], sp) for k in ("stride", "padding", "dilation"))
    if a["transposed"]:
        op = _exp(a["output_padding"], sp)
        spatial = [(x[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (w[2 + i] - 1) + op[i] + 1 for i in range(sp)]
        return (x[0], w[1] * a["groups"], *spatial)
    spatial = [_conv_out(x[2 + i], w[2 + i], st[i], pd[i], dl[i]) for i in range(sp)]
    if any(n <= 0 for n in spatial):
        raise RuntimeError("Calculated output size is too small")
    return (x[0], w[0], *spatial)


def _exp(v, n):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * n if len(v) == 1 else v


def _pool_out(n, k, s, p, d, ceil):
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def pool2d(a):
    x = _sh(a["self"])
    k = _exp(a["kernel_size"], 2)
    s = _exp(a["stride"], 2) if a["stride"] else k
    p = _exp(a["padding"], 2)
    d = _exp(a.get("dilation", 1), 2)
    hw = tuple(_pool_out(x[-2 + i], k[i], s[i], p[i], d[i], a["ceil_mode"]) for i in range(2))
    return x[:-2] + hw


def pool2d_idx(a):
    s = pool2d(a)
    return [s, s]


def adaptive2d(a):
    return _sh(a["self"])[:-2] + tuple(_exp(a["output_size"], 2))


def adaptive2d_idx(a):
    s = adaptive2d(a)
    return [s, s]


def layer_norm(a):
    x = _sh(a["input"])
    k = len(x) - len(a["normalized_shape"])
    return [x, x[:k] + (1,) * (len(x) - k), x[:k] + (1,) * (len(x) - k)]


def batch_norm(a):
    x = _sh(a["input"])
    c = (x[1],) if a["training"] else (0,)
    return [x, c, c]


def group_norm(a):
    x = _sh(a["input"])
    return [x, (a["N"], a["group"]), (a["N"], a["group"])]


def loss(a):
    if a["reduction"] == 0:
            return broadcast([_sh(a["self"]), _sh(a["target"])])
    return ()


def nll_loss(a):
    x = _sh(a["self"])
    out = (x[0],) + x[2:] if a["reduction"] == 0 and len(x) > 1 else ()
    return [out, ()]


def embedding(a):
    return _sh(a["indices"]) + (_sh(a["weight"])[1],)


def one_hot(a):
    if a["num_classes"] < 0:
        raise no_meta_kernel("aten::one_hot")
    return _sh(a["self"]) + (a["num_classes"],)


def softmax(a):
    return _sh(a["self"])


def pixel_shuffle(a):
    x, r = _sh(a["self"]), a["upscale_factor"]
    return x[:-3] + (x[-3] // (r * r), x[-2] * r, x[-1] * r)


def upsample2d(a):
    return _sh(a["self"])[:-2] + tuple(a["output_size"])


# ---- factories ----------------------------------------------------------------------------------------
def size(a):
    from .._factory_utils import check_size

    s = tuple(int(n) for n in a["size"])
    check_size(s)
    return s


def like(a):
    return _sh(a["self"])


def arange(a):
    start, end, step = a.get("start", 0), a["end"], a.get("step", 1)
    return (max(0, math.ceil((end - start) / step)),)


def steps(a):
    return (a["steps"],)


def eye(a):
    return (a["n"], a.get("m", a["n"]))


def n(a):
    return (a["n"],)


def scalar(a):
    return ()


def multinomial(a):
    return _sh(a["self"])[:-1] + (a["num_samples"],)


def fft_r2c(a):
    shape = list(_sh(a["self"]))
    if a["onesided"]:
        last = a["dim"][-1]
        shape[last] = shape[last] // 2 + 1
    return tuple(shape)


def fft_c2r(a):
    shape = list(_sh(a["self"]))
    shape[a["dim"][-1]] = a["last_dim_size"]
    return tuple(shape)


def tri_indices(a):
    r, c, off = a["row"], a["col"], a["offset"]
    cnt = sum(max(0, min(c, i + off + 1)) for i in range(r))
    return (2, cnt)



# ---- indexing, binning, layouts (shape known from the arguments) ---------------------------------------
def diag_embed(a):
    x = list(_sh(a["self"]))
    n = (x[-1] if x else 1) + abs(a["offset"])
    nd = len(x) + 1
    d1, d2 = _wrap_dim(a["dim1"], nd), _wrap_dim(a["dim2"], nd)
    out, rest = [0] * nd, iter(x[:-1])
    for i in range(nd):
        out[i] = n if i in (d1, d2) else next(rest)
    return tuple(out)


def take_along_dim(a):
    x, i = _sh(a["self"]), _sh(a["indices"])
    if a["dim"] is None:
        return i
    d = _wrap_dim(a["dim"], len(x))
    bx = list(x)
    bx[d] = 1
    bi = list(i)
    bi[d] = 1
    out = list(broadcast([tuple(bx), tuple(bi)]))
    out[d] = i[d]
    return tuple(out)


def searchsorted(a):
    v = a["self"]
    return _sh(v) if hasattr(v, "_data") else ()


def glu(a):
    x = list(_sh(a["self"]))
    d = _wrap_dim(a["dim"], len(x))
    if x[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {x[d]}")
    x[d] //= 2
    return tuple(x)


def pad_nd(a):
    x, p = list(_sh(a["self"])), a["padding"]
    for j in range(len(p) // 2):
        x[-1 - j] += p[2 * j] + p[2 * j + 1]
    return tuple(x)


def pixel_unshuffle(a):
    x, r = _sh(a["self"]), a["downscale_factor"]
    return x[:-3] + (x[-3] * r * r, x[-2] // r, x[-1] // r)


def _two(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def im2col(a):
    x, k, d, p, st = _sh(a["self"]), *(_two(a[n]) for n in ("kernel_size", "dilation", "padding", "stride"))
    blocks = 1
    for i in range(2):
        blocks *= (x[-2 + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // st[i] + 1
    return x[:-3] + (x[-3] * k[0] * k[1], blocks)


def col2im(a):
    x, k = _sh(a["self"]), _two(a["kernel_size"])
    return x[:-2] + (x[-2] // (k[0] * k[1]),) + _two(a["output_size"])


SAME = ("clone", "flip", "roll", "tril", "triu", "cumsum", "cumprod", "logcumsumexp", "argsort", "fill",
        "_softmax", "_log_softmax", "softmax", "log_softmax", "celu", "elu", "gelu", "hardshrink",
        "hardtanh", "hardsigmoid", "hardswish", "leaky_relu", "log_sigmoid", "mish", "relu", "silu",
        "softplus", "softshrink", "threshold", "logit", "masked_fill", "index_add", "index_copy",
        "index_fill", "scatter", "scatter_add", "scatter_reduce", "index_put", "put", "masked_scatter",
        "bernoulli", "poisson", "_to_copy", "empty_like", "zeros_like", "ones_like", "full_like",
        "rand_like", "randn_like", "randint_like", "isfinite", "isinf", "isnan", "isneginf",
        "isposinf", "signbit", "nan_to_num", "polygamma", "sgn", "conj_physical", "angle",
        "elu_backward", "gelu_backward", "hardshrink_backward", "hardsigmoid_backward",
        "hardswish_backward", "hardtanh_backward", "leaky_relu_backward", "log_sigmoid_backward",
        "mish_backward", "sigmoid_backward", "silu_backward", "softplus_backward",
        "softshrink_backward", "tanh_backward", "threshold_backward", "_cumprod_grad",
        "_softmax_backward_data", "_log_softmax_backward_data", "_fft_c2c")  # fmt: skip
SAME2 = ("cummax", "cummin", "sort")
REDUCE = ("sum", "nansum", "mean", "prod", "amax", "amin", "any", "all", "argmax", "argmin",
          "count_nonzero", "logsumexp", "norm", "std", "var", "max", "min", "median", "nanmedian")  # fmt: skip
REDUCE2 = ("std_mean", "var_mean", "mode", "kthvalue", "aminmax")

SHAPE_RULES: dict = {
    **dict.fromkeys(SAME, same), **dict.fromkeys(SAME2, same2),
    **dict.fromkeys(REDUCE, reduce_), **dict.fromkeys(REDUCE2, reduce2),
    ("max", "dim"): reduce2, ("min", "dim"): reduce2, ("median", "dim"): reduce2,
    ("nanmedian", "dim"): reduce2, "topk": topk,
    "mm": mm, "bmm": bmm, "matmul": matmul, "mv": mv, "dot": dot, "vdot": dot, "outer": outer,
    "ger": outer, "addmm": addmm, "addmv": addmv, "baddbmm": baddbmm, "addbmm": addbmm,
    "trace": scalar, "linalg_cross": where,
    "cat": cat, "index_select": index_select, "gather": gather, "take": take, "repeat": repeat,
    "where": where, "constant_pad_nd": constant_pad_nd, "index": index,
    "convolution": convolution, "max_pool2d_with_indices": pool2d_idx, "avg_pool2d": pool2d,
    "_adaptive_avg_pool2d": adaptive2d, "adaptive_max_pool2d": adaptive2d_idx,
    "native_layer_norm": layer_norm, "native_batch_norm": batch_norm, "native_group_norm": group_norm,
    "mse_loss": loss, "smooth_l1_loss": loss, "huber_loss": loss, "binary_cross_entropy": loss,
    "binary_cross_entropy_with_logits": loss, "nll_loss_forward": nll_loss,
    "embedding": embedding, "one_hot": one_hot, "pixel_shuffle": pixel_shuffle,
    "upsample_nearest2d": upsample2d, "upsample_bilinear2d": upsample2d,
    "empty": size, "zeros": size, "ones": size, "full": size, "rand": size, "randn": size,
    "randint": size, "empty_strided": size, "new_empty": size, "new_zeros": size, "new_ones": size,
    "new_full": size, "new_empty_strided": size, ("normal", "float_float"): size,
    ("normal", "Tensor_float"): same, ("normal", "float_Tensor"): lambda a: _sh(a["std"]),
    ("normal", "Tensor_Tensor"): lambda a: where({"self": a["mean"], "other": a["std"]}),
    "arange": arange, "linspace": steps, "logspace": steps, "eye": eye, "randperm": n,
    "scalar_tensor": scalar, "multinomial": multinomial, "tril_indices": tri_indices,
    "_fft_r2c": fft_r2c, "_fft_c2r": fft_c2r,
    "diag_embed": diag_embed, "take_along_dim": take_along_dim, "searchsorted": searchsorted,
    "bucketize": searchsorted, "complex": lambda a: broadcast([_sh(a["real"]), _sh(a["imag"])]),
    "histc": lambda a: (a["bins"],), "glu": glu,
    "reflection_pad1d": pad_nd, "reflection_pad2d": pad_nd, "replication_pad1d": pad_nd,
    "replication_pad2d": pad_nd, "reflection_pad3d": pad_nd, "replication_pad3d": pad_nd,
    **dict.fromkeys((f"{m}_pad{n}d_backward" for m in ("reflection", "replication") for n in (1, 2, 3)), lambda a: _sh(a["self"])),
    "pixel_unshuffle": pixel_unshuffle, "im2col": im2col, "col2im": col2im,
}  # fmt: skip

# rules giving (shape, dtype) per result, for ops the dtype probe cannot run (Note [Linalg meta
# rules]); numtorch/ops/linalg/meta.py fills it, and einsum's entry in SHAPE_RULES
TYPED_RULES: dict = {}
