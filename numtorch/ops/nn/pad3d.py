"""reflect / replicate padding of the last three dims: aten's reflection_pad3d and
replication_pad3d and their backward ops (Note [3-d padding as one gather])."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._pointwise import _cname
from .._registry import defop

K = lazy("numtorch.kernels.cpu.indexing")

# Note [3-d padding as one gather]
# F.pad's 3-d reflect/replicate modes were three index_selects (one a dim): three nodes, three
# gathers forward and three index_adds into zeros backward (~70 us fwd+bwd at tens of elements
# against PyTorch's 20; 2.2x PyTorch's at 131k). PyTorch runs one op, reflection_pad3d /
# replication_pad3d, whose node calls the *_backward op. So does numtorch now: the output's
# positions over the last three dims map to the input's through one flat index (the per-dim
# maps combined: reflect ``(s-1) - |(s-1) - |i||``, replicate a clip, i running from -lo to
# s+hi, so negative padding crops), kept per geometry. The forward is one np.take over the
# input's (N, D*H*W) rows, any dtype; the backward adds each gradient row into zeros by the same
# index in the output's C order (``add_rows_at``; np.add.at for dtypes without a kernel), as
# PyTorch's CPU kernel visits a contiguous gradient. A mode sees the aten ops forward and
# backward; a kernel registered over either is called (both are dispatched).
_ROWS_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))
_REFUSED = frozenset(np.dtype(t) for t in ("bool", "uint16", "uint32", "uint64"))
_NAMES = {"reflect": "reflection_pad3d", "replicate": "replication_pad3d"}


def _axis_map(size: int, lo: int, hi: int, mode: str) -> np.ndarray:
    i = np.arange(-lo, size + hi, dtype=np.int64)
    if mode == "reflect":
        return (size - 1) - np.abs((size - 1) - np.abs(i))
    return np.clip(i, 0, size - 1)


@functools.lru_cache(maxsize=256)
def _flat_index(dhw: tuple, pad: tuple, mode: str) -> np.ndarray:
    d, h, w = dhw
    iw, ih, idd = (_axis_map(s, pad[2 * k], pad[2 * k + 1], mode) for k, s in enumerate((w, h, d)))
    flat = ((idd[:, None, None] * h + ih[None, :, None]) * w + iw[None, None, :]).reshape(-1)
    flat.setflags(write=False)  # shared by every call of this geometry
    return flat


def _padding(padding) -> tuple:
    pad = tuple(int(p) for p in padding)
    if len(pad) != 6:
        raise RuntimeError(f"padding size is expected to be 6, but got: {len(pad)}")
    return pad


def _check_input(self: Tensor, pad: tuple, mode: str) -> None:
    shape = self._data.shape
    nd = len(shape)
    if nd not in (4, 5) or 0 in shape[nd - 4 :]:
        raise RuntimeError(
            "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
            f"input, but got: {list(shape)}"
        )
    for k in range(3):
        d, lo, hi = nd - 1 - k, pad[2 * k], pad[2 * k + 1]
        if mode == "reflect" and (lo >= shape[d] or hi >= shape[d]):
            raise RuntimeError(
                f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input dimension, but "
                f"got: padding ({lo}, {hi}) at dimension {d} of input {list(shape)}"
            )
    out = [shape[nd - 1 - k] + pad[2 * k] + pad[2 * k + 1] for k in range(3)]
    if min(out) < 0:
        sizes = list(shape[:-3]) + out[::-1]
        bad = next(s for s in sizes if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {sizes}")


def _refuse(t: Tensor, name: str) -> None:
    if t._data.dtype in _REFUSED:  # PyTorch's kernels dispatch all types but these
        raise NotImplementedError(f"\"{name}\" not implemented for '{_cname(t._dtype)}'")


def _pad3d_cpu(mode: str):
    name = _NAMES[mode]

    def impl(self, padding):
        pad = _padding(padding)
        _check_input(self, pad, mode)
        _refuse(self, name)
        a = self._data
        flat = _flat_index(a.shape[-3:], pad, mode)
        rows = a.reshape(math.prod(a.shape[:-3]), math.prod(a.shape[-3:]))  # -1 fails when empty
        out_dhw = tuple(a.shape[-1 - k] + pad[2 * k] + pad[2 * k + 1] for k in (2, 1, 0))
        out = np.take(rows, flat, axis=1) if flat.size else np.empty((rows.shape[0], 0), a.dtype)
        return _make(out.reshape(a.shape[:-3] + out_dhw), self._dtype)

    return impl


def _check_grad(grad: Tensor, self: Tensor, pad: tuple, mode: str) -> tuple:
    g, a = grad._data, self._data
    if g.dtype != a.dtype:
        raise RuntimeError(
            f"expected scalar type {_cname(self._dtype)} but found {_cname(grad._dtype)}"
        )
    out = [a.shape[-1 - k] + pad[2 * k] + pad[2 * k + 1] for k in (2, 1, 0)]
    gname = "grad_output" if mode == "reflect" else "gradOutput"
    if g.ndim != a.ndim or g.shape[:-3] != a.shape[:-3]:
        raise RuntimeError(
            f"{gname} channel unexpected. Expected: {a.shape[-4]}, Got: {g.shape[-4] if g.ndim >= 4 else g.ndim}"
        )
    for what, k in (("width", 2), ("height", 1), ("depth", 0)):
        if g.shape[-3 + k] != out[k]:
            raise RuntimeError(
                f"{gname} {what} unexpected. Expected: {out[k]}, Got: {g.shape[-3 + k]}"
            )
    return tuple(out)


def _pad3d_backward_cpu(mode: str):
    name = _NAMES[mode] + "_backward"

    def impl(grad_output, self, padding):
        pad = _padding(padding)
        _refuse(self, name)
        _check_grad(grad_output, self, pad, mode)
        a = self._data
        n, size = math.prod(a.shape[:-3]), math.prod(a.shape[-3:])
        out = np.zeros(a.shape, grad_output._data.dtype)
        flat = _flat_index(a.shape[-3:], pad, mode)
        if out.size and flat.size:
            g = np.ascontiguousarray(grad_output._data).reshape(n, flat.size)
            if out.dtype in _ROWS_DTYPES:
                K.add_rows_at(out.reshape(-1), g.reshape(-1), flat, n, size)
            else:  # float16, bfloat16, small ints, complex: NumPy's unbuffered add, same order;
                # an overflow is inf, as PyTorch's, without NumPy's warning
                with np.errstate(all="ignore"):
                    np.add.at(out.reshape(n, size), (slice(None), flat), g)
        return _make(out, grad_output._dtype)

    return impl


def _declare(mode: str):
    fwd = bwd = None
    name = _NAMES[mode]
    fwd = defop(f"{name}(Tensor self, SymInt[6] padding) -> Tensor", cpu=_pad3d_cpu(mode),
                backward={"self": lambda grad, self, padding: dispatch(bwd, [grad, self, padding])})  # fmt: skip
    bwd = defop(f"{name}_backward(Tensor grad_output, Tensor self, SymInt[6] padding) -> Tensor",
                cpu=_pad3d_backward_cpu(mode),
                backward={"grad_output": lambda grad, padding: dispatch(fwd, [grad, padding]),
                          "self": lambda grad, self: self.new_zeros(self.shape)})  # fmt: skip
    return fwd


PAD3D_OPS = {mode: _declare(mode) for mode in _NAMES}
