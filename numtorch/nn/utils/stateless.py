"""``functional_call`` under its pre-2.0 name, mirroring ``torch.nn.utils.stateless`` (deprecated
there in favour of ``torch.func.functional_call``, to which it forwards)."""

from __future__ import annotations

import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):  # fmt: skip
    """Call ``module`` with the given parameters and buffers in place of its own.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> m = numtorch.nn.Linear(2, 1, bias=False)
    >>> functional_call(m, {"weight": numtorch.ones(1, 2)}, (numtorch.ones(1, 2),))
    tensor([[2.]])
    """
    import numtorch.func

    warnings.warn(
        "This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. Please use "
        "torch.func.functional_call instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return numtorch.func.functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                         strict=strict)  # fmt: skip
