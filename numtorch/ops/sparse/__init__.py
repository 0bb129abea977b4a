"""Sparse COO tensors: the SparseCPU kernels of aten ops and the ``torch.sparse`` functions.

Note [Sparse COO tensors are the SparseCPU backend] (numtorch/_sparse_tensor.py).
"""

from . import core, math, products, reduction, shape  # noqa: F401
from . import functions  # noqa: F401,E402 - the public torch.sparse bindings, over the ops above
