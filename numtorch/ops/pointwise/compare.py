"""Composites over the elementwise ops: isclose, allclose, equal, result_type."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._tensor import Tensor
from ...kernels import lazy
from ._elementwise import not_tensor, number
from .._pointwise import _cname
from .._registry import OPS, defop, public, schema_sig
from ..reduction._entries import call
from .core import _ALL, _cmp, _doc, _f, _mul, _sub, _u


def _to_float(t):
    op = OPS.get("aten::_to_copy")
    if op is None:  # conversion area not loaded: an exact multiply casts as well
        return _mul(t, 1.0)
    return dispatch(op, [t, D.get_default_dtype(), None, None, None, False, None])


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    # at::isclose, op for op (so dispatch modes see PyTorch's decomposition)
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{_cname(self._dtype)} did not match {_cname(other._dtype)}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v:g}")
    ior, iand = _ALL["bitwise_or"]["T"]["inplace"], _ALL["bitwise_and"]["T"]["inplace"]
    close = _cmp("eq", self, other)
    if equal_nan and self._dtype.category >= D._FLOAT:
        both = dispatch(_f("bitwise_and"), [_u("isnan", self), _u("isnan", other)])
        close = dispatch(ior, [close, both])
    if rtol == 0 and atol == 0:
        return close
    if self._dtype.category < D._FLOAT:  # integers: other (and a bool self) go to the default float
        other = _to_float(other)
        self = _to_float(self) if self._dtype is D.bool else self
    allowed = dispatch(_f("add", "S"), [_u("abs", dispatch(_f("mul", "S"), [other, rtol])), atol, 1])
    actual = _u("abs", _sub(self, other))
    finite = dispatch(iand, [_u("isfinite", actual), _cmp("le", actual, allowed)])
    return dispatch(ior, [close, finite])


_ISCLOSE = defop("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
                 composite=_isclose)  # fmt: skip
_ALLCLOSE = defop("allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool",
                  cpu=lambda *v: bool(_isclose(*v)._data.all()))  # fmt: skip
_EQ_KERNEL = frozenset(np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64))
_EQ_KERNEL_MAX = 4096
_RK = lazy("numtorch.kernels.cpu.reduction.core")


def _equal_cpu(a, b):
    x, y = a._data, b._data
    if x.shape != y.shape:
        return False
    if (a._dtype is b._dtype and x.size <= _EQ_KERNEL_MAX and x.dtype in _EQ_KERNEL
            and x.flags.c_contiguous and y.flags.c_contiguous):  # fmt: skip
        # one dtype, flat views: the comparison in one kernel call through its compiled entry
        # (np.equal and its logical_and.reduce were 1.2 us of a 1.8 us small equal); its
        # early-exit loop does not vectorise, so large inputs keep NumPy's (131072 float32
        # equal ones: 59 us against 17)
        return call(_RK, "all_equal", (x.reshape(-1), y.reshape(-1)))
    if a._dtype is b._dtype and x.dtype.kind in "biufc":  # one dtype: NumPy's comparison, no result tensor
        return bool(np.logical_and.reduce(np.equal(x, y), axis=None))
    return bool(_ALL["eq"]["T"]["functional"].impls["cpu"](a, b)._data.all())


_EQUAL = defop("equal(Tensor self, Tensor other) -> bool", cpu=_equal_cpu)
for _op, _n in ((_ISCLOSE, "isclose"), (_ALLCLOSE, "allclose"), (_EQUAL, "equal")):
    _ALL[_n] = {"T": {"functional": _op}}
    _sig, _rel, _ = schema_sig(_op, method=False, out=False)
    _msig = schema_sig(_op, method=True, out=False)[0]

    def _fn(*v, _op=_op, _n=_n):
        if not isinstance(v[1], Tensor):
            raise not_tensor(_n, "other", 2, v[1])
        return dispatch(_op, list(v))

    # Note [Binding fast call]: with both operands plain Tensors _fn's check holds and it dispatches
    _names = [a.name for a in _op._schema.arguments]
    public(_n, _sig, _fn, relevant=_rel, doc=_doc(_n), ops=(_op,),
           fast=(_op, tuple("input" if a == "self" else a for a in _names)))  # fmt: skip
    public(_n, _msig, _fn, relevant=("self", "other"), module="Tensor", doc=_doc(_n), ops=(_op,),
           fast=(_op, tuple(_names)))  # fmt: skip


def _result_type(tensor1, tensor2):
    """The dtype PyTorch's promotion gives an op on these operands (Python numbers are weak).

    >>> numtorch.result_type(numtorch.tensor([1, 2]), 1.0)
    torch.float32
    """
    if tensor1.__class__ is Tensor and tensor2.__class__ is Tensor and tensor1._dtype is tensor2._dtype:
        return tensor1._dtype  # one dtype promotes to itself, whatever the dims
    dims, zeros, scalars = [], [], []
    for i, x in enumerate((tensor1, tensor2)):
        if isinstance(x, Tensor):
            (dims if x._data.ndim else zeros).append(x._dtype)
        else:
            scalars.append(number(x, _RT, i))
    return D.result_type_of(dims, zeros, scalars)


class _RT:  # names number()'s TypeError after result_type's parameters
    name, inputs = "result_type", ["tensor1", "tensor2"]


public("result_type", "tensor1, tensor2", _result_type, relevant=("tensor2", "tensor1"))
