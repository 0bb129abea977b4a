"""``embedding_bag``: sums, means or maxima of bags of embedding rows without materializing the
per-index embeddings' bag structure, as ``torch.embedding_bag`` / ``F.embedding_bag``.

# Note [embedding_bag is a composite]
# The bag of every index comes from the offsets with NumPy on the integer arrays (data movement),
# indices equal to padding_idx are dropped, and the reduction is one numtorch op over the
# gathered rows: index_add for sum/mean, scatter_reduce(amax) for max. Autograd therefore reaches
# ``weight`` (and per_sample_weights) through embedding's and those ops' own derivatives. The three
# auxiliary outputs (offset2bag, bag_size, max_indices) follow what PyTorch's CPU kernel returns
# for each mode.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ...kernels import lazy
from .._registry import defop, public
from .layers import _check_indices

aten = _ops.aten  # Note [Composite bodies are below the Python API]
_F = "torch.nn.functional"
_MODES = {"sum": 0, "mean": 1, "max": 2}
EB = lazy("numtorch.kernels.cpu.nn.embedding_bag")


def _bags(indices, offsets, include_last_offset):
    n = indices.shape[0]
    offs = offsets.numpy().astype(np.int64)
    if include_last_offset:
        offs, n_bags = offs, max(len(offs) - 1, 0)
    else:
        n_bags = len(offs)
    if len(offs) and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}\n[ torch.LongTensor{{}} ]")  # fmt: skip
    if len(offs) and offs[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {offs[-1]}")
    starts = offs[:n_bags]
    bag = np.zeros(n, np.int64)
    if n_bags and n > 64 and bool((starts[1:] >= starts[:-1]).all()):
        # ascending starts from 0: the searchsorted below (and its fix-ups) in one O(n) pass
        EB.bags(np.ascontiguousarray(starts), n, bag)
        return bag, n_bags
    if n_bags:
        bag = np.searchsorted(starts, np.arange(n), side="right") - 1
    if include_last_offset and n_bags:
        bag = np.where(np.arange(n) >= offs[-1], n_bags - 1, bag)
    return np.clip(bag, 0, max(n_bags - 1, 0)), n_bags


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                   include_last_offset, padding_idx):  # fmt: skip
    # Note [embedding_bag is a composite]
    _check_indices(indices, "embedding_bag")
    num, dim = weight.shape
    if "meta" in (weight.device.type, indices.device.type, offsets.device.type):
        return _meta_outputs(weight, indices, offsets, mode, include_last_offset, padding_idx)
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                               f"but got {padding_idx}")  # fmt: skip
        padding_idx = padding_idx + num if padding_idx < 0 else padding_idx
    psw = per_sample_weights
    if not (STATE.grad_enabled and (weight.requires_grad or psw is not None and psw.requires_grad)) and (
        weight.dtype in (D.float32, D.float64) and weight.device.type == "cpu"
    ):  # Note [embedding_bag forward only]
        return dispatch(embedding_bag_forward_only, [weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw,
                                                     include_last_offset, -1 if padding_idx is None else padding_idx])  # fmt: skip
    return _embedding_bag_body(weight, indices, offsets, scale_grad_by_freq, mode, per_sample_weights,
                               include_last_offset, padding_idx, False)  # fmt: skip


def _embedding_bag_forward_only_cpu(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                    include_last_offset, padding_idx):  # fmt: skip
    # Note [embedding_bag forward only]
    _check_indices(indices, "embedding_bag")
    if weight._dtype not in (D.float32, D.float64):
        with no_grad():
            return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                  include_last_offset, None if padding_idx < 0 else padding_idx)  # fmt: skip
    return _embedding_bag_body(weight, indices, offsets, scale_grad_by_freq, mode, per_sample_weights,
                               include_last_offset, None if padding_idx < 0 else padding_idx, True)  # fmt: skip


def _embedding_bag_body(weight, indices, offsets, scale_grad_by_freq, mode, per_sample_weights, include_last_offset,
                        padding_idx, fused):  # fmt: skip
    num, dim = weight.shape
    idx = indices.numpy().astype(np.int64)
    bad = (idx < 0) | (idx >= num)
    if bad.any():
        k = int(np.argmax(bad))
        raise RuntimeError(f"Index {k} of input takes value {idx[k]} which is not in the valid range [0, {num})")
    bag, n_bags = _bags(indices, offsets, include_last_offset)
    keep = idx != padding_idx if padding_idx is not None else np.ones(len(idx), bool)
    counts = np.bincount(bag[keep], minlength=n_bags)[:n_bags].astype(np.int64)
    if fused:
        out, max_idx = _fused_reduce(weight, idx, bag, keep, per_sample_weights, counts, mode, n_bags)
    else:
        out, max_idx = _reduce(weight, idx, bag, keep, per_sample_weights, counts, mode, n_bags, scale_grad_by_freq)
    if mode == 0:
        # PyTorch's sum kernel takes an index_select fast path (no offset2bag) for float32/float16
        # weights without padding_idx; its bag_size / max_indices are zeros sized by the offsets
        fast = padding_idx is None and weight.dtype in (D.float32, D.float16, D.bfloat16)
        offset2bag = np.zeros(0, np.int64) if fast else bag
        bag_size = max_idx = np.zeros(offsets.shape[0], np.int64)
    else:
        offset2bag, bag_size = bag, counts
        if mode == 1:
            max_idx = bag_size
    return out, *(_make(np.ascontiguousarray(a, np.int64), D.int64) for a in (offset2bag, bag_size, max_idx))


def _fused_reduce(weight, idx, bag, keep, psw, counts, mode, n_bags):
    w = np.ascontiguousarray(weight._data)
    out = np.zeros((n_bags, w.shape[1]), w.dtype)
    arg = np.zeros(out.shape if mode == 2 else (0, 0), np.int64)
    p = np.ascontiguousarray(psw._data, w.dtype).reshape(-1) if psw is not None else np.zeros(1, w.dtype)
    if idx.size and out.size:
        EB.bag_reduce(w, idx, bag, keep, p, psw is not None, counts, int(mode), out, arg, w.dtype.type(1))
    return _make(out, weight._dtype), arg


def _reduce(weight, idx, bag, keep, per_sample_weights, counts, mode, n_bags, scale_grad_by_freq):
    dim = weight.shape[1]
    max_idx = None
    kept_bag = _long(bag[keep])
    rows = aten.embedding.default(weight, _long(idx[keep]), -1, bool(scale_grad_by_freq), False)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.index_select(0, _long(np.flatnonzero(keep))).unsqueeze(1)
    out = weight.new_zeros((n_bags, dim))
    if mode == 2:
        out = out.scatter_reduce(0, kept_bag.unsqueeze(1).expand(-1, dim), rows, "amax", include_self=False)
        max_idx = _max_indices(weight, idx[keep], bag[keep], n_bags, dim)
    else:
        out = out.index_add(0, kept_bag, rows)
        if mode == 1:
            out = out / _long(np.maximum(counts, 1)).to(out.dtype).unsqueeze(1)
    return out, max_idx


def _meta_outputs(weight, indices, offsets, mode, include_last_offset, padding_idx):
    # shapes only: they follow the offsets' length, never their values
    n_off = offsets.shape[0]
    n_bags = max(n_off - 1, 0) if include_last_offset else n_off
    fast = mode == 0 and padding_idx is None and weight.dtype in (D.float32, D.float16, D.bfloat16)
    i64 = {"dtype": D.int64}
    aux_len = n_off if mode == 0 else n_bags
    max_shape = (n_bags, weight.shape[1]) if mode == 2 else (aux_len,)
    return (weight.new_empty((n_bags, weight.shape[1])), weight.new_empty((0 if fast else indices.shape[0],), **i64),
            weight.new_empty((aux_len,), **i64), weight.new_empty(max_shape, **i64))  # fmt: skip


def _long(a) -> Tensor:
    return _make(np.ascontiguousarray(a, np.int64), D.int64)


def _max_indices(weight, idx, bag, n_bags, dim):
    w = weight.detach()
    w = (w.float() if w.dtype is D.bfloat16 else w).numpy()  # numpy() refuses bfloat16, as torch
    best = np.full((n_bags, dim), -np.inf)
    arg = np.zeros((n_bags, dim), np.int64)
    for i, b in zip(idx, bag, strict=True):
        better = w[i] > best[b]
        best[b] = np.where(better, w[i], best[b])
        arg[b] = np.where(better, i, arg[b])
    return arg


# Note [embedding_bag forward only]
# As PyTorch's embedding_bag, the composite calls _embedding_bag_forward_only when no gradient
# is wanted (grad mode off, or neither weight nor per_sample_weights requires grad). On CPU that
# op runs the same bookkeeping and one kernel for the reduction (kernels/cpu/nn/embedding_bag.py)
# instead of embedding + index_add / scatter_reduce + the max-index scan: ~4 ms -> ~1 ms for
# 131072 indices. With a gradient wanted the ops stay, and autograd differentiates them.
embedding_bag_forward_only = defop(
    "_embedding_bag_forward_only(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
    "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, "
    "int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)",
    cpu=_embedding_bag_forward_only_cpu,
)
embedding_bag = defop(
    "embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, "
    "bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> "
    "(Tensor, Tensor, Tensor, Tensor)",
    composite=_embedding_bag,
)


def _t_embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                     include_last_offset, padding_idx):  # fmt: skip
    """The ``torch.embedding_bag`` form: (output, offset2bag, bag_size, max_indices), mode as 0/1/2.

    >>> numtorch.embedding_bag(numtorch.eye(3), numtorch.tensor([0, 1, 2]), numtorch.tensor([0, 2]))[0]
    tensor([[1., 1., 0.],
            [0., 0., 1.]])
    """
    return dispatch(embedding_bag, [weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                    include_last_offset, padding_idx])  # fmt: skip


def _f_embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                     per_sample_weights, include_last_offset, padding_idx):  # fmt: skip
    """Sums, means or maxima over bags of embedding rows (``offsets`` mark bag starts in 1-D input).

    >>> numtorch.nn.functional.embedding_bag(numtorch.tensor([[0, 1], [2, 2]]), numtorch.eye(3))
    tensor([[0.5000, 0.5000, 0.0000],
            [0.0000, 0.0000, 1.0000]])
    """
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")  # fmt: skip
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {type(offsets)}")  # fmt: skip
        offsets = _long(np.arange(0, input.numel(), input.size(1))).to(input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            aten.embedding_renorm_.default(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")  # fmt: skip
    return dispatch(embedding_bag, [weight, input, offsets, scale_grad_by_freq, _MODES[mode], sparse,
                                    per_sample_weights, include_last_offset, padding_idx])[0]  # fmt: skip


public("embedding_bag", "weight, input, offsets, scale_grad_by_freq=False, mode=0, sparse=False, "
       "per_sample_weights=None, include_last_offset=False, padding_idx=None", _t_embedding_bag,
       relevant=("weight", "input", "offsets"), ops=(embedding_bag,))  # fmt: skip
public("embedding_bag", "input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, "
       "mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None",
       _f_embedding_bag, relevant=("input", "weight", "offsets", "per_sample_weights"), module=_F,
       ops=(embedding_bag,))  # fmt: skip
