"""Transform levels: a leaf module read by the dispatcher (Note [vmap key]).

# Note [Transform levels]
# Each transform call (vmap, grad, jvp ...) takes the next integer level and keeps it while its
# function runs. A BatchedTensor records the level of the vmap that made it, so that nested vmaps
# unwrap only their own tensors: the vmap key handles the innermost (highest) level present among
# the arguments and calls the op again on the values, which may be BatchedTensors of outer levels.
# Grad transforms make their inputs fresh differentiable aliases and differentiate with respect to
# exactly those (autograd.grad with inputs=), so an inner grad never sees an outer level's tensors
# as its own: that rules out perturbation confusion.
"""

from __future__ import annotations

CALL_GRAD = [True]  # grad mode at the last slow-path call under vmap (Note [vmap key])
VMAP_LEVELS: list = []  # active vmap levels (VmapLevel), innermost last; read on the slow path
_COUNTER = [0]


class VmapLevel:
    __slots__ = ("level", "batch_size", "randomness", "grad_enabled")

    def __init__(self, batch_size: int, randomness: str, grad_enabled: bool):
        self.level = next_level()
        self.batch_size = batch_size
        self.randomness = randomness
        self.grad_enabled = grad_enabled


def next_level() -> int:
    _COUNTER[0] += 1
    return _COUNTER[0]


GRAD_DEPTH = [0]  # grad-type transforms (grad, vjp, jacrev, jvp ...) currently running
