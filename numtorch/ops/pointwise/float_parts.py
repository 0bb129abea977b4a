"""The parts of floating-point numbers: nextafter (the next representable value towards
another), frexp (mantissa and binary exponent) and the Tensor method of isreal."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import _make
from .._registry import OPS, defop, public
from ._elementwise import EXAMPLES, Elementwise
from .core import _T2, _binary, _div, _no_derivative

EXAMPLES["nextafter"] = ("numtorch.nextafter(numtorch.tensor([1.0], dtype=numtorch.float64), numtorch.tensor([2.0], "
                         "dtype=numtorch.float64)) - 1", "tensor([2.2204e-16], dtype=torch.float64)")  # fmt: skip

# the next float of the promoted dtype: float32 inputs step by float32's spacing
_binary("nextafter", Elementwise("nextafter", _T2, "np.nextafter(self, other)", allow="f"),
        {"self": _no_derivative("nextafter"), "other": _no_derivative("nextafter")}, S=None, t="", second_tensor=True)  # fmt: skip

_FREXP = return_types.register("frexp", ("mantissa", "exponent"))


def _frexp_cpu(self):
    if self._dtype.category != D._FLOAT:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(self._data)
    return _make(m.astype(self._dtype.np, copy=False), self._dtype), _make(e.astype(np.int32), D.int32)


def _frexp_bw(grad, result1):
    # mantissa = self * 2^-exponent (result1), the exponent held constant
    return _div(grad, dispatch(OPS["aten::pow.Scalar"], [2.0, result1.to(grad._dtype)]))


_FREXP_OP = defop("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)", cpu=_frexp_cpu,
                  backward={"self": _frexp_bw}, output_differentiability=(True, False))  # fmt: skip


def _frexp(input, out):
    """Mantissa in [0.5, 1) (signed) and int32 exponent with ``input == mantissa * 2**exponent``,
    as ``torch.frexp``.

    >>> numtorch.frexp(numtorch.tensor([8.0, -1.5]))
    torch.return_types.frexp(
    mantissa=tensor([ 0.5000, -0.7500]),
    exponent=tensor([4, 1], dtype=torch.int32))
    """
    m, e = dispatch(_FREXP_OP, [input])
    if out is not None:
        for o, r in zip(out, (m, e)):
            if tuple(o.shape) != tuple(r.shape):
                o.resize_(r.shape)
            o.copy_(r)
        m, e = out
    return _FREXP(m, e)


def _frexp_method(self):
    """``frexp(self)``.

    >>> numtorch.tensor([8.0]).frexp().exponent
    tensor([4], dtype=torch.int32)
    """
    return _FREXP(*dispatch(_FREXP_OP, [self]))


public("frexp", "input, *, out=None", _frexp, ops=(_FREXP_OP,))
public("frexp", "self", _frexp_method, relevant=("self",), module="Tensor", ops=(_FREXP_OP,))


def _isreal_method(self):
    """``isreal(self)``: True where the imaginary part is 0 (everywhere for real dtypes).

    >>> numtorch.tensor([1 + 0j, 1j]).isreal()
    tensor([ True, False])
    """
    return dispatch(OPS["aten::isreal"], [self])


public("isreal", "self", _isreal_method, relevant=("self",), module="Tensor", ops=(OPS["aten::isreal"],))
