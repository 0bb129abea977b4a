"""Fused CUDA softmax/log_softmax, layer_norm and nll_loss (forward and backward), on the row
kernels of numtorch/kernels/cuda/nn.py.

# Note [Fused CUDA nn kernels]
# Composed from CUDA ops (Note [Composed CUDA kernels]) these ops launched 5 (softmax) to 20
# (cross_entropy) kernels, and each launch costs tens of microseconds of host time: most of a
# small model's step. For float32/float64 operands reduced along contiguous last dims each is
# one or two launches here, with PyTorch's formulas (max-shifted softmax, biased variance,
# weighted-mean nll with its total weight) and float64 accumulators. Anything else (another
# dtype, softmax over an inner dim, empty rows) keeps the composed version, which the meta
# kernels and the CPU kernels' tests define; the fused kernels are tested against it.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _composed as C
from . import _devcheck as E
from . import _pointwise as P
from . import _storage as S
from ._launch import launch, run

K_NN = lazy("numtorch.kernels.cuda.nn")
_FLOATS = (D.float32, D.float64)


def _rows(kernel, rows: int, *args) -> None:
    from ..kernels.cuda import RED_BLOCKS, RED_THREADS

    run(kernel, max(min(rows, RED_BLOCKS), 1), RED_THREADS, (rows, *args))


def _flat(t: Tensor, dt):
    """``t``'s elements as a 1-D device array of ``dt``, contiguous (copied when not)."""
    return S.window(P.cast(t._data, dt.np))


def _new(shape, dt, like: Tensor) -> tuple:
    out = S.empty(shape, dt.np)
    return _make(out, dt, Tensor, like._device), out.root


def _last(self: Tensor, dim: int):
    nd = self._data.ndim
    return nd and self._dtype in _FLOATS and dim % nd == nd - 1 and self._data.size and self._data.shape[-1]


# ---- softmax / log_softmax -----------------------------------------------------------------------
def _softmax_impl(log: bool):
    composed = C._log_softmax if log else C._softmax

    def impl(self, dim, half_to_float=False):
        C._check(self)
        if not _last(self, dim):
            return composed(self, dim, half_to_float)
        n = self._data.shape[-1]
        out, o = _new(self._data.shape, self._dtype, self)
        _rows(K_NN.softmax_rows, self._data.size // n, n, _flat(self, self._dtype), o, log)
        return out

    return impl


def _softmax_backward_impl(log: bool):
    composed = C._log_softmax_backward_data if log else C._softmax_backward_data

    def impl(grad_output, output, dim, input_dtype):
        C._check(grad_output, output)
        if not _last(output, dim) or grad_output._dtype is not output._dtype or grad_output.shape != output.shape:
            return composed(grad_output, output, dim, input_dtype)
        dt = output._dtype
        n = output._data.shape[-1]
        gi, o = _new(output._data.shape, dt, output)
        _rows(K_NN.softmax_backward_rows, output._data.size // n, n, _flat(grad_output, dt), _flat(output, dt), o, log)
        return gi

    return impl


# ---- layer_norm ----------------------------------------------------------------------------------
def _same_dtype(dt, *ts) -> bool:
    return all(t is None or (t._dtype is dt and t._device.type == "cuda") for t in ts)


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002 - aten's names
    from . import _nn

    C._check(input, weight, bias)
    res = _nn._meta("aten::native_layer_norm", [input, normalized_shape, weight, bias, eps])
    dt = input._dtype
    n = int(np.prod(normalized_shape, dtype=np.int64))
    if dt not in _FLOATS or not n or not input._data.size or res[1]._dtype is not dt or not _same_dtype(dt, weight, bias):
        return _nn.native_layer_norm(input, normalized_shape, weight, bias, eps)
    rows = input._data.size // n
    x = _flat(input, dt)
    y, yo = _new(input._data.shape, dt, input)
    mean, mo = _new(res[1]._data.shape, dt, input)
    rstd, ro = _new(res[2]._data.shape, dt, input)
    w = x if weight is None else _flat(weight, dt)  # an unread stand-in when absent
    b = x if bias is None else _flat(bias, dt)
    _rows(K_NN.layer_norm_rows, rows, n, x, w, b, weight is not None, bias is not None, float(eps), yo, mo, ro)
    return y, mean, rstd


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):  # noqa: A002
    from . import _nn

    C._check(grad_out, input, mean, rstd, weight, bias)
    dt = input._dtype
    n = int(np.prod(normalized_shape, dtype=np.int64))
    if dt not in _FLOATS or not n or not input._data.size or not _same_dtype(dt, grad_out, mean, rstd, weight, bias):
        return _nn.native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    rows = input._data.size // n
    g, x, mu, rs = _flat(grad_out, dt), _flat(input, dt), _flat(mean, dt), _flat(rstd, dt)
    gi = gw = gb = None
    if output_mask[0]:
        gi, o = _new(input._data.shape, dt, input)
        w = x if weight is None else _flat(weight, dt)
        _rows(K_NN.layer_norm_backward_rows, rows, n, g, x, mu, rs, w, weight is not None, o)
    want_w, want_b = bool(output_mask[1] and weight is not None), bool(output_mask[2] and bias is not None)
    if want_w or want_b:
        gw, wo = _new(weight._data.shape, dt, input) if want_w else (None, x)
        gb, bo = _new(bias._data.shape, dt, input) if want_b else (None, x)
        launch(K_NN.layer_norm_backward_cols, n, rows, g, x, mu, rs, wo, bo, want_w, want_b)
    return gi, gw, gb


# ---- nll_loss ------------------------------------------------------------------------------------
def _nll_operands(self, target, weight):
    """(rows, classes, flat input, flat int64 target, weight or a stand-in), or None (composed)."""
    dt = self._dtype
    if dt not in _FLOATS or self._data.ndim not in (1, 2) or not _same_dtype(dt, weight):
        return None
    c = self._data.shape[-1]
    rows = self._data.size // c if c else 0
    if not c:
        return None
    x = _flat(self, dt)
    t = S.window(P.cast(target._data, np.dtype(np.int64)))
    return rows, c, x, t, (x if weight is None else _flat(weight, dt))


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    from . import _indexing, _nn

    C._check(self, target, weight)
    res = _nn._meta("aten::nll_loss_forward", [self, target, weight, reduction, ignore_index])
    ops = _nll_operands(self, target, weight)
    if ops is None:
        return _nn.nll_loss_forward(self, target, weight, reduction, ignore_index)
    rows, c, x, t, w = ops
    if E.synchronous():
        _indexing.checked(_ignored_to_zero(target, ignore_index), c, E.TARGET, 0)
    dt = self._dtype
    out, o = _new(res[0]._data.shape, dt, self)
    tw, two = _new((), dt, self)
    from ..kernels.cuda import RED_THREADS

    # one block: a row is one element read, the threads loop over the rows
    run(K_NN.nll_forward, 1, RED_THREADS, (rows, c, x, t, w, weight is not None, int(ignore_index), int(reduction),
                                           o, two, E.flag(), E.TARGET))  # fmt: skip
    return out, tw


def _ignored_to_zero(target: Tensor, ignore_index: int) -> Tensor:
    return target.masked_fill(target == ignore_index, 0)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    from . import _nn

    C._check(grad_output, self, target, weight, total_weight)
    ops = _nll_operands(self, target, weight)
    dt = self._dtype
    if ops is None or not _same_dtype(dt, grad_output, total_weight):
        return _nn.nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)
    rows, c, x, t, w = ops
    gi, o = _new(self._data.shape, dt, self)
    launch(K_NN.nll_backward, rows * c, c, _flat(grad_output, dt), t, w, weight is not None, int(ignore_index),
           int(reduction), _flat(total_weight, dt), o)  # fmt: skip
    return gi


IMPLS = {
    "aten::_softmax": _softmax_impl(False),
    "aten::_log_softmax": _softmax_impl(True),
    "aten::_softmax_backward_data": _softmax_backward_impl(False),
    "aten::_log_softmax_backward_data": _softmax_backward_impl(True),
}
NN = {
    "aten::native_layer_norm": native_layer_norm,
    "aten::native_layer_norm_backward": native_layer_norm_backward,
    "aten::nll_loss_forward": nll_loss_forward,
    "aten::nll_loss_backward": nll_loss_backward,
}
