"""The CUDA side of the optimizers' fused-kernel bridge (numtorch/optim/optimizer.py):
flat device views of parameters and state, write-back of converted copies, and the CUDA twin
of a CPU update kernel (numtorch/kernels/cuda/optim.py, same name, element count first)."""

from __future__ import annotations

import numpy as np

from .._meta import contiguous_strides
from .._tensor import Tensor
from ..kernels import lazy
from . import _storage as S
from ._launch import launch

K_OPT = lazy("numtorch.kernels.cuda.optim")
K_OPT_EXTRA = lazy("numtorch.kernels.cuda.optim_extra")


def flat(t: Tensor, cd) -> tuple:
    """(a contiguous 1-D ``cd`` device array of ``t``, whether it is a copy to write back)."""
    a = t._data
    if a.dtype.kind == "c":
        raise NotImplementedError("numtorch.cuda: optimizers of complex CUDA parameters are not implemented yet")
    if a.contiguous and a.dtype == np.dtype(cd):
        return S.window(a), False
    from ._install import contiguous_copy

    c = contiguous_copy(a, np.dtype(cd))
    return c.root[: max(c.size, 1)], True  # an empty parameter launches nothing


def write_back(t: Tensor, flat_arr) -> None:
    from ._install import copy_into

    a = t._data
    src = S.CudaArray(None, flat_arr, 0, a.shape, contiguous_strides(a.shape), flat_arr.dtype)
    copy_into(a, src)


def twin(cpu_kernel):
    """The CUDA kernel named as ``cpu_kernel``, called as it is (the element count first)."""
    name = getattr(cpu_kernel, "__name__", "").removesuffix("_parallel")
    kern = getattr(K_OPT, name, None)
    if kern is None:
        kern = getattr(K_OPT_EXTRA, name, None)
    if kern is None:
        raise NotImplementedError(f"numtorch.cuda: the optimizer kernel {name} has no CUDA version yet")
    return lambda p, *rest: launch(kern, p.size, p, *rest)
