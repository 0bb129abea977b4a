"""linspace/logspace values for numtorch/ops/factory/fast.py (Note [Factory binding fast call]).

The kernel is PyTorch's CPU linspace step for step, in the output's dtype (float32 or float64):
``step = (end - start) / (steps - 1)``, then ``start + step * i`` for the first half and
``end - step * (steps - 1 - i)`` for the rest, every operation rounded in that dtype (no fused
multiply-add: Numba emits separate IEEE operations), which is what
``_factory_utils.space_array``'s NumPy expression computes, bit for bit.
"""

from __future__ import annotations

from .._jit import kernel


@kernel
def linspace(start, end, nm1, out):
    """``out`` (1-D, >= 2 elements) = linspace(start, end); ``start``, ``end`` and ``nm1`` (the
    number of steps minus one) are scalars of ``out``'s dtype."""
    step = (end - start) / nm1
    half = out.shape[0] // 2
    for i in range(out.shape[0]):
        out[i] = i  # i in the dtype (exact): the body's np.arange(steps, dtype)
        fi = out[i]
        if i < half:
            out[i] = start + step * fi
        else:
            out[i] = end - step * (nm1 - fi)
