"""gaussian_nll_loss's variance check and clamp in NumPy where nothing can see their ops
(Note [Gaussian NLL's check and clamp])."""

from __future__ import annotations

import math

import numpy as np

from ..._api import _OVERRIDES
from ..._device import CPU
from ..._state import STATE
from ..._tensor import Tensor
from ...amp._policy import _INSTALLED as _AUTOCAST

# Note [Gaussian NLL's check and clamp]
# F.gaussian_nll_loss (Python in PyTorch too) checks ``(var < 0).any()`` and clamps a clone of
# var in place under no_grad: three ops no graph takes in (lt, any; clamp_ is not recorded),
# and the in-place clamp_ alone cost ~15 us of a 33 us small call (PyTorch: 17 us). With no
# dispatch mode, forward-AD level or autocast region and no kernel registered over an aten op
# (Note [Fast calls under kernel overrides]), on a plain float32/float64 CPU Tensor, the check
# is NumPy's ``(a < 0).any()`` (the same bool: NaN compares false in both) and the clamp is
# ``np.maximum(c, eps, out=c)`` on the clone's memory, its version counter bumped as clamp_'s:
# rounding is monotonic, so max(x, eps) in float32 is the kernel's max(x, float32(eps)), and
# both propagate NaN (eps is a positive finite number: no signed-zero tie). The clone stays an
# op (CloneBackward0 carries var's gradient, as in PyTorch). Anything else runs the ops.


def _free(t) -> bool:
    S = STATE
    return not (
        S.td_modes
        or S.fw_level >= 0
        or _AUTOCAST
        or _OVERRIDES[0]
        or t.__class__ is not Tensor
        or t._device is not CPU
        or t._data.dtype not in _FLOATS
    )


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def var_negative(var):
    """``bool((var < 0).any())`` in NumPy, or None where the ops must run."""
    if not _free(var):
        return None
    return bool((var._data < 0).any())


def clamp_clone(var, eps) -> bool:
    """Clamp ``var`` (the loss's fresh clone) to ``eps`` in place as ``clamp_(min=eps)``;
    False (nothing written) where the op must run."""
    e = eps.__class__
    if not ((e is float or e is int) and 0 < eps < math.inf and _free(var)):
        return False
    a = var._data
    if not a.flags.writeable:
        return False
    np.maximum(a, eps, out=a)
    var._vc[0] += 1
    return True
