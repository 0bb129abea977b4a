"""CUDA implementations of where, masked_fill, gelu, tril/triu, layer_norm and nll_loss (and
their backward ops).

where, masked_fill and gelu run the kernels generated from their CPU ops' own ``Pointwise``
declarations (Note [One declaration, two targets]); the rest are composed from CUDA ops as in
numtorch/cuda/_composed.py (Note [Composed CUDA kernels]): every step runs on the device, and
the op's meta kernel runs first for PyTorch's argument errors and result dtypes.
"""

from __future__ import annotations

import numtorch

from .. import _dtype as D
from .._tensor import Tensor
from . import _pointwise as P
from ._composed import _check

_MO: list = []  # (OPS, meta_of), set by install


def _meta(name, vals):
    ops, meta_of = _MO[0]
    return meta_of(ops[name], vals)


def _decl(module: str, attr: str):
    import importlib

    return getattr(importlib.import_module(module), attr)


# ---- where / masked_fill -------------------------------------------------------------------------
def where(name):
    def impl(condition, self, other):
        _check(condition, self, other)
        res = _meta(name, [condition, self, other])
        if condition._dtype is not D.bool and condition._dtype is not D.uint8:
            raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{P._cname(condition._dtype)}")  # fmt: skip
        pw = _decl("numtorch.ops.indexing.masked", "_WHERE")
        dt = res._dtype
        return P.call(pw, [condition, self, other], types=(dt, dt))

    return impl


def masked_fill(inplace: bool, name: str):
    def impl(self, mask, value):
        _check(self, mask)
        if mask._dtype is not D.bool:
            meta_names = _decl("numtorch.ops.indexing.masked", "_META")
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                               f"{meta_names[mask._dtype.name]}")  # fmt: skip
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")  # fmt: skip
        _meta(name, [self, mask, value])
        from ..ops.shape.inplace import checked_scalar

        v = checked_scalar(value.item() if isinstance(value, Tensor) else value, self._dtype)
        pw = _decl("numtorch.ops.indexing.masked", "_WHERE")
        dt = self._dtype
        if inplace:
            r = P.call(pw, [mask, v, self], types=(dt, dt))
            if r._data.shape != self._data.shape:
                raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                                   f"shape {list(r._data.shape)}")  # fmt: skip
            from ._install import copy_into

            copy_into(self._data, r._data)
            self._vc[0] += 1
            return self
        return P.call(pw, [mask, v, self], types=(dt, dt))

    return impl


# ---- gelu ----------------------------------------------------------------------------------------
def _gelu_decl(table: str, approximate: str):
    check = _decl("numtorch.ops.nn.activation", "_gelu_check")
    return _decl("numtorch.ops.nn.activation", table)[check(approximate)]


def gelu(self, approximate="none"):
    _check(self)
    _meta("aten::gelu", [self, approximate])
    return P.call(_gelu_decl("_GELU", approximate), [self])


def gelu_(self, approximate="none"):
    _check(self)
    return P.call(_gelu_decl("_GELU", approximate), [self], inplace=True)


def gelu_backward(grad_output, self, approximate="none"):
    _check(grad_output, self)
    return P.call(_gelu_decl("_GELU_BWD", approximate), [grad_output, self])


# ---- tril / triu ---------------------------------------------------------------------------------
def _tri(lower: bool, name: str):
    def impl(self, diagonal=0):
        _check(self)
        _meta(name, [self, diagonal])
        r, c = self._data.shape[-2:]
        rows = numtorch.arange(r, device=self.device).unsqueeze(1)
        cols = numtorch.arange(c, device=self.device)
        keep = (cols - rows <= diagonal) if lower else (cols - rows >= diagonal)
        pw = _decl("numtorch.ops.indexing.masked", "_WHERE")
        return P.call(pw, [keep, self, 0], types=(self._dtype, self._dtype))

    return impl


# ---- layer_norm ----------------------------------------------------------------------------------
def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002 - aten's names
    _check(input, weight, bias)
    res = _meta("aten::native_layer_norm", [input, normalized_shape, weight, bias, eps])
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    mean = input.mean(dims, keepdim=True)
    d = input - mean
    rstd = ((d * d).mean(dims, keepdim=True) + eps).rsqrt()
    y = d * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y, mean.reshape(res[1].shape), rstd.reshape(res[2].shape)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):  # noqa: A002
    _check(grad_out, input, mean, rstd, weight, bias)
    k = len(normalized_shape)
    dims = list(range(input.dim() - k, input.dim()))
    batch = list(range(input.dim() - k))
    keep = [*input.shape[: input.dim() - k], *([1] * k)]
    mean, rstd = mean.reshape(keep), rstd.reshape(keep)
    xhat = (input - mean) * rstd
    gi = gw = gb = None
    if output_mask[0]:
        g = grad_out * weight if weight is not None else grad_out
        gi = (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True)) * rstd
    if output_mask[1] and weight is not None:
        gw = (grad_out * xhat).sum(batch) if batch else grad_out * xhat
    if output_mask[2] and bias is not None:
        gb = grad_out.sum(batch) if batch else grad_out.clone()
    return gi, gw, gb


# ---- nll_loss ------------------------------------------------------------------------------------
def _nll_parts(self, target, weight, ignore_index):
    """(2-d input, flat target with ignored entries at 0, per-sample weights: 0 where ignored)."""
    c = self.shape[-1]
    t = target.reshape(-1)
    host = t._data.copy_to_host()
    bad = host[(host != ignore_index) & ((host < 0) | (host >= c))]
    if bad.size:
        raise IndexError(f"Target {int(bad[0])} is out of bounds.")
    valid = t != ignore_index
    tc = t.masked_fill(~valid, 0)
    w = valid.to(self.dtype) if weight is None else weight.to(self.dtype).index_select(0, tc) * valid
    x = self if self.dim() == 2 else self.unsqueeze(0)
    return x, tc, w


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    _check(self, target, weight)
    res = _meta("aten::nll_loss_forward", [self, target, weight, reduction, ignore_index])
    x, tc, w = _nll_parts(self, target, weight, ignore_index)
    picked = x.gather(1, tc.unsqueeze(1)).squeeze(1)
    per = (-picked * w).masked_fill(w == 0, 0)  # an ignored -inf logit adds 0, not NaN
    tw = w.sum()
    if reduction == 0:
        out = per.reshape(res[0].shape)
    else:
        out = per.sum() if reduction == 2 else per.sum() / tw
    return out.to(self.dtype), tw.to(self.dtype)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    _check(grad_output, self, target, weight, total_weight)
    x, tc, w = _nll_parts(self, target, weight, ignore_index)
    coef = -w * grad_output.reshape(-1) if reduction == 0 else -w * grad_output
    if reduction == 1:
        coef = coef / total_weight
    gi = numtorch.zeros(x.shape, dtype=self.dtype, device=self.device)
    gi.scatter_(1, tc.unsqueeze(1), coef.to(self.dtype).unsqueeze(1))
    return gi.reshape(self.shape)


def install(ops: dict, meta_of) -> dict:
    _MO[:] = [(ops, meta_of)]
    table = {
        "aten::where.self": where("aten::where.self"),
        "aten::where.ScalarOther": where("aten::where.ScalarOther"),
        "aten::where.ScalarSelf": where("aten::where.ScalarSelf"),
        "aten::where.Scalar": where("aten::where.Scalar"),
        "aten::masked_fill.Scalar": masked_fill(False, "aten::masked_fill.Scalar"),
        "aten::masked_fill.Tensor": masked_fill(False, "aten::masked_fill.Tensor"),
        "aten::masked_fill_.Scalar": masked_fill(True, "aten::masked_fill_.Scalar"),
        "aten::masked_fill_.Tensor": masked_fill(True, "aten::masked_fill_.Tensor"),
        "aten::gelu": gelu,
        "aten::gelu_": gelu_,
        "aten::gelu_backward": gelu_backward,
        "aten::tril": _tri(True, "aten::tril"),
        "aten::triu": _tri(False, "aten::triu"),
        "aten::native_layer_norm": native_layer_norm,
        "aten::native_layer_norm_backward": native_layer_norm_backward,
        "aten::nll_loss_forward": nll_loss_forward,
        "aten::nll_loss_backward": nll_loss_backward,
    }
    from ._fused import NN  # the fused kernels, falling back on the composed versions above

    table.update(NN)
    return {k: v for k, v in table.items() if k in ops}
