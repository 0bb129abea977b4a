"""Memory-overlap checks for every write into an existing tensor (in-place ops, ``out=``).

# Note [Written-to memory]
# PyTorch refuses a write whose destination has internal overlap (an expanded tensor: two
# elements at one address) or partially overlaps an input (``x[1:].add_(x[:-1])``): the result
# would depend on the loop order. A destination that *is* an input (full overlap, same strides)
# is fine for elementwise ops. The checks run before anything is written, before shape and dtype
# checks, as TensorIterator's compute_mem_overlaps does. A leaf module: the elementwise engines,
# the shape ops and the dispatcher's generic out=/in-place check all use it.
"""

from __future__ import annotations

import numpy as np

INTERNAL_OVERLAP_ERR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
OVERLAP_ERR = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


def dense(shape, st) -> bool:
    """PyTorch's is_non_overlapping_and_dense for element strides ``st``."""
    if len(shape) == 1:
        return shape[0] < 2 or st[0] == 1
    need = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: st[d]):
        if st[d] != need:
            return False
        need *= shape[d]
    return True


def _est(a: np.ndarray) -> tuple:
    isz = a.itemsize
    return tuple(s // isz for s in a.strides)


def check_no_internal_overlap(a: np.ndarray) -> None:
    """PyTorch refuses to write where two elements of the destination share memory."""
    if a.size == 0:  # nothing is written (NumPy 2 gives empty arrays all-zero strides)
        return
    for n, s in zip(a.shape, a.strides, strict=False):
        if s == 0 and n > 1:
            raise RuntimeError(INTERNAL_OVERLAP_ERR)


def overlap(a: np.ndarray, b: np.ndarray) -> str:
    """PyTorch's get_overlap_status: "full", "partial", "no" or "too_hard" (not both dense)."""
    if a.size == 0 or b.size == 0:
        return "no"
    if not (dense(a.shape, _est(a)) and dense(b.shape, _est(b))):
        return "too_hard"
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else "no"


def check_no_partial_overlap(dst: np.ndarray, src: np.ndarray) -> None:
    """at::assert_no_partial_overlap: an input may be the destination, not part of it."""
    if dst is not src and np.may_share_memory(dst, src) and overlap(dst, src) == "partial":
        raise RuntimeError(OVERLAP_ERR)


def check_written(dst: np.ndarray, inputs) -> None:
    """Both checks of Note [Written-to memory] for one destination and its input arrays."""
    check_no_internal_overlap(dst)
    for a in inputs:
        if a is not None:
            check_no_partial_overlap(dst, a)
