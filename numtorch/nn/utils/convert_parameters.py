"""Flatten parameters into one vector and back, mirroring ``torch.nn.utils.convert_parameters``."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ..modules.module import _typename


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Concatenate the flattened parameters into one 1-D tensor.

    >>> ps = [numtorch.nn.Parameter(numtorch.ones(2, 2)), numtorch.nn.Parameter(numtorch.zeros(1))]
    >>> numtorch.nn.utils.parameters_to_vector(ps)
    tensor([1., 1., 1., 1., 0.], grad_fn=<CatBackward0>)
    """
    import numtorch

    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return numtorch.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point each parameter's data at the matching slice of ``vec`` (the inverse of
    parameters_to_vector; the parameters then share ``vec``'s memory).

    >>> p = numtorch.nn.Parameter(numtorch.zeros(2))
    >>> numtorch.nn.utils.vector_to_parameters(numtorch.tensor([3.0, 4.0]), [p]); p.data
    tensor([3., 4.])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param: Tensor, old_param_device: int | None) -> int:
    is_cuda = param.device.type == "cuda"
    index = (param.device.index or 0) if is_cuda else -1
    if old_param_device is None:
        return index
    if (is_cuda and index != old_param_device) or (not is_cuda and old_param_device != -1):
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return old_param_device
