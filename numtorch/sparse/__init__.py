"""``numtorch.sparse``: sparse COO tensors' functions, as ``torch.sparse``.

A sparse COO tensor (``numtorch.sparse_coo_tensor``, ``Tensor.to_sparse``) holds ``indices``
(sparse_dim x nnz, int64) and ``values`` (nnz x dense dims); ``mm``, ``addmm``, ``sum``,
``softmax`` and ``log_softmax`` here, and the aten ops with a SparseCPU kernel
(numtorch/ops/sparse/), take it. The functions are bound from the op registry at import
(numtorch/ops/sparse/functions.py).
"""

from __future__ import annotations

from .._sparse_tensor import SparseCooTensor  # noqa: F401

__all__ = ["addmm", "check_sparse_tensor_invariants", "log_softmax", "mm", "softmax", "sum"]


class check_sparse_tensor_invariants:
    """Turn PyTorch's sparse invariant checks on or off, as a context manager or decorator.

    numtorch checks a new sparse tensor's indices against its size always (its kernels index
    with them), so the switch only records the state PyTorch code asks about.

    >>> with numtorch.sparse.check_sparse_tensor_invariants():
    ...     numtorch.sparse.check_sparse_tensor_invariants.is_enabled()
    True
    """

    _enabled = False

    @staticmethod
    def is_enabled() -> bool:
        return check_sparse_tensor_invariants._enabled

    @staticmethod
    def enable() -> None:
        check_sparse_tensor_invariants._enabled = True

    @staticmethod
    def disable() -> None:
        check_sparse_tensor_invariants._enabled = False

    def __init__(self, enable: bool = True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a different context manager instance for context nesting.")
        self.saved_state = self.is_enabled()
        check_sparse_tensor_invariants._enabled = self.state
        return self

    def __exit__(self, *exc):
        check_sparse_tensor_invariants._enabled = self.saved_state
        self.saved_state = None

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)

        return wrapped
