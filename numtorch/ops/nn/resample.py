"""Resampling ops on the last two dims: nearest / bilinear upsampling, reflect / replicate /
constant / circular padding (``aten::pad``) and pixel (un)shuffle. Upsampling and reflect /
replicate padding run the ``resample2d`` kernel with per-op taps (Note [Resampling taps])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._pointwise import _cname
from .._registry import defop
from .conv import compute_dtype, contig
from .pad3d import PAD3D_OPS

K = lazy("numtorch.kernels.cpu.nn.pooling")


# ---- taps ----------------------------------------------------------------------------------------
def _one_tap(idx: np.ndarray, npdt):
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    return idx, idx, np.ones(idx.size, npdt), np.zeros(idx.size, npdt)


def _nearest_taps(n_in: int, n_out: int, scale, npdt):
    if n_out == n_in:
        idx = np.arange(n_out)
    elif n_out == 2 * n_in:
        idx = np.arange(n_out) >> 1
    else:
        s = (
            np.float32(1.0 / scale)
            if scale is not None and scale > 0
            else np.float32(n_in) / np.float32(n_out)
        )
        idx = np.minimum(
            np.floor(np.arange(n_out, dtype=np.float32) * s).astype(np.int64), n_in - 1
        )
    return _one_tap(idx, npdt)


def _linear_taps(n_in: int, n_out: int, align_corners: bool, scale, npdt):
    if align_corners:
        s = npdt((n_in - 1) / (n_out - 1)) if n_out > 1 else npdt(0)
    else:
        s = npdt(1.0 / scale) if scale is not None and scale > 0 else npdt(n_in) / npdt(n_out)
    dst = np.arange(n_out, dtype=npdt)
    src = s * dst if align_corners else np.maximum(s * (dst + npdt(0.5)) - npdt(0.5), npdt(0))
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < n_in - 1)
    l1 = (src - i0).astype(npdt)
    return i0, i1, (npdt(1) - l1).astype(npdt), l1


def _pad_taps(n_in: int, left: int, right: int, mode: str, npdt):
    i = np.arange(n_in + left + right) - left
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= n_in, 2 * (n_in - 1) - i, i)
    else:
        i = np.clip(i, 0, n_in - 1)
    return _one_tap(i, npdt)


def _resample(x: Tensor, taps, OH: int, OW: int, dt) -> Tensor:
    H, W = x._data.shape[-2:]
    out = np.empty(x._data.shape[:-2] + (OH, OW), dt.np)
    if out.size:
        a = contig(x, dt)
        fn = K.resample2d_parallel if out.size >= PARALLEL_THRESHOLD else K.resample2d
        fn(a.reshape(-1), out.reshape(-1), H, W, OH, OW, *taps[0], *taps[1])
    return _make(out.astype(x._dtype.np, copy=False), x._dtype)


def _resample_backward(grad: Tensor, in_shape, taps, dt, like_dtype) -> Tensor:
    H, W = in_shape[-2:]
    OH, OW = grad._data.shape[-2:]
    gi = np.zeros(tuple(in_shape), dt.np)
    if gi.size and OH * OW:
        K.resample2d_backward(
            contig(grad, dt).reshape(-1), gi.reshape(-1), H, W, OH, OW, *taps[0], *taps[1]
        )
    return _make(gi.astype(like_dtype.np, copy=False), like_dtype)


# ---- upsampling ------------------------------------------------------------------------------------
def _up_taps(mode, in_hw, out_hw, align_corners, scales_h, scales_w, npdt):
    if mode == "nearest":
        return (
            _nearest_taps(in_hw[0], out_hw[0], scales_h, npdt),
            _nearest_taps(in_hw[1], out_hw[1], scales_w, npdt),
        )
    return (_linear_taps(in_hw[0], out_hw[0], align_corners, scales_h, npdt),
            _linear_taps(in_hw[1], out_hw[1], align_corners, scales_w, npdt))  # fmt: skip


def _check_up(x: Tensor, output_size, name):
    osz = [int(v) for v in output_size]
    if len(osz) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(osz)}")
    if x.dim() != 4:
        raise RuntimeError(
            f"Non-empty 4D data tensor expected but got a tensor with sizes {list(x._data.shape)}"
        )
    if any(s <= 0 for s in x._data.shape[2:]) or any(s <= 0 for s in osz):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input (H: {x._data.shape[2]}, W: "
            f"{x._data.shape[3]}) output (H: {osz[0]}, W: {osz[1]})"
        )
    return osz


def _refuse_int(x: Tensor, kernel: str, uint8_ok: bool) -> None:
    # ATen's upsampling kernels dispatch on floating types (and uint8 for nearest and 2-D bilinear)
    if x._dtype.category in (D._BOOL, D._INT) and not (uint8_ok and x._dtype is D.uint8):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_cname(x._dtype)}'")


def _up_cpu(mode):
    def impl(self, output_size, *rest):
        align, sh, sw = (False, *rest) if mode == "nearest" else rest
        osz = _check_up(self, output_size, mode)
        _refuse_int(self, f"upsample_{mode}2d_channels_last", True)  # ATen's name for every int layout
        dt = compute_dtype(self, f"upsample_{mode}2d")
        taps = _up_taps(mode, self._data.shape[2:], osz, align, sh, sw, dt.np.type)
        return _resample(self, taps, osz[0], osz[1], dt)

    return impl


def _up_backward_cpu(mode):
    def impl(grad_output, output_size, input_size, *rest):
        align, sh, sw = (False, *rest) if mode == "nearest" else rest
        dt = compute_dtype(grad_output, f"upsample_{mode}2d_backward")
        taps = _up_taps(mode, input_size[2:], output_size, align, sh, sw, dt.np.type)
        return _resample_backward(grad_output, input_size, taps, dt, grad_output._dtype)

    return impl


_S2 = "float? scales_h=None, float? scales_w=None"
upsample_nearest2d = defop(
    f"upsample_nearest2d(Tensor self, SymInt[2] output_size, {_S2}) -> Tensor",
    cpu=_up_cpu("nearest"),
    backward={"self": lambda grad, self, output_size, scales_h, scales_w: dispatch(
        upsample_nearest2d_backward, [grad, output_size, list(self.shape), scales_h, scales_w])},
)  # fmt: skip
upsample_nearest2d_backward = defop(
    f"upsample_nearest2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, {_S2}) -> Tensor",
    cpu=_up_backward_cpu("nearest"),
    backward={"grad_output": lambda grad, output_size, scales_h, scales_w: dispatch(
        upsample_nearest2d, [grad, output_size, scales_h, scales_w])},
)  # fmt: skip
upsample_bilinear2d = defop(
    f"upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, {_S2}) -> Tensor",
    cpu=_up_cpu("bilinear"),
    backward={"self": lambda grad, self, output_size, align_corners, scales_h, scales_w: dispatch(
        upsample_bilinear2d_backward, [grad, output_size, list(self.shape), align_corners, scales_h, scales_w])},
)  # fmt: skip
upsample_bilinear2d_backward = defop(
    "upsample_bilinear2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, "
    f"bool align_corners, {_S2}) -> Tensor",
    cpu=_up_backward_cpu("bilinear"),
    backward={"grad_output": lambda grad, output_size, align_corners, scales_h, scales_w: dispatch(
        upsample_bilinear2d, [grad, output_size, align_corners, scales_h, scales_w])},
)  # fmt: skip
def _check_up1d(x: Tensor, output_size, mode: str) -> None:
    # ATen's upsample_1d_common_check, then the kernel's dtype dispatch (compute_indices_weights_*)
    if len(output_size) != 1:
        raise RuntimeError(f"It is expected output_size equals to 1, but got size {len(output_size)}")
    if x.dim() != 3:
        raise RuntimeError(f"It is expected input_size equals to 3, but got size {x.dim()}")
    w, ow = x._data.shape[2], int(output_size[0])
    if w <= 0 or ow <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (W: {w}) and output (W: {ow})")
    _refuse_int(x, f"compute_indices_weights_{mode}", mode == "nearest")


def _up_nearest1d(self, output_size, scales):
    _check_up1d(self, output_size, "nearest")
    return dispatch(upsample_nearest2d, [self.unsqueeze(-2), [1, *output_size], None, scales]).squeeze(-2)


def _up_linear1d(self, output_size, align_corners, scales):
    _check_up1d(self, output_size, "linear")
    return dispatch(upsample_bilinear2d, [self.unsqueeze(-2), [1, *output_size], align_corners, None, scales]).squeeze(-2)


upsample_nearest1d = defop("upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
                           composite=_up_nearest1d)  # fmt: skip
upsample_linear1d = defop(
    "upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, float? scales=None) -> Tensor",
    composite=_up_linear1d,
)


# ---- padding ---------------------------------------------------------------------------------------
def _pad_geometry(self: Tensor, padding, mode: str, n: int):
    pad = [int(p) for p in padding]
    shape = self._data.shape
    nd = self.dim()
    # an empty batch is allowed, an empty channel or spatial dimension is not (check_valid_input)
    if nd not in (n + 1, n + 2) or 0 in shape[nd - n - 1 :]:
        raise RuntimeError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(shape)}"
        )
    dims = [nd - 1] if n == 1 else [nd - 1, nd - 2]
    for k, d in enumerate(dims):
        lo, hi = pad[2 * k], pad[2 * k + 1]
        if mode == "reflect" and (lo >= shape[d] or hi >= shape[d]):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({lo}, {hi}) at dimension {d} of input {list(shape)}"
            )
        if shape[d] + lo + hi < 1:
            raise RuntimeError(
                f"input (W: {shape[d]}) is too small. Calculated output W: {shape[d] + lo + hi}"
            )
    return pad


def _pad_taps2(self_shape, pad, mode, n, npdt):
    W = self_shape[-1]
    tw = _pad_taps(W, pad[0], pad[1], mode, npdt)
    if n == 1:
        return _one_tap(np.zeros(1, np.int64), npdt), tw
    return _pad_taps(self_shape[-2], pad[2], pad[3], mode, npdt), tw


def _as_planes(x: Tensor, n: int) -> Tensor:
    return x.unsqueeze(-2) if n == 1 else x


def _pad_cpu(mode, n):
    def impl(self, padding):
        pad = _pad_geometry(self, padding, mode, n)
        dt = compute_dtype(self, f"{mode}_pad{n}d")
        taps = _pad_taps2(self._data.shape, pad, mode, n, dt.np)
        OW = self._data.shape[-1] + pad[0] + pad[1]
        OH = 1 if n == 1 else self._data.shape[-2] + pad[2] + pad[3]
        x = (
            _make(self._data.reshape(self._data.shape[:-1] + (1, self._data.shape[-1])), self._dtype)
            if n == 1
            else self
        )
        out = _resample(x, taps, OH, OW, dt)
        return _make(out._data.reshape(out._data.shape[:-2] + (OW,)), out._dtype) if n == 1 else out

    return impl


def _pad_backward_cpu(mode, n):
    def impl(grad_output, self, padding):
        pad = [int(p) for p in padding]
        dt = compute_dtype(self, f"{mode}_pad{n}d_backward")
        taps = _pad_taps2(self._data.shape, pad, mode, n, dt.np)
        g = grad_output
        shape = self._data.shape
        if n == 1:
            g = _make(g._data.reshape(g._data.shape[:-1] + (1, g._data.shape[-1])), g._dtype)  # -1 fails when empty
            shape = shape[:-1] + (1, shape[-1])
        gi = _resample_backward(g, shape, taps, dt, self._dtype)
        return _make(gi._data.reshape(self._data.shape), self._dtype)

    return impl


def _declare_pad(mode: str, aten: str, n: int):
    fwd = bwd = None

    def fwd_call(*v):
        return dispatch(fwd, list(v))

    def bwd_call(*v):
        return dispatch(bwd, list(v))

    fwd = defop(f"{aten}{n}d(Tensor self, SymInt[{2 * n}] padding) -> Tensor", cpu=_pad_cpu(mode, n),
                backward={"self": lambda grad, self, padding: bwd_call(grad, self, padding)})  # fmt: skip
    bwd = defop(f"{aten}{n}d_backward(Tensor grad_output, Tensor self, SymInt[{2 * n}] padding) -> Tensor",
                cpu=_pad_backward_cpu(mode, n),
                backward={"grad_output": lambda grad, padding: fwd_call(grad, padding),
                          "self": lambda grad, self: self.new_zeros(self.shape)})  # fmt: skip
    return fwd


_PAD_OPS = {(m, n): _declare_pad(m, a, n) for m, a in (("reflect", "reflection_pad"), ("replicate", "replication_pad"))
            for n in (1, 2)}  # fmt: skip


def _constant_pad_cpu(self, pad, value):
    pad = [int(p) for p in pad]
    shape = list(self._data.shape)
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > len(shape):
        raise RuntimeError(
            f"Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
            f"{len(pad)} while the input has {len(shape)} dimensions."
        )
    new, src, dst = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        new[d] = shape[d] + lo + hi
        if new[d] < 0:
            raise RuntimeError(
                f"The input size {shape[d]}, plus negative padding {lo} and {hi} resulted in a negative output "
                f"size, which is invalid. Check dimension {d} of your input."
            )
        src[d] = slice(max(-lo, 0), shape[d] - max(-hi, 0))
        dst[d] = slice(max(lo, 0), max(lo, 0) + max(src[d].stop - src[d].start, 0))
    out = np.full(new, value, self._dtype.np)
    if all(s.stop is None or s.stop > s.start for s in src):
        out[tuple(dst)] = self._data[tuple(src)]
    return _make(out, self._dtype)


constant_pad_nd = defop(
    "constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
    cpu=_constant_pad_cpu,
    backward={"self": lambda grad, pad: dispatch(constant_pad_nd, [grad, [-p for p in pad], 0])},
)


def _pad_circular(self, pad):
    x = self
    for k in range(len(pad) // 2):
        d = self.dim() - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        size = x.shape[d]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        parts = []
        if lo > 0:
            parts.append(x.narrow(d, size - lo, lo))
        parts.append(x.narrow(d, max(-lo, 0), size - max(-lo, 0) - max(-hi, 0)))
        if hi > 0:
            parts.append(x.narrow(d, 0, hi))
        x = _ops.aten.cat.default(parts, d) if len(parts) > 1 else parts[0]
    return x


_pad_circular_op = defop(
    "_pad_circular(Tensor self, SymInt[] pad) -> Tensor", composite=_pad_circular
)
_NONCONST = (
    "Supported combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last "
    "dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding "
    "size = 6 (pads last 3 dimensions)"
)


def _pad(self, pad, mode, value):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > self.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {self.dim()}"
        )
    if mode == "constant":
        return dispatch(constant_pad_nd, [self, pad, 0 if value is None else value])
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    n = len(pad) // 2
    if not (self.dim() in (n + 1, n + 2) and 1 <= n <= 3):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {self.dim()}D input tensor.\n{_NONCONST}"
        )
    if mode == "circular":
        return dispatch(_pad_circular_op, [self, pad])
    if n == 3:  # Note [3-d padding as one gather]
        return dispatch(PAD3D_OPS[mode], [self, pad])
    return dispatch(_PAD_OPS[(mode, n)], [self, pad])


pad = defop(
    'pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor',
    composite=_pad,
)


# ---- pixel shuffle -------------------------------------------------------------------------------------
def _shuffle_cpu(unshuffle: bool):
    def impl(self, factor):
        r = int(factor)
        shape = self._data.shape
        if self.dim() < 3:
            raise RuntimeError(
                f"pixel_{'un' if unshuffle else ''}shuffle expects input to have at least 3 dimensions, but got "
                f"input with {self.dim()} dimension(s)"
            )
        if r <= 0:
            what = "downscale_factor" if unshuffle else "upscale_factor"
            raise RuntimeError(
                f"pixel_{'un' if unshuffle else ''}shuffle expects a positive {what}, but got {r}"
            )
        *b, c, h, w = shape
        if unshuffle:
            if h % r or w % r:
                bad, which, v = ("height", -2, h) if h % r else ("width", -1, w)
                raise RuntimeError(
                    f"pixel_unshuffle expects {bad} to be divisible by downscale_factor, but input.size({which})={v} "
                    f"is not divisible by {r}"
                )
            a = self._data.reshape(*b, c, h // r, r, w // r, r)
            nb = len(b)
            a = a.transpose(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
            out = a.reshape(*b, c * r * r, h // r, w // r)
        else:
            if c % (r * r):
                raise RuntimeError(
                    "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                    f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
                )
            a = self._data.reshape(*b, c // (r * r), r, r, h, w)
            nb = len(b)
            a = a.transpose(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
            out = a.reshape(*b, c // (r * r), h * r, w * r)
        return _make(np.ascontiguousarray(out), self._dtype)

    return impl


pixel_shuffle = defop(
    "pixel_shuffle(Tensor self, int upscale_factor) -> Tensor",
    cpu=_shuffle_cpu(False),
    backward={
        "self": lambda grad, upscale_factor: dispatch(pixel_unshuffle, [grad, upscale_factor])
    },
)
pixel_unshuffle = defop(
    "pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor",
    cpu=_shuffle_cpu(True),
    backward={
        "self": lambda grad, downscale_factor: dispatch(pixel_shuffle, [grad, downscale_factor])
    },
)
