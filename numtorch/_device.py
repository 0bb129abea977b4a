"""Devices. The kernel table is keyed by device type, so "cuda" is a first-class key."""

from __future__ import annotations

_TYPES = ("cpu", "cuda", "meta")


class device:
    """Where a tensor's storage lives, mirroring ``torch.device``.

    >>> numtorch.device("cuda:1")
    device(type='cuda', index=1)
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments: {type!r}")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, meta device type at start of device string: " + type
            )
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
# Note [bfloat16] (numtorch/_dtype.py): every bfloat16 CPU tensor carries this one, so the fast
# paths' ``_device is CPU`` gates send it to the backend key, which computes in float32
BF16_CPU = device("cpu")


def to_device(d) -> device:
    if d is None or d is CPU:
        return CPU
    if isinstance(d, device):
        return d
    return device(d)


class CudaNotCompiledError(RuntimeError, AssertionError):
    """PyTorch's CPU build raises AssertionError here; numtorch's callers catch RuntimeError too."""


def cuda_not_compiled() -> CudaNotCompiledError:
    """The error for a CUDA request when numtorch's CUDA backend (the ``cuda`` extra) is not loaded."""
    return CudaNotCompiledError(
        "Torch not compiled with CUDA enabled: numtorch's CUDA backend is not available "
        "(install it with `pip install numtorch[cuda]`, which brings numba-cuda, on a machine "
        "with an NVIDIA GPU)"
    )
