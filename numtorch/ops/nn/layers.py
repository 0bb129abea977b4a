"""Layer ops: dropout family (PyTorch's CPU composites), linear / bilinear, embedding (+ its
dense backward kernel and renorm), one_hot, GLU, cosine similarity and pairwise distance."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._functorch._levels import VMAP_LEVELS
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import Tensor, _make, _wrap_dim
from ...autograd.grad_mode import no_grad
from ...kernels import lazy
from .._pointwise import _cname
from .._registry import body_of, defop, public
from ..linalg import _fast_linear as _fl
from ..linalg import _fast_products as _fp
from ..sparse.core import embedding_sparse_grad
from . import glu_fast as _glu_fast

K = lazy("numtorch.kernels.cpu.nn.layers")
_KI = lazy("numtorch.kernels.cpu.indexing")
_KR = lazy("numtorch.kernels.cpu.reduction.core")
aten = _ops.aten  # Note [Composite bodies are below the Python API]
_F = "torch.nn.functional"


# ---- dropout ---------------------------------------------------------------------------------------
# Note [CPU dropout is a composite]
# As in ATen's _dropout_impl on CPU: noise = empty_like(x).bernoulli_(1 - p) / (1 - p), x * noise,
# so the mask comes from numtorch's generator (manual_seed reproduces it) and the derivative is
# mul's. The feature variants draw one noise value per (N, C) plane.
def _noise(input, feature: bool):
    if feature:
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        return input.new_empty(shape)  # new_empty: batched under vmap, as the input is; on its device
    return aten.empty_like.default(input)


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = aten.zeros.default((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input.mul(zero)
    if VMAP_LEVELS:  # Note [vmap randomness]: a mask per sample
        from ..._functorch._random_rules import dropout_input

        input = dropout_input(input, inplace)
    noise = _noise(input, feature)
    with no_grad():
        noise.bernoulli_(1 - p)
    if alpha:
        a_const = 1.7580993408473766
        a = 1.0 / math.sqrt((a_const * a_const * p + 1) * (1 - p))
        b = (noise - 1) * (a_const * a) + a_const * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input.mul(noise) + b
    noise = noise.div(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


def _declare_dropout(name: str, feature: bool, alpha: bool):
    fn = defop(f"{name}(Tensor input, float p, bool train) -> Tensor",
               composite=lambda input, p, train: _dropout_impl(input, p, train, False, feature, alpha))  # fmt: skip
    ip = defop(f"{name}_(Tensor(a!) self, float p, bool train) -> Tensor(a!)",
               composite=lambda self, p, train: _dropout_impl(self, p, train, True, feature, alpha))  # fmt: skip
    return fn, ip


_DROPOUT = {n: _declare_dropout(n, f, a) for n, f, a in (
    ("dropout", False, False), ("feature_dropout", True, False), ("alpha_dropout", False, True),
    ("feature_alpha_dropout", True, True))}  # fmt: skip


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _f_dropout(name: str, kind: str, doc: str, training_default=True):
    fn, ip = _DROPOUT[kind]

    def body(input, p, training, inplace):
        _check_p(p)
        return dispatch(ip if inplace else fn, [input, p, training])

    body.__doc__ = doc
    public(
        name,
        f"input, p=0.5, training={training_default}, inplace=False",
        body,
        module=_F,
        ops=(fn, ip),
    )


def _f_feature_dropout(name: str, spatial: int, doc: str):
    fn, ip = _DROPOUT["feature_dropout"]
    lo, hi = spatial + 1, spatial + 2

    def body(input, p, training, inplace):
        _check_p(p)
        nd = input.dim()
        if nd not in (lo, hi):
            if spatial == 1:
                raise RuntimeError(
                    f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d exists to "
                    "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
                    "optional batch dimension (i.e. 2D or 3D inputs)."
                )
            import warnings

            warnings.warn(
                f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error "
                "in a future release. To retain the behavior and silence this warning, please use dropout instead. "
                f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                f"dimensions, a channel dimension, and an optional batch dimension (i.e. {lo}D or {hi}D inputs).",
                stacklevel=3,
            )
        # dropout3d batches anything that is not 5-D, as PyTorch's Python body does
        unbatched = (spatial == 1 and nd == lo) or (spatial == 3 and nd != hi)
        x = (input.unsqueeze_(0) if inplace else input.unsqueeze(0)) if unbatched else input
        out = dispatch(ip if inplace else fn, [x, p, training])
        return (out.squeeze_(0) if inplace else out.squeeze(0)) if unbatched else out

    body.__doc__ = doc
    public(name, "input, p=0.5, training=True, inplace=False", body, module=_F, ops=(fn, ip))


_f_dropout(
    "dropout",
    "dropout",
    "Zero elements with probability ``p``, scale the rest by 1/(1-p) when training."
    "\n\n    >>> numtorch.nn.functional.dropout(numtorch.ones(3), 0.5, training=False)\n    tensor([1., 1., 1.])\n",
)
_f_dropout(
    "alpha_dropout",
    "alpha_dropout",
    "Dropout keeping SELU's self-normalizing mean and variance.\n\n    >>> "
    "numtorch.nn.functional.alpha_dropout(numtorch.ones(2))\n    tensor([1., 1.])\n",
    training_default=False,
)
_f_dropout("feature_alpha_dropout", "feature_alpha_dropout", "Alpha dropout of whole channels.\n\n    >>> "
           "numtorch.nn.functional.feature_alpha_dropout(numtorch.ones(1, 2, 2)).shape\n    torch.Size([1, 2, 2])\n",
           training_default=False)  # fmt: skip
_f_feature_dropout("dropout1d", 1, "Zero whole channels of (N, C, L) input.\n\n    >>> numtorch.nn.functional.dropout1d("
                   "numtorch.ones(1, 2, 3), training=False).shape\n    torch.Size([1, 2, 3])\n")  # fmt: skip
_f_feature_dropout("dropout2d", 2, "Zero whole channels of (N, C, H, W) input.\n\n    >>> numtorch.nn.functional."
                   "dropout2d(numtorch.ones(1, 2, 2, 2), training=False).shape\n    torch.Size([1, 2, 2, 2])\n")  # fmt: skip
_f_feature_dropout("dropout3d", 3, "Zero whole channels of (N, C, D, H, W) input.\n\n    >>> numtorch.nn.functional."
                   "dropout3d(numtorch.ones(1, 2, 2, 2, 2), training=False).shape\n    torch.Size([1, 2, 2, 2, 2])\n")  # fmt: skip


# ---- linear / bilinear ----------------------------------------------------------------------------
def _linear(input, weight, bias):
    # Note [Composite bodies are below the Python API]: no Tensor method or operator; Tensor.t's
    # body is its view shortcut (dispatching aten.t takes the general path)
    wt = body_of("t", "Tensor")(weight)
    a = input._data  # array attributes: the methods' __torch_function__ gates are above this body
    if a.ndim == 2 and bias is not None:
        return dispatch(aten.addmm.default, [bias, input, wt, 1, 1])
    if a.ndim > 2 and bias is not None and a.flags.c_contiguous:
        # PyTorch's folding: one addmm on the (rows, in) view; the bias rides in the product's
        # output pass instead of a broadcast add over the whole result afterwards
        flat = dispatch(aten.view.default, [input, [-1, a.shape[-1]]])
        out = dispatch(aten.addmm.default, [bias, flat, wt, 1, 1])
        return dispatch(aten.view.default, [out, [*a.shape[:-1], weight._data.shape[0]]])
    out = dispatch(aten.matmul.default, [input, wt])
    return dispatch(aten.add.Tensor, [out, bias, 1]) if bias is not None else out


linear = defop(
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", composite=_linear
)


def _bilinear(input1, input2, weight, bias):
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match: got {input1.shape[i]} and {input2.shape[i]}"
            )
    o, i1, i2 = weight.shape
    if input1.shape[-1] != i1:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {i1}"
        )
    if input2.shape[-1] != i2:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {i2}"
        )
    lead = list(input1.shape[:-1])
    x1 = input1.reshape(-1, i1)
    x2 = input2.reshape(-1, i2)
    # (B, i1) @ (o, i1, i2) -> (o, B, i2); times x2 and summed over i2 -> (o, B)
    t = aten.matmul.default(x1, weight)
    out = (t * x2).sum(-1).t()
    if bias is not None:
        out = out + bias
    # a fresh result for matrices, as PyTorch's (its reshape to the same shape was a view)
    return out if input1.dim() == 2 and bias is not None else out.reshape(lead + [o])


bilinear = defop("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor",
                 composite=_bilinear)  # fmt: skip


# ---- embedding --------------------------------------------------------------------------------------
def _check_indices(indices: Tensor, op: str, argno: int = 1):
    if indices._dtype not in (D.int64, D.int32):
        raise RuntimeError(
            f"Expected tensor for argument #{argno} 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {_legacy(indices)} instead (while checking arguments for {op})"
        )


def _legacy(t: Tensor) -> str:
    # bool and complex have no legacy Tensor class: PyTorch prints the backend type's name
    if t._dtype is D.bool or t._dtype.category == D._COMPLEX:
        return f"CPU{_cname(t._dtype)}Type"
    return f"torch.{_cname(t._dtype)}Tensor"


def _embedding_cpu(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    _check_indices(indices, "embedding")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data.astype(np.int64, copy=False)
    V = weight._data.shape[0]
    flat = idx.reshape(-1)
    # one bounds pass (first_out_of_range) instead of NumPy's min, max and min (~2 us small)
    if flat.size and _KI.first_out_of_range(flat, 0, V) >= 0:
        raise IndexError("index out of range in self")
    out = np.take(weight._data, flat, axis=0).reshape(
        idx.shape + (weight._data.shape[1],)
    )
    return _make(out, weight._dtype)


def _embedding_backward_cpu(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _check_indices(indices, "embedding_backward")
    D_ = grad_output._data.shape[-1] if grad_output.dim() else 1
    dt = D.float32 if grad_output._dtype is D.float16 else grad_output._dtype
    g = np.ascontiguousarray(grad_output._data, dtype=dt.np).reshape(-1)
    idx = np.ascontiguousarray(indices._data, dtype=np.int64).reshape(-1)
    out = np.empty(num_weights * D_, dt.np)
    K.embedding_backward(g, idx, out, D_, int(padding_idx), bool(scale_grad_by_freq))
    return _make(
        out.reshape(num_weights, D_).astype(grad_output._dtype.np, copy=False), grad_output._dtype
    )


def _embedding_grad(grad, weight, indices, padding_idx, scale_grad_by_freq, sparse):
    if sparse:  # nn.Embedding(sparse=True): PyTorch's embedding_sparse_backward
        return embedding_sparse_grad(grad, indices, weight.shape[0], padding_idx, scale_grad_by_freq)
    return dispatch(
        embedding_dense_backward, [grad, indices, weight.shape[0], padding_idx, scale_grad_by_freq]
    )


def _embedding_double(grad, indices, padding_idx):
    res = dispatch(embedding, [grad, indices, -1, False, False])
    if padding_idx >= 0:
        res = res * (indices != padding_idx).unsqueeze(-1).to(res.dtype)
    return res


embedding = defop(
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor",
    cpu=_embedding_cpu,
    backward={"weight": _embedding_grad},
)
embedding_dense_backward = defop(
    "embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, "
    "bool scale_grad_by_freq) -> Tensor",
    cpu=_embedding_backward_cpu,
    backward={
        "grad_output": lambda grad, indices, padding_idx: _embedding_double(
            grad, indices, padding_idx
        )
    },
)


def _embedding_renorm_cpu(self, indices, max_norm, norm_type):
    # Every check before the first write: a failing call leaves the weight untouched.
    _check_indices(indices, "embedding_renorm_", 2)
    rows = np.unique(indices._data.astype(np.int64).reshape(-1))
    V = self._data.shape[0]
    if rows.size and rows[0] < 0:
        raise IndexError("index out of range in self")
    if rows.size and rows[-1] >= V:
        raise IndexError(f"select(): index {rows[-1]} out of range for tensor of size "
                         f"{list(self._data.shape)} at dimension 0")  # fmt: skip
    w = self._data
    # row.norm() in the weight's dtype, as torch (float32 overflows to inf: the row scales to 0),
    # then row *= scale with the double scale rounded to that dtype
    acc = np.float32 if w.dtype.itemsize < 4 else w.dtype
    sub = w[rows].astype(acc)
    with np.errstate(all="ignore"):
        norms = np.sum(np.abs(sub) ** norm_type, axis=1) ** (1.0 / norm_type)
        if w.dtype == np.float16:
            norms = norms.astype(np.float16)
        scale = np.where(norms > max_norm, max_norm / (norms.astype(np.float64) + 1e-7), 1.0)
        w[rows] = (sub * scale[:, None].astype(acc)).astype(w.dtype)
    self._vc[0] += 1
    return self


embedding_renorm_ = defop(
    "embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) -> Tensor(a!)",
    cpu=_embedding_renorm_cpu,
)


def _f_embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    """Look up rows of ``weight`` by the integer indices in ``input``.

    >>> numtorch.nn.functional.embedding(numtorch.tensor([1]), numtorch.eye(2))
    tensor([[0., 1.]])
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():
            dispatch(embedding_renorm_, [weight, input, max_norm, norm_type])
    return dispatch(embedding, [weight, input, padding_idx, scale_grad_by_freq, sparse])


public("embedding", "input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, "
       "sparse=False", _f_embedding, relevant=("input", "weight"), module=_F, ops=(embedding,))  # fmt: skip


# ---- one_hot -----------------------------------------------------------------------------------------
_EYES: dict = {}  # num_classes -> np.eye(num_classes, dtype=int64), for up to 64 classes


def _one_hot_cpu(self, num_classes):
    if self._dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = self._data
    if a.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _make(np.zeros(a.shape + (num_classes,), np.int64), D.int64)
    mm = np.empty(2, np.int64)  # min and max in one kernel pass (NumPy's two: ~2 us small)
    _KR.minmax_all(a.reshape(-1), mm)
    if mm[0] < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(mm[1]) + 1
    elif mm[1] >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if num_classes <= 64:  # rows of a cached identity (32 KiB at most): a take, 0.2 us for 1.8
        if num_classes not in _EYES:
            _EYES[num_classes] = np.eye(num_classes, dtype=np.int64)
        return _make(_EYES[num_classes].take(a, axis=0), D.int64)
    out = (a[..., None] == np.arange(num_classes)).astype(np.int64)
    return _make(out, D.int64)


one_hot = defop("one_hot(Tensor self, int num_classes=-1) -> Tensor", cpu=_one_hot_cpu)


# ---- GLU --------------------------------------------------------------------------------------------
def _glu_dims(self, dim):
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    A = math.prod(self._data.shape[:d])
    B = math.prod(self._data.shape[d + 1 :])
    return d, A, n // 2, B


def _glu_cpu(self, dim):
    d, A, H, B = _glu_dims(self, dim)
    dt = _fdt(self, "glu")
    out = np.empty(self._data.shape[:d] + (H,) + self._data.shape[d + 1 :], dt.np)
    if out.size:
        K.glu(np.ascontiguousarray(self._data, dt.np).reshape(-1), out.reshape(-1), A, H, B)
    return _make(out.astype(self._dtype.np, copy=False), self._dtype)


def _glu_backward_cpu(grad_output, self, dim):
    d, A, H, B = _glu_dims(self, dim)
    dt = _fdt(self, "glu_backward")
    gi = np.empty(self._data.shape, dt.np)
    if gi.size:
        K.glu_backward(np.ascontiguousarray(grad_output._data, dt.np).reshape(-1),
                       np.ascontiguousarray(self._data, dt.np).reshape(-1), gi.reshape(-1), A, H, B)  # fmt: skip
    return _make(gi.astype(self._dtype.np, copy=False), self._dtype)


def _fdt(x: Tensor, op: str) -> D.dtype:
    if x._dtype.category != D._FLOAT:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{_cname(x._dtype)}'")
    return D.float32 if x._dtype is D.float16 else x._dtype


def _glu_grad(grad, self, dim):
    if STATE.grad_enabled:  # Note [Norm double backward]: differentiable composite when recording
        a, b = self.chunk(2, dim)
        s = b.sigmoid()
        return aten.cat.default([grad * s, grad * a * s * (1 - s)], dim)
    return dispatch(glu_backward, [grad, self, dim])


glu = defop("glu(Tensor self, int dim=-1) -> Tensor", cpu=_glu_cpu, backward={"self": _glu_grad})
glu_backward = defop(
    "glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor", cpu=_glu_backward_cpu
)


# ---- distances ---------------------------------------------------------------------------------------
def _cosine_similarity(x1, x2, dim, eps):
    common = D.promote_types(x1.dtype, x2.dtype)
    if common.category != D._FLOAT:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {_cname(common)}"
        )
    # only integral inputs convert: each float input's norm is taken in its own dtype, as torch's
    # (a float32 row holding 1e30 has an inf norm and gives 0 against a float64 one)
    x1, x2 = (x if x.dtype.category == D._FLOAT else x.to(common) for x in (x1, x2))
    # broadcast before normalising: a size-1 ``dim`` in one input must not be normalised on its own
    x1, x2 = aten.broadcast_tensors.default([x1, x2])
    # PyTorch clamps clones of the norms in place under no_grad: the gradient flows through the
    # clamp (a norm below eps gets one), and a mode sees linalg_vector_norm, clone, clamp_min_
    n1 = aten.linalg_vector_norm.default(x1, 2, [dim], True).clone()
    n2 = aten.linalg_vector_norm.default(x2, 2, [dim], True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


cosine_similarity = defop("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor",
                          composite=_cosine_similarity)  # fmt: skip


def _pairwise_distance(x1, x2, p, eps, keepdim):
    d = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, d, keepdim=keepdim)


pairwise_distance = defop(
    "pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=1e-06, bool keepdim=False) -> Tensor",
    composite=_pairwise_distance,
)


# ---- public bindings -------------------------------------------------------------------------------
def _simple(name, sig, op, doc, modules=(_F,), relevant=("input",), fast=None):
    def body(*v):
        return dispatch(op, list(v))

    body.__doc__ = doc
    for m in modules:
        public(name, sig, body, relevant=relevant, module=m, ops=(op,), fast=fast)


_simple("linear", "input, weight, bias=None", linear,
        "y = x W^T + b.\n\n    >>> numtorch.nn.functional.linear(numtorch.ones(1, 2), numtorch.ones(3, 2)).shape\n"
        "    torch.Size([1, 3])\n", relevant=("input", "weight", "bias"),
        fast=(_fl.linear(linear), ("input", "weight", "bias")))  # fmt: skip
_simple("bilinear", "input1, input2, weight, bias=None", bilinear,
        "y = x1^T A x2 + b.\n\n    >>> numtorch.nn.functional.bilinear(numtorch.ones(1, 2), numtorch.ones(1, 3), "
        "numtorch.ones(4, 2, 3)).shape\n    torch.Size([1, 4])\n", modules=(_F, "torch"),
        relevant=("input1", "input2", "weight", "bias"),
        fast=(_fp.bilinear(bilinear), ("input1", "input2", "weight", "bias")))  # fmt: skip
_simple("one_hot", "tensor, num_classes=-1", one_hot,
        "One-hot encode int64 class indices.\n\n    >>> numtorch.nn.functional.one_hot(numtorch.tensor([0, 2]))\n"
        "    tensor([[1, 0, 0],\n            [0, 0, 1]])\n", relevant=("tensor",))  # fmt: skip
_simple("glu", "input, dim=-1", glu,
        "Gated linear unit: a * sigmoid(b) of the two halves along ``dim``.\n\n    >>> numtorch.nn.functional.glu("
        "numtorch.tensor([1.0, 0.0]))\n    tensor([0.5000])\n",
        fast=(_glu_fast.make(glu, _glu_cpu, K, lambda *v: dispatch(glu, list(v))), ("input", "dim")))  # fmt: skip
_simple("cosine_similarity", "x1, x2, dim=1, eps=1e-08", cosine_similarity,
        "Cosine of the angle between x1 and x2 along ``dim``.\n\n    >>> numtorch.nn.functional.cosine_similarity("
        "numtorch.tensor([[1.0, 0.0]]), numtorch.tensor([[1.0, 1.0]]))\n    tensor([0.7071])\n",
        modules=(_F, "torch"), relevant=("x1", "x2"))  # fmt: skip
_simple("pairwise_distance", "x1, x2, p=2.0, eps=1e-06, keepdim=False", pairwise_distance,
        "p-norm distance between rows of x1 and x2.\n\n    >>> numtorch.nn.functional.pairwise_distance("
        "numtorch.tensor([[0.0, 0.0]]), numtorch.tensor([[3.0, 4.0]]))\n    tensor([5.0000])\n",
        modules=(_F, "torch"), relevant=("x1", "x2"))  # fmt: skip
