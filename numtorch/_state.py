"""Process-wide flags read on the hot path (grad mode, active override modes).

# Note [One cheap gate]
# Every public wrapper and the dispatcher read these attributes directly instead of calling
# functions, so the common case (no modes, grad mode irrelevant) costs a few attribute reads.
# Anything that pushes a mode or toggles grad mode must keep these fields in sync.
"""

from __future__ import annotations


class _State:
    __slots__ = ("grad_enabled", "inference", "tf_modes", "td_modes", "fw_level", "anomaly")

    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.tf_modes: list = []  # TorchFunctionMode stack, innermost last
        self.td_modes: list = []  # TorchDispatchMode stack, innermost last
        self.fw_level = -1  # forward-AD dual level, -1 when none is active
        self.anomaly = 0  # Note [Slow recording gate]: ANOMALY | SAVED_HOOKS bits


# Note [Slow recording gate]
# Every generated recording fast path already tests ``STATE.anomaly`` and falls back to the
# generic recorder when it is set. Saved-tensor hooks (autograd.graph.saved_tensors_hooks) need
# that same fallback, because the fast paths build SavedTensors inline, so they share the field
# as a second bit: the no-hook path pays no extra read. Code that means anomaly mode itself
# tests ``STATE.anomaly & ANOMALY``.
ANOMALY = 1
SAVED_HOOKS = 2

STATE = _State()
