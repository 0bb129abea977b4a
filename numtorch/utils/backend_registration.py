"""Out-of-tree backends through PyTorch's PrivateUse1 key. numtorch has no PrivateUse1 dispatch key:
a new device is added with a Tensor subclass, a TorchDispatchMode or numtorch.library kernels."""

from __future__ import annotations

_MSG = (
    "numtorch has no PrivateUse1 dispatch key, so {what} is not supported; add a backend with a Tensor subclass "
    "and __torch_dispatch__, a TorchDispatchMode, or numtorch.library.impl kernels instead"
)


def rename_privateuse1_backend(backend_name: str) -> None:
    """Rename PyTorch's ``privateuseone`` device; numtorch has none, so this raises.

    >>> numtorch.utils.rename_privateuse1_backend("foo")
    Traceback (most recent call last):
    NotImplementedError: numtorch has no PrivateUse1 dispatch key, so rename_privateuse1_backend('foo') is not supported; add a backend with a Tensor subclass and __torch_dispatch__, a TorchDispatchMode, or numtorch.library.impl kernels instead
    """
    if not isinstance(backend_name, str):
        raise TypeError(f"rename_privateuse1_backend(): argument 'backend_name' must be str, not {type(backend_name).__name__}")
    raise NotImplementedError(_MSG.format(what=f"rename_privateuse1_backend({backend_name!r})"))


def generate_methods_for_privateuse1_backend(for_tensor: bool = True, for_module: bool = True,
                                             for_packed_sequence: bool = True, for_storage: bool = False,
                                             unsupported_dtype=None) -> None:  # fmt: skip
    """Add ``Tensor.foo()``-style methods for the renamed PrivateUse1 backend; raises (see module doc)."""
    raise NotImplementedError(_MSG.format(what="generate_methods_for_privateuse1_backend()"))
