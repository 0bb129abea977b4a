"""The NumPy view of a basic index tuple, for ``Tensor.__getitem__``'s fast call.

# Note [Basic index tuples]
# ``x[:, :, :t, :t]``, ``x[..., 0]``, ``x[1, :, 2:]``: a tuple of slices with positive steps,
# in-range ints and at most one Ellipsis is basic indexing in PyTorch and NumPy alike, and
# NumPy's view has PyTorch's sizes, strides and offset. The body's chain of select/slice views
# ends at the same strided view of the same memory, ~2 us later. Anything else is None and the
# body runs: None in the key (NumPy's new axis has stride 0, PyTorch's unsqueeze the next dim's
# extent), advanced indexing, bools, NumPy or tensor scalars, steps <= 0, an out-of-range int
# (the body's IndexError) or slice bound (outside [-n, n]: both clamp, the body keeps its own
# rule), more indices than dims, and a result with no elements taken from a tensor with some
# (PyTorch keeps the slice's start as the offset, NumPy may not). The fast call takes it only
# with nothing to record.
"""

from __future__ import annotations

import builtins

_slice, _Ellipsis = builtins.slice, builtins.Ellipsis


def basic_view(a, key: tuple):
    """``a[key]`` as an array view when ``key`` is a basic index tuple (Note [Basic index
    tuples]), else None."""
    shape = a.shape
    used = 0
    ellipsis = False
    for k in key:
        c = k.__class__
        if c is _slice or c is int:
            used += 1
        elif k is _Ellipsis:
            if ellipsis:
                return None
            ellipsis = True
        else:
            return None
    nd = len(shape)
    if used > nd:
        return None
    d = 0
    for k in key:
        c = k.__class__
        if c is _slice:
            n = shape[d]
            step, start, stop = k.step, k.start, k.stop
            if not (
                (step is None or (step.__class__ is int and step > 0))
                and (start is None or (start.__class__ is int and -n <= start <= n))
                and (stop is None or (stop.__class__ is int and -n <= stop <= n))
            ):
                return None
            d += 1
        elif c is int:
            n = shape[d]
            if not -n <= k < n:
                return None
            d += 1
        elif k is _Ellipsis:
            d += nd - used
    r = a[key] if ellipsis else a[(*key, _Ellipsis)]  # the Ellipsis: an array, never a scalar
    return r if r.size or not a.size else None
