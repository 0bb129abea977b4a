"""Ops the autograd layer needs: detach (a view without history), detach_, sum_to_size."""

from __future__ import annotations

from .._dispatch import dispatch
from .._tensor import _view
from ._registry import defop, public

detach = defop("detach(Tensor(a) self) -> Tensor(a)", any_device=lambda self: _view(self, self._data))


def _detach(input):
    """A view of ``input`` sharing memory but cut from the autograd graph.

    >>> numtorch.ones(2, requires_grad=True).detach().requires_grad
    False
    """
    return dispatch(detach, [input])


def _detach_(self):
    """Cut this tensor from the graph in place, making it a leaf."""
    if self._base is not None and self._base._rg:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
            "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of "
            "DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, "
            "please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
            "solution."
        )
    self._grad_fn = None
    self._rg = False
    return self


public("detach", "input", _detach, relevant=("input",), fast=(detach, ("input",)))
public("detach", "self", _detach, relevant=("self",), module="Tensor", fast=(detach, ("self",)))
public("detach_", "self", _detach_, relevant=("self",), module="Tensor")


def _sum_to_size(self, size):
    """Sum ``self`` down to a shape it broadcasts from.

    >>> numtorch.ones(2, 3).sum_to_size(3)
    tensor([2., 2., 2.])
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(size)
    shape = self._data.shape
    lead = len(shape) - len(size)
    if lead < 0:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1
    )
    r = self
    if len(dims) == 1:  # the same aten call, as one int: the reduction's fast call (24 -> 5 us)
        r = self.sum(dims[0], keepdim=True)
    elif dims:
        r = self.sum(dims, keepdim=True)
    if lead:
        r = r.reshape(size)
    return r


public("sum_to_size", "self, *size", _sum_to_size, relevant=("self",), module="Tensor")
