"""Elementwise math: one declaration per op (scalar expression + derivative)."""

from __future__ import annotations

from ._pointwise import Pointwise, defpointwise

_T2 = ["self", "other"]

defpointwise(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    Pointwise("add", _T2, "self + alpha * other", ["alpha"]),
    backward={"self": lambda grad: grad, "other": lambda grad, alpha: grad * alpha},
    dunders=("__add__", "__radd__", "__iadd__"),
)
defpointwise(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    Pointwise("sub", _T2, "self - alpha * other", ["alpha"], allow="nobool"),
    backward={"self": lambda grad: grad, "other": lambda grad, alpha: grad * -alpha},
)
defpointwise(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    Pointwise("mul", _T2, "self * other"),
    backward={"self": lambda grad, other: grad * other, "other": lambda grad, self: grad * self},
    dunders=("__mul__", "__rmul__", "__imul__"),
)
defpointwise(
    "exp(Tensor self) -> Tensor",
    Pointwise("exp", ["self"], "math.exp(self)", rule="float"),
    backward={"self": lambda grad, result: grad * result},
)
