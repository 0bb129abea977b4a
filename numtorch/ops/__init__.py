"""Op declarations (one module per area) and, as ``numtorch.ops.<namespace>``, the op namespaces.

Importing this package registers every op. Any other attribute is an operator namespace, as
in ``torch.ops``: ``numtorch.ops.aten.add.Tensor``, ``numtorch.ops.mylib.foo``.
"""

from . import autograd, factory, indexing, linalg, pointwise, random, reduction, shape  # noqa: F401
from . import nn, pointwise_compare, pointwise_math, pointwise_special  # noqa: F401,E402
from . import extra, fft, tensor_extra, windows  # noqa: F401,E402


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._ops import ops as _root

    return _root.namespace(name)
