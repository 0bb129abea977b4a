"""The sparse COO tensor: ``indices`` (sparse_dim, nnz) int64 and ``values`` (nnz, *dense) Tensors.

# Note [Sparse COO tensors are the SparseCPU backend]
# PyTorch runs a sparse tensor's ops through the same dispatcher keys as a dense one: the
# Autograd key records the op's derivative formula, and the SparseCPU backend key (in place of
# CPU) runs a sparse kernel, or raises "Could not run 'aten::X' with arguments from the
# 'SparseCPU' backend" when the op has none. Here a sparse tensor is an instance of
# ``SparseCooTensor``, a Tensor subclass whose ``__torch_dispatch__`` is that backend: the
# dispatcher sends any op with a sparse operand past the Autograd key to the Python key (a
# subclass defining __torch_dispatch__ is never "plain": Note [Plain subclasses]), and
# ``__torch_dispatch__`` looks the op up in ``SPARSE_KERNELS``. The dense hot path is untouched:
# op.fast already sends every non-plain class to the slow path. Derivative formulas written for
# dense tensors then work unchanged where their ops have sparse kernels (mm's formula on a
# sparse mat1 gives a dense gradient, as in PyTorch), and ops whose PyTorch gradient is sparse
# (to_dense, torch.sparse.mm, torch.sparse.sum) are ops of their own with sparse formulas.
#
# ``_data`` is a ``SparseShape``: shape and dtype without a buffer, so metadata (shape, ndim,
# numel, dtype) and the autograd engine's shape checks read it as for a dense tensor, while code
# that reads elements through ``_data`` (a kernel called without dispatch) fails loudly; the
# Tensor methods that read values are overridden below with PyTorch's errors.
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D
from . import _layout
from ._C import _disabled_torch_function_impl
from ._meta import MetaArray
from ._size import Size
from ._tensor import Tensor, _make
from ._tensor_str import PRINT_OPTS, _tensor_str

SPARSE_KERNELS: dict = {}  # op name ("aten::add.Tensor") -> the SparseCPU kernel


def register(*names: str):
    """Register a SparseCPU kernel for the named op overloads (their schema's arguments)."""

    def deco(fn):
        for n in names:
            SPARSE_KERNELS[n if "::" in n else f"aten::{n}"] = fn
        return fn

    return deco


_NOT_HERE = (
    "This could be because the operator doesn't exist for this backend, or was omitted during "
    "the selective/custom build process (if using custom build). If you are a Facebook employee "
    "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions."
)


_KEY_NAMES = {"cpu": "CPU", "any": "CPU", "cuda": "CUDA", "meta": "Meta", "composite": "CompositeImplicitAutograd"}


def not_implemented(op) -> NotImplementedError:
    """PyTorch's error for an op without a SparseCPU kernel."""
    name = op.name()
    keys = ", ".join(dict.fromkeys(_KEY_NAMES.get(k, k) for k in op.impls)) or "none"
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the 'SparseCPU' backend. {_NOT_HERE} "
        f"'{name}' is only available for these backends: [{keys}]."
    )


class SparseCooTensor(Tensor):
    """A sparse COO tensor, as ``numtorch.sparse_coo_tensor`` and ``Tensor.to_sparse`` make it.

    PyTorch has no separate class (``type(s)`` is ``torch.Tensor`` there); here ``isinstance(s,
    numtorch.Tensor)`` holds and ``s.layout`` is ``numtorch.sparse_coo``.

    >>> s = numtorch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
    >>> s.is_sparse, s._nnz()
    (True, 2)
    """

    __slots__ = ("_sp_idx", "_sp_val", "_sp_coal")
    __torch_function__ = _disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        fn = SPARSE_KERNELS.get(func.name())
        if fn is None:
            raise not_implemented(func)
        return fn(*args, **(kwargs or {}))

    # ---- metadata ---------------------------------------------------------------------
    layout = property(lambda self: _layout.sparse_coo, doc="``numtorch.sparse_coo``.")
    is_sparse = property(lambda self: True, doc="True for a sparse COO tensor.")

    def stride(self, dim=None):
        raise RuntimeError("Sparse tensors do not have strides")

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def storage_offset(self) -> int:
        raise RuntimeError("Cannot access storage of SparseTensorImpl")

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    storage = untyped_storage

    # ---- no dense view of the values ----------------------------------------------------
    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def _host(self):
        return self.numpy()

    @property
    def nbytes(self) -> int:
        raise RuntimeError("nbytes is not defined for sparse tensors.  If you want the size of the constituent "
                           "tensors, add the nbytes of the indices and values.  If you want the size of the  "
                           "equivalent dense tensor, multiply numel() by element_size()")  # fmt: skip

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return "torch.sparse." + super().type().split(".")[-1]
        return super().type(dtype, non_blocking, **kwargs)

    def tolist(self):
        raise RuntimeError("tolist() is not supported for sparse tensors; use to_dense().tolist()")

    @property
    def data(self) -> Tensor:
        return make_sparse(self._sp_idx, self._sp_val, self.shape, self._sp_coal)

    @data.setter
    def data(self, value) -> None:
        if not (isinstance(value, Tensor) and value.is_sparse):
            raise RuntimeError("data set to a tensor that requires gradients must be a sparse tensor")
        self._sp_idx, self._sp_val, self._sp_coal = value._sp_idx, value._sp_val, value._sp_coal
        self._data, self._dtype = value._data, value._dtype

    def __deepcopy__(self, memo):
        new = make_sparse(self._sp_idx.clone(), self._sp_val.clone(), self.shape, self._sp_coal)
        new._rg = self._rg
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        # PyTorch's pickle of a sparse tensor (torch.save files load in either library)
        return (_rebuild_sparse_tensor, (_layout.sparse_coo, (self._sp_idx, self._sp_val, Size(self.shape),
                                                               self._sp_coal)))  # fmt: skip

    def __repr__(self, *, tensor_contents=None) -> str:
        return sparse_repr(self)

    __str__ = __repr__


def _rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor``: a sparse tensor from its pickled parts."""
    if layout is not _layout.sparse_coo:
        raise NotImplementedError(f"numtorch cannot load a tensor of layout {layout}")
    indices, values, size = data[:3]
    out = make_sparse(indices, values, size, bool(data[3]) if len(data) > 3 else False)
    if tuple(out.shape[: indices._data.shape[0]]) and indices._data.size:  # a file is untrusted input
        top = indices._data.max(axis=1)
        if indices._data.min() < 0 or any(int(m) >= n for m, n in zip(top, out.shape)):
            raise RuntimeError("sparse tensor in the file has an index out of its size")
    return out


class SparseShape(MetaArray):
    """A sparse tensor's ``_data``: shape and dtype without a buffer, so that code reading a
    tensor's elements through ``_data`` fails loudly on a sparse tensor instead of reading
    something that is not its values."""

    __slots__ = ()

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __getattr__(self, name):
        raise NotImplementedError(f"a sparse COO tensor has no dense storage ('{name}'): use to_dense() first, "
                                  "or an op with a SparseCPU kernel")  # fmt: skip


def make_sparse(indices: Tensor, values: Tensor, size, coalesced: bool) -> SparseCooTensor:
    """Wrap checked ``indices``/``values`` (no copy) as a sparse tensor of shape ``size``."""
    shape = tuple(int(n) for n in size)
    dt = values._dtype
    t = _make(SparseShape(shape, dt.np), dt, SparseCooTensor, values._device)
    t._sp_idx = indices
    t._sp_val = values
    t._sp_coal = bool(coalesced)
    return t


def layout_factory(name: str, size, dtype, layout, requires_grad: bool) -> Tensor:
    """``numtorch.zeros(..., layout=numtorch.sparse_coo)`` and kin: an empty sparse tensor for
    zeros/empty (as PyTorch), PyTorch's refusal for a fill, numtorch's for the other layouts."""
    if layout is not _layout.sparse_coo:
        raise NotImplementedError(f"{name}(layout={layout}): numtorch has only the strided and sparse_coo layouts")
    if name not in ("zeros", "empty", "zeros_like", "empty_like"):
        raise NotImplementedError(f"Could not run 'aten::fill_.Scalar' with arguments from the 'SparseCPU' backend. "
                                  f"{_NOT_HERE} 'aten::fill_.Scalar' is only available for these backends: [CPU, Meta].")  # fmt: skip
    dt = dtype or D.get_default_dtype()
    shape = tuple(int(n) for n in size)
    idx = _make(np.zeros((len(shape), 0), np.int64), D.int64)
    t = make_sparse(idx, _make(np.zeros((0,), dt.np), dt), shape, True)
    t._rg = bool(requires_grad)
    return t


def is_sparse(x) -> bool:
    return x.__class__ is SparseCooTensor


def sparse_repr(t: SparseCooTensor) -> str:
    # PyTorch's _str_intern for a sparse tensor: indices and values, then size/nnz/dtype/layout
    prefix, indent = "tensor(", 7
    dt = t._dtype
    default = dt is D.get_default_dtype() or dt is D.default_complex() or dt is D.int64 or dt is D.bool
    parts = []
    for name, part in (("indices", t._sp_idx), ("values", t._sp_val)):
        p = f"{name}=tensor("
        body = _tensor_str(part._host(), indent + len(p))
        if part._data.size == 0:
            body += ", size=" + str(tuple(part._data.shape))
        parts.append(p + body + ")")
    text = prefix + parts[0] + ",\n" + " " * indent + parts[1]
    suffixes = ["size=" + str(tuple(t.shape)), f"nnz={t._sp_val._data.shape[0]}"]
    if not default:
        suffixes.append(f"dtype={dt!r}")
    suffixes.append("layout=torch.sparse_coo")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    return _wrap_suffixes(text, suffixes, indent)


def _wrap_suffixes(text: str, suffixes: list, indent: int) -> str:
    # _tensor_str._add_suffixes with PyTorch's force_newline (set for sparse tensors)
    out, force = [text], True
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if force or last + len(s) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last, force = indent + len(s), False
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


__all__ = ["SparseCooTensor", "layout_factory", "make_sparse", "is_sparse", "register", "not_implemented"]
