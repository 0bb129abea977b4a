"""Index checks on the device, reported at the next synchronising call.

# Note [Device-side index checks]
# An index (gather, index_select, embedding, scatter, index_add, nll_loss's target) is checked
# by the kernel that reads it, not by copying it to the host first: that copy is a full device
# synchronisation, which stops the host from queueing work ahead of the GPU (a GPT step made 12
# of them). PyTorch's CUDA kernels check on the device too (a device-side assert, reported
# asynchronously). Here a kernel that meets a bad index skips it and records the first one in a
# 4-word int64 flag on the device: (message code, bad value, dim, size). A checked launch arms
# ``_ARMED``; every synchronising call (``CudaArray.copy_to_host`` - item(), cpu(), printing -
# and ``numtorch.cuda.synchronize``) then reads the flag once, clears it and raises the CPU
# kernel's exception with its text (MESSAGES), where PyTorch would raise "device-side assert
# triggered" and leave the context unusable. Like PyTorch's, the error may surface after later
# ops were queued, and elements with valid indices may already have been written.
# ``NUMTORCH_CUDA_SYNC_CHECKS=1`` (or ``CUDA_LAUNCH_BLOCKING=1``) restores the synchronous host
# check: the index is copied and checked before any launch, and nothing is written on error.
"""

from __future__ import annotations

import os

import numpy as np

from . import _runtime as rt

# message codes (the kernels' ``code`` argument; 0: unchecked, negative indices wrap)
BOUNDS, RANGE, DATA, TARGET = 1, 2, 3, 4
MESSAGES = {
    BOUNDS: (RuntimeError, "index {bad} is out of bounds for dimension {dim} with size {size}"),
    RANGE: (IndexError, "index out of range in self"),
    DATA: (RuntimeError, "INDICES element is out of DATA bounds, id={bad} axis_dim={size}"),
    TARGET: (IndexError, "Target {bad} is out of bounds."),
}
_FLAG: list = []  # [the device flag], allocated on first use (outside the caching allocator)
_ARMED = [False]


def synchronous() -> bool:
    """True when index checks run on the host before the launch (the environment's switch)."""
    return any(os.environ.get(k, "0") not in ("", "0") for k in ("NUMTORCH_CUDA_SYNC_CHECKS", "CUDA_LAUNCH_BLOCKING"))


def flag(arm: bool = True):
    """The device flag for a launch; ``arm``: a checked one (the next synchronising call reads it)."""
    if not _FLAG:
        _FLAG.append(rt.driver().to_device(np.zeros(4, np.int64)))
    if arm:
        _ARMED[0] = True
    return _FLAG[0]


def check() -> None:
    """Raise the first bad index recorded since the last check (Note [Device-side index checks])."""
    if not _ARMED[0]:
        return
    _ARMED[0] = False
    words = _FLAG[0].copy_to_host()
    code = int(words[0])
    if code:
        _FLAG[0].copy_to_device(np.zeros(4, np.int64))
        exc, text = MESSAGES[code]
        raise exc(text.format(bad=int(words[1]), dim=int(words[2]), size=int(words[3])))
