"""``numtorch.func``: composable function transforms (``torch.func``).

>>> numtorch.func.grad(lambda x: (x * x).sum())(numtorch.tensor([1.0, 3.0]))
tensor([2., 6.])
"""

from __future__ import annotations

from .._functorch.eager_transforms import (
    grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp,
)  # fmt: skip
from .._functorch.functional_call import functional_call, stack_module_state
from .._functorch.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]  # fmt: skip
