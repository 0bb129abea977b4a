"""Composite products for numtorch/ops/linalg/core.py: inner and linalg.multi_dot, as PyTorch
decomposes them (tensordot / a chain of matmuls), with PyTorch's checks."""

from __future__ import annotations

from ..._dispatch import dispatch
from .._registry import OPS, defop, public
from . import _fast_contract as _fc
from .core import _TENSORDOT, _tensordot_eq

# c10's TypeMeta names, which multi_dot's dtype message prints
_META = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
         "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
         "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}  # fmt: skip


def _last_dims(self, other):
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(self.shape)} and {list(other.shape)}"
        )


def _inner(self, other):
    if self.ndim == 0 or other.ndim == 0:
        return self * other
    _last_dims(self, other)
    return dispatch(_TENSORDOT[0], [self, other, [-1], [-1]])


def _inner_out(self, other, out):
    # at::inner_out: mul_out for a 0-d operand, else tensordot_out, whose dtype check refuses
    # promotion into out (a float32 product into a float64 out)
    if self.ndim == 0 or other.ndim == 0:
        return dispatch(OPS["aten::mul.out"], [self, other, out])
    _last_dims(self, other)
    return dispatch(_TENSORDOT[1], [self, other, [-1], [-1], out])


inner = defop("inner(Tensor self, Tensor other) -> Tensor", composite=_inner)
inner_out = defop("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", composite=_inner_out)


def _inner_body(input, other, out):
    """Dot products over the last dimension of ``input`` and ``other`` (a product for a 0-d operand).

    >>> numtorch.inner(numtorch.tensor([1.0, 2.0]), numtorch.tensor([[3.0, 4.0], [5.0, 6.0]]))
    tensor([11., 17.])
    """
    return dispatch(inner, [input, other]) if out is None else dispatch(inner_out, [input, other, out])


public("inner", "input, other, *, out=None", _inner_body, relevant=("input", "other"), ops=(inner, inner_out),
       fast=(_fc.inner_fast(_inner_body, _tensordot_eq), ("input", "other"), "out is None"))  # fmt: skip
public("inner", "self, other", lambda self, other: dispatch(inner, [self, other]), relevant=("self", "other"),
       module="Tensor", doc=_inner_body.__doc__, ops=(inner,))  # fmt: skip


def _multi_dot(tensors):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    for i in range(1, n):
        if tensors[i]._dtype is not first._dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_META.get(first._dtype.name, first._dtype.name)} and tensor {i} "
                f"{_META.get(tensors[i]._dtype.name, tensors[i]._dtype.name)}"
            )
    mats = [t.unsqueeze(0) if i == 0 and t.ndim == 1 else t for i, t in enumerate(tensors)]
    mats[-1] = mats[-1].unsqueeze(-1) if last.ndim == 1 else mats[-1]
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                f"{list(mats[i + 1].shape)} cannot be multiplied"
            )
    r = mats[0]
    for m in mats[1:]:
        r = r.mm(m)
    if first.ndim == 1:
        r = r.squeeze(0)
    return r.squeeze(-1) if last.ndim == 1 else r


multi_dot = defop("linalg_multi_dot(Tensor[] tensors) -> Tensor", composite=_multi_dot)


def _multi_dot_body(tensors, out):
    """The product of a chain of matrices (the first / last may be vectors), ``A @ B @ ...``.

    >>> numtorch.linalg.multi_dot([numtorch.tensor([1.0, 2.0]), numtorch.eye(2), numtorch.tensor([3.0, 4.0])])
    tensor(11.)
    """
    r = dispatch(multi_dot, [list(tensors)])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("multi_dot", "tensors, *, out=None", _multi_dot_body, relevant=(), module="torch.linalg", ops=(multi_dot,),
       lists=("tensors",))  # fmt: skip
