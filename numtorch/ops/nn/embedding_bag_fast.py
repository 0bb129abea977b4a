"""The fast call of F.embedding_bag (Note [embedding_bag fast call])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import lazy
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._entries import call
from .embedding_bag import EB

_KR = lazy("numtorch.kernels.cpu.reduction.core")

# Note [embedding_bag fast call]
# F.embedding_bag of a small batch ran the public body's argument checks, the composite (index
# checks, the meta test, the forward-only dispatch), _embedding_bag_body's NumPy bookkeeping
# (range test, _bags, keep, bincount) and three auxiliary outputs F drops: 30 us where PyTorch
# takes 4.4. Where the body would take Note [embedding_bag forward only]'s route with nothing
# optional - a plain float32/float64 2-D weight (_fast_guard.plain: no mode, forward-AD level
# or autocast region, nothing to record), int64 indices, 1-D with int64 1-D offsets that start
# at 0, ascend and end within the input (or 2-D, offsets None), no max_norm, per-sample
# weights, padding_idx, include_last_offset, scale_grad_by_freq or sparse - the call makes the
# same bag_reduce kernel call: each index's bag from EB.bags (the body's searchsorted for
# ascending starts), keep all ones, counts by np.bincount. An index out of range (one
# minmax_all pass) or any other argument takes the body, whose checks raise PyTorch's errors.
_MODES = {"sum": 0, "mean": 1, "max": 2}
_FLOATS = (D.float32, D.float64)


def _embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                   per_sample_weights, include_last_offset, padding_idx):  # fmt: skip
    if not (max_norm is None and per_sample_weights is None and padding_idx is None and include_last_offset is False
            and scale_grad_by_freq is False and sparse is False and mode.__class__ is str):  # fmt: skip
        return None
    m = _MODES.get(mode)
    w, i = weight._data, input._data
    if (m is None or weight._dtype not in _FLOATS or w.ndim != 2 or not w.flags.c_contiguous or input._dtype is not D.int64
            or not i.size or not plain(weight) or not recordless(input)):  # fmt: skip
        return None
    n = i.size
    if i.ndim == 2 and offsets is None:
        starts = np.arange(0, n, i.shape[1], dtype=np.int64)
    elif i.ndim == 1 and offsets.__class__ is input.__class__ and offsets._dtype is D.int64 and recordless(offsets):
        starts = offsets._data
        if starts.ndim != 1 or not starts.size or starts[0] != 0 or starts[-1] > n:
            return None
        if starts.size > 1 and not (starts[1:] >= starts[:-1]).all():
            return None
        starts = np.ascontiguousarray(starts)
    else:
        return None
    idx = i.ravel()
    mm = np.empty(2, np.int64)
    call(_KR, "minmax_all", (idx, mm))  # compiled entries (Note [Compiled kernel entry])
    if mm[0] < 0 or mm[1] >= w.shape[0]:
        return None
    n_bags = starts.size
    bag = np.zeros(n, np.int64)
    call(EB, "bags", (starts, n, bag))
    counts = np.bincount(bag, minlength=n_bags)[:n_bags].astype(np.int64)
    out = np.zeros((n_bags, w.shape[1]), w.dtype)
    arg = np.zeros(out.shape if m == 2 else (0, 0), np.int64)
    if out.size:
        call(EB, "bag_reduce", (w, idx, bag, np.ones(n, bool), np.zeros(1, w.dtype), False, counts, m, out, arg,
                                w.dtype.type(1)))  # fmt: skip
    return _make(out, weight._dtype)


def install(bindings) -> None:
    """Attach the fast call (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        if b.module == "torch.nn.functional" and b.name == "embedding_bag" and b.fast is None:
            b.fast = (or_body(_embedding_bag, b.body), params(b.sig))
