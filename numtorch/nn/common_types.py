"""Type aliases used in ``numtorch.nn`` signatures (PyTorch's ``torch.nn.common_types``): an argument
that is one value or a tuple of them (kernel sizes, strides, ratios)."""

from typing import TypeAlias as _TypeAlias
from typing import TypeVar

from .._tensor import Tensor

T = TypeVar("T")
_scalar_or_tuple_any_t: _TypeAlias = T | tuple[T, ...]
_scalar_or_tuple_1_t: _TypeAlias = T | tuple[T]
_scalar_or_tuple_2_t: _TypeAlias = T | tuple[T, T]
_scalar_or_tuple_3_t: _TypeAlias = T | tuple[T, T, T]
_scalar_or_tuple_4_t: _TypeAlias = T | tuple[T, T, T, T]
_scalar_or_tuple_5_t: _TypeAlias = T | tuple[T, T, T, T, T]
_scalar_or_tuple_6_t: _TypeAlias = T | tuple[T, T, T, T, T, T]

_size_any_t: _TypeAlias = _scalar_or_tuple_any_t[int]
_size_1_t: _TypeAlias = _scalar_or_tuple_1_t[int]
_size_2_t: _TypeAlias = _scalar_or_tuple_2_t[int]
_size_3_t: _TypeAlias = _scalar_or_tuple_3_t[int]
_size_4_t: _TypeAlias = _scalar_or_tuple_4_t[int]
_size_5_t: _TypeAlias = _scalar_or_tuple_5_t[int]
_size_6_t: _TypeAlias = _scalar_or_tuple_6_t[int]

_size_any_opt_t: _TypeAlias = _scalar_or_tuple_any_t[int | None]
_size_2_opt_t: _TypeAlias = _scalar_or_tuple_2_t[int | None]
_size_3_opt_t: _TypeAlias = _scalar_or_tuple_3_t[int | None]

_ratio_2_t: _TypeAlias = _scalar_or_tuple_2_t[float]
_ratio_3_t: _TypeAlias = _scalar_or_tuple_3_t[float]
_ratio_any_t: _TypeAlias = _scalar_or_tuple_any_t[float]

_tensor_list_t: _TypeAlias = _scalar_or_tuple_any_t[Tensor]

_maybe_indices_t: _TypeAlias = _scalar_or_tuple_2_t[Tensor]
