"""More elementwise math (erfc, deg2rad, rad2deg, copysign, logaddexp2), declared with the
helpers of ``pointwise.py``, which is at its size cap."""

from __future__ import annotations

import math

from ._elementwise import Elementwise
from .pointwise import _T2, _add, _binary, _cmp, _div, _fl, _mul, _neg, _sub, _u, _where

# fmt: off
_fl("erfc", "math.erfc(self)",
    lambda grad, self: _mul(grad, _mul(_u("exp", _neg(_mul(self, self))), -2 / math.sqrt(math.pi))),
    allow="bif", kname="erfc_vml_cpu")


def _scaled_by(k):
    return lambda grad: _mul(grad, k)


for _n, _k in (("deg2rad", math.pi / 180), ("rad2deg", 180 / math.pi)):
    _fl(_n, f"self * {_k!r}", _scaled_by(_k), allow="bif",
        errors={"c": (RuntimeError, f"{_n} is not supported for complex tensors.")})


def _copysign_bw_self(grad, self, result):
    # PyTorch's copysign_tensor_self_backward: grad * result / self, zero where self == 0
    return _where(_cmp("eq", self, 0), 0.0, _mul(grad, _div(result, self)))


_binary("copysign", Elementwise("copysign", _T2, "np.copysign(self, other)", rule="float", allow="bif"),
        {"self": _copysign_bw_self, "other": lambda grad: _mul(grad, 0.0)})  # zero, kept on the graph for double backward


def _logaddexp2_bw(key):
    def bw(grad, self, other):
        a, b = (other, self) if key == "self" else (self, other)
        return _div(grad, _add(_u("exp2", _sub(a, b)), 1))

    return bw


_binary("logaddexp2", Elementwise("logaddexp2", _T2, "logaddexp(self * 0.6931471805599453, other * 0.6931471805599453) "
                                                      "* 1.4426950408889634", allow="f"),
        {"self": _logaddexp2_bw("self"), "other": _logaddexp2_bw("other")}, S=None, t="", ov={"T": {"inplace": False}},
        second_tensor=True, inplace=False)
# fmt: on
