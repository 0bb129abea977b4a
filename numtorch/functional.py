"""``torch.functional``'s import path: the tensor functions PyTorch writes in Python there, which
numtorch defines with its ops (the same objects as ``numtorch.<name>``)."""

from __future__ import annotations

import numtorch as _nt

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split", "tensordot", "unique",
           "unique_consecutive", "unravel_index"]  # fmt: skip


def __getattr__(name: str):
    if name in __all__:
        return getattr(_nt, name)
    raise AttributeError(f"module 'numtorch.functional' has no attribute '{name}'")


def __dir__():
    return sorted(__all__)
