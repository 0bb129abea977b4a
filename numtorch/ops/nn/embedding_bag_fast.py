"""The fast call of F.embedding_bag (Note [embedding_bag fast call])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._entries import call
from .embedding_bag import EB

# Note [embedding_bag fast call]
# F.embedding_bag of a small batch ran the public body's argument checks, the composite (index
# checks, the meta test, the forward-only dispatch), _embedding_bag_body's NumPy bookkeeping
# (range test, _bags, keep, bincount) and three auxiliary outputs F drops: 30 us where PyTorch
# takes 4.4. Where the body would take Note [embedding_bag forward only]'s route with nothing
# optional - a plain float32/float64 2-D weight (_fast_guard.plain: no mode, forward-AD level
# or autocast region, nothing to record), int64 indices, 1-D with int64 1-D offsets that start
# at 0, ascend and end within the input (or 2-D, offsets None), no max_norm, per-sample
# weights, padding_idx, include_last_offset, scale_grad_by_freq or sparse - the call makes the
# same arithmetic as the body's bag_reduce kernel call, in one kernel (offsets_reduce) that
# walks each bag's run of indices straight from the offsets: no bag, keep or counts arrays (the
# body's bags, np.ones and np.bincount passes over the indices were most of a large call), and
# for a few columns one register accumulator per (bag, column) where bag_reduce stores into
# the output per index and column. Each (bag, column) still sums (or compares) its rows in
# index order from zero and divides by the bag's size, so the result is the body's bit for bit.
# Descending offsets or an index out of range (the kernel's first passes, before any row is
# read) or any other argument takes the body, whose checks raise PyTorch's errors.
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
    elif (
        i.ndim == 1
        and offsets.__class__ is input.__class__
        and offsets._dtype is D.int64
        and recordless(offsets)
    ):
        starts = offsets._data
        if starts.ndim != 1 or not starts.size or starts[0] != 0 or starts[-1] > n:
            return None
        starts = np.ascontiguousarray(starts)
    else:
        return None
    out = np.zeros((starts.size, w.shape[1]), w.dtype)
    # compiled entries (Note [Compiled kernel entry]); 1: unsorted starts or an index out of range
    if call(EB, "offsets_reduce", (w, i.ravel(), starts, m, out, w.dtype.type(1))):
        return None
    return _make(out, weight._dtype)


def install(bindings) -> None:
    """Attach the fast call (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        if b.module == "torch.nn.functional" and b.name == "embedding_bag" and b.fast is None:
            b.fast = (or_body(_embedding_bag, b.body), params(b.sig))
