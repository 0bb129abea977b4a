"""The arithmetic on NumPy's draws of the in-place samplers (numtorch/ops/factory/sampler_fast.py,
Note [In-place sampler fast calls]): one loop where the bodies run two or three NumPy ufuncs
and a casting copy. Each element gets the same IEEE operations in the same order and dtype as
the bodies' NumPy expressions (Numba emits separate multiply and add, never a fused
multiply-add, and stores a float64 into float32 rounding to nearest even as NumPy's cast), so the
values are bit for bit the bodies'. Callers pass parameters under which no operation can
overflow: NumPy would warn there and these loops would not.
"""

from __future__ import annotations

from .._jit import kernel


@kernel
def affine_(a, scale, shift):
    """``a[i] = shift + scale * a[i]`` in ``a``'s dtype (1-D; ``scale``, ``shift`` of that dtype)."""
    for i in range(a.shape[0]):
        a[i] = shift + scale * a[i]


@kernel
def affine_into(x, scale, shift, out):
    """``out[i] = shift + scale * x[i]`` computed in float64, stored as ``out``'s dtype (1-D)."""
    for i in range(x.shape[0]):
        out[i] = shift + scale * x[i]


@kernel
def divide_into(x, d, out):
    """``out[i] = x[i] / d`` computed in float64, stored as ``out``'s dtype (1-D)."""
    for i in range(x.shape[0]):
        out[i] = x[i] / d
