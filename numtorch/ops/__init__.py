"""Op declarations (one package per area) and, as ``numtorch.ops.<namespace>``, the op namespaces.

Importing this package registers every op. Any other attribute is an operator namespace, as
in ``torch.ops``: ``numtorch.ops.aten.add.Tensor``, ``numtorch.ops.mylib.foo``.

Areas depend one way (no import circle, checked by tests/test_style.py): ``_registry`` and the
elementwise engine ``_pointwise`` are leaves; ``reduction`` <- ``pointwise``, ``shape``;
``shape`` <- ``indexing``, ``factory`` (conversions), ``linalg``; ``factory`` <- ``linalg``.
Inside a package, ``core`` (or a ``_``-prefixed helper module) holds what its siblings share and
imports none of them; the package's ``__init__`` imports its modules in order.
"""

from . import autograd, factory, indexing, linalg, pointwise, reduction, shape  # noqa: F401
from . import nn  # noqa: F401,E402
from . import extra, fft  # noqa: F401,E402
from . import sparse  # noqa: F401,E402
from ._meta_rules import copy_to_meta as _copy_to_meta  # noqa: E402
from ._meta_rules import install as _install_meta  # noqa: E402
from ._tags import install as _install_tags  # noqa: E402

_install_meta()  # every op is registered now: attach the meta kernels by family
factory.conversion.DEVICE_COPY["meta"] = _copy_to_meta  # Tensor.to("meta")
_install_tags()  # tags by family rule, after every op is declared


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._ops import ops as _root

    return _root.namespace(name)
