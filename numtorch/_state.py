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
        self.anomaly = False


STATE = _State()
