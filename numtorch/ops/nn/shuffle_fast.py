"""The fast call of channel_shuffle / native_channel_shuffle (Note [Channel shuffle fast call])."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make
from .._fast_guard import or_body, params, plain


# Note [Channel shuffle fast call]
# channel_shuffle is ATen's composite: reshape to (N, groups, C / groups, ...), transpose(1, 2)
# and reshape back, which copies - three view ops through the public methods (their shape
# parsing and stride computation): 7.9-10.3 us on a small input where PyTorch takes 1.4-2.1.
# For a plain input (_fast_guard.plain; not a wide unsigned dtype) of more than 2 dims and
# an int groups with 1 < groups < C dividing C, the same copy is one NumPy C-order copy of the
# transposed view: a new C-contiguous tensor, as the body's last reshape makes. groups 1 or C
# (the transposed view is still contiguous, so the body returns a view of the input), an empty
# input and every error take the body.
def _shuffle(input, groups):
    a = input._data
    if not (groups.__class__ is int and a.ndim > 2 and a.size and plain(input) and input._dtype._rank <= 10):
        return None
    c = a.shape[1]
    if not 1 < groups < c or c % groups:
        return None
    y = a.reshape((a.shape[0], groups, c // groups) + a.shape[2:]).swapaxes(1, 2)
    return _make(np.ascontiguousarray(y).reshape(a.shape), input._dtype)


def install(bindings) -> None:
    """Attach the fast call (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        if b.name in ("channel_shuffle", "native_channel_shuffle") and b.fast is None:
            b.fast = (or_body(_shuffle, b.body), params(b.sig))
    from . import attention_fast, hinge_fast, pixel_shuffle_fast  # session 17: installed here, not in numtorch/__init__.py's list

    for m in (pixel_shuffle_fast, attention_fast, hinge_fast):
        m.install(bindings)
