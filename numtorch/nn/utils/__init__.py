"""numtorch.nn.utils: gradient clipping, parameter/vector conversion, parametrizations.

>>> p = numtorch.nn.Parameter(numtorch.ones(3))
>>> numtorch.nn.utils.parameters_to_vector([p]).shape
torch.Size([3])
"""

from __future__ import annotations

from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from . import parametrizations, parametrize, rnn  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
    "get_total_norm", "parameters_to_vector", "vector_to_parameters",
]  # fmt: skip
