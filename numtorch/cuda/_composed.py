"""CUDA implementations composed from other CUDA ops (each of which runs a CUDA kernel).

# Note [Composed CUDA kernels]
# An op whose CPU kernel is fused (softmax, mse_loss and their backward ops) gets, until a fused
# CUDA kernel earns its place with a GPU benchmark, a CUDA implementation written with numtorch
# ops on the CUDA tensors: every step runs on the device, nothing goes through the host. The
# op's meta kernel runs first, so argument errors and result dtypes are PyTorch's (the CPU
# kernel's rules, in one place). These run below the Autograd key, so the ops inside record
# nothing.
"""

from __future__ import annotations

from .._tensor import Tensor
from ._launch import device_error


def _check(*ts) -> None:
    for t in ts:
        if isinstance(t, Tensor) and t._device.type != "cuda" and t._data.ndim:
            raise device_error()


def _reduce(d, reduction: int):
    return d if reduction == 0 else d.mean() if reduction == 1 else d.sum()


def mse_loss(self, target, reduction=1):
    _check(self, target)
    d = self - target
    return _reduce(d * d, reduction)


def mse_loss_backward(grad_output, self, target, reduction):
    _check(grad_output, self, target)
    g = (self - target) * grad_output * 2
    return g / max(self.numel(), 1) if reduction == 1 else g


def _softmax(self, dim, half_to_float=False):
    _check(self)
    e = (self - self.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


def _log_softmax(self, dim, half_to_float=False):
    _check(self)
    s = self - self.amax(dim, keepdim=True)
    return s - s.exp().sum(dim, keepdim=True).log()


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    _check(grad_output, output)
    return output * (grad_output - (grad_output * output).sum(dim, keepdim=True))


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    _check(grad_output, output)
    return grad_output - output.exp() * grad_output.sum(dim, keepdim=True)


IMPLS = {
    "aten::mse_loss": mse_loss,
    "aten::mse_loss_backward": mse_loss_backward,
    "aten::_softmax": _softmax,
    "aten::_log_softmax": _log_softmax,
    "aten::_softmax_backward_data": _softmax_backward_data,
    "aten::_log_softmax_backward_data": _log_softmax_backward_data,
}


def install(ops: dict, meta_of) -> int:
    """Register IMPLS and EXTRA, each behind its op's meta kernel (PyTorch's checks) when it has one."""
    from ._fused import IMPLS as FUSED  # the fused kernels, falling back on IMPLS' versions

    _OPS[:], _META[:] = [ops], [meta_of]
    table = {**IMPLS, **FUSED, **{k: v for k, v in EXTRA.items() if k in ops}}
    for name, fn in table.items():
        op = ops[name]
        checked = "meta" in op.impls and name != "aten::cat"  # cat runs its meta kernel itself
        op.impls["cuda"] = _validated(op, fn, meta_of) if checked else fn
    return len(table)


def _validated(op, fn, meta_of):
    def impl(*vals):
        meta_of(op, vals)
        return fn(*vals)

    return impl


# ---- ops built on the copy and fill kernels ------------------------------------------------------
def fill_(self, value):
    from ._install import fill

    _check(self)
    v = value.item() if isinstance(value, Tensor) else value
    fill(self._data, self._dtype.np.type(v))
    self._vc[0] += 1
    return self


def zero_(self):
    return fill_(self, 0)


def cat(tensors, dim=0):
    from . import _storage as S
    from ._install import copy_into

    for t in tensors:
        _check(t)
    _check_cat_sizes(tensors, dim)
    res = _META[0](_OPS[0]["aten::cat"], [tensors, dim])
    out = S.empty(res._data.shape, res._dtype.np)
    d = dim % max(len(res._data.shape), 1)
    off = 0
    for t in tensors:
        a = t._data
        if a.shape == (0,) and len(out.shape) != 1:  # PyTorch's legacy empty operand: skipped
            continue
        n = a.shape[d]
        view = S.CudaArray(out.block, out.root, out.offset + off * out.estrides[d], a.shape, out.estrides, out.dtype)
        copy_into(view, a)
        off += n
    dev = next(t._device for t in tensors if t._device.type == "cuda")
    from .._tensor import _make

    return _make(out, res._dtype, Tensor, dev)


def _check_cat_sizes(tensors, dim) -> None:
    # the CPU kernel's message (the meta rule words a mismatch as broadcasting does)
    shapes = [t._data.shape for t in tensors if t._data.shape != (0,)]
    if len(shapes) < 2 or len({len(s) for s in shapes}) != 1 or not shapes[0]:
        return
    nd = len(shapes[0])
    if not -nd <= dim < nd:
        return
    d = dim % nd
    first = shapes[0]
    for i, s in enumerate(shapes[1:], 1):
        for k in range(nd):
            if k != d and s[k] != first[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {first[k]} but got "
                    f"size {s[k]} for tensor number {i} in the list."
                )


def _dims(dim, ndim):
    if dim is None:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


def _count(self, dim, keepdim, zeros: bool):
    hits = (self == 0) if zeros else (self != 0)
    dims = _dims(dim, self.dim())
    if dims is None or not dims and self.dim() == 0:
        r = hits.sum()
        return r.reshape([1] * self.dim()) if keepdim else r
    return hits.sum(dims, keepdim=keepdim)


def any_dims(self, dim=None, keepdim=False):
    _check(self)
    return _count(self, dim, keepdim, False) > 0


def all_dims(self, dim=None, keepdim=False):
    _check(self)
    return _count(self, dim, keepdim, True) == 0


def var_correction(self, dim=None, correction=None, keepdim=False):
    _check(self)
    dims = _dims(dim, self.dim()) or list(range(self.dim()))
    m = self.mean(dims, keepdim=True) if dims else self
    d = self - m
    s = (d * d).sum(dims, keepdim=keepdim) if dims else d * d
    n = self.numel() // max(s.numel(), 1) if self.numel() else 0
    c = 1 if correction is None else correction
    return s / max(n - c, 0)


def std_correction(self, dim=None, correction=None, keepdim=False):
    return var_correction(self, dim, correction, keepdim).sqrt()


def outer(self, vec2):
    _check(self, vec2)
    return self.unsqueeze(1) * vec2.unsqueeze(0)


def complex_(real, imag):
    # Note [Complex on CUDA]: both parts copied into the view_as_real of a new complex tensor
    import numtorch

    _check(real, imag)
    res = _META[0](_OPS[0]["aten::complex"], [real, imag])
    out = numtorch.empty(res.shape, dtype=res.dtype, device=real.device)
    parts = numtorch.view_as_real(out)
    parts[..., 0].copy_(real)
    parts[..., 1].copy_(imag)
    return out


def norm_dims(self, p=2, dim=(), keepdim=False):
    # clip_grad_norm_'s reduction: |x| reduced per PyTorch's p-norm cases; half sums in float32
    import math

    _check(self)
    p = 2.0 if p is None else float(p)
    dims = list(dim) if dim else list(range(self.ndim))
    a = self.abs()
    half = a.dtype.itemsize == 2
    a = a.float() if half else a
    if p != 0 and self.numel() and all(self.shape[d] == 1 for d in dims):
        r = a.sum(dims, keepdim)  # one element per output is |x|, as the CPU's norm (no power and root)
    elif math.isinf(p):
        r = a.amax(dims, keepdim) if p > 0 else a.amin(dims, keepdim)
    elif p == 0:
        r = (a != 0).to(a.dtype).sum(dims, keepdim)
    elif p == 1:
        r = a.sum(dims, keepdim)
    elif p == 2:
        r = (a * a).sum(dims, keepdim).sqrt()
    else:
        r = (a**p).sum(dims, keepdim) ** (1.0 / p)
    return r.half() if half else r


# ---- reductions composed from sum/amax/amin/mean (their results' shapes and dtypes: the meta's) ----
def _res(name, vals):
    return _META[0](_OPS[0][name], vals)


def logsumexp(self, dim, keepdim=False):
    # ATen's: the max along dim, replaced by 0 where infinite, keeps exp from overflowing
    import math

    _check(self)
    res = _res("aten::logsumexp", [self, dim, keepdim])
    x = self if self.dtype is res.dtype else self.to(res.dtype)
    dims = _dims(dim, x.dim()) or list(range(x.dim()))
    if x.numel() == 0 or not dims:
        return x.exp().sum(dims, keepdim=True).log().reshape(res.shape) if dims else x.clone()
    m = x.detach().amax(dims, keepdim=True)
    m = m.masked_fill(m.abs() == math.inf, 0)
    return ((x - m).exp().sum(dims, keepdim=True).log() + m).reshape(res.shape)


def nansum(self, dim=None, keepdim=False, dtype=None):
    _check(self)
    res = _res("aten::nansum", [self, dim, keepdim, dtype])
    x = self.masked_fill(self.isnan(), 0) if self.dtype.is_floating_point or self.dtype.is_complex else self
    dims = _dims(dim, x.dim()) or list(range(x.dim()))
    r = x.sum(dims, keepdim=True, dtype=dtype) if dims else x.to(res.dtype, copy=True)
    return r.reshape(res.shape)


def aminmax(self, dim=None, keepdim=False):
    from ..ops.reduction.core import AMinMax

    _check(self)
    lo, _ = _res("aten::aminmax", [self, dim, keepdim])
    dims = list(range(self.dim())) if dim is None else [dim]
    if not dims:  # a 0-d input: itself twice
        return AMinMax(self.clone(), self.clone())
    return AMinMax(self.amin(dims, keepdim=True).reshape(lo.shape), self.amax(dims, keepdim=True).reshape(lo.shape))


def _moments(name, fn):
    def impl(self, dim=None, correction=None, keepdim=False):
        v, _ = _res(name, [self, dim, correction, keepdim])
        dims = _dims(dim, self.dim()) or list(range(self.dim()))
        mean = self.mean(dims, keepdim=True) if dims else self.clone()
        return fn(self, dim, correction, keepdim).reshape(v.shape), mean.reshape(v.shape)

    return impl


_OPS: list = []
_META: list = []
EXTRA = {
    "aten::logsumexp": logsumexp,
    "aten::nansum": nansum,
    "aten::aminmax": aminmax,
    "aten::var_mean.correction": _moments("aten::var_mean.correction", lambda *a: var_correction(*a)),
    "aten::std_mean.correction": _moments("aten::std_mean.correction", lambda *a: std_correction(*a)),
    "aten::norm.ScalarOpt_dim": norm_dims,
    "aten::complex": complex_,
    "aten::fill_.Scalar": fill_,
    "aten::fill_.Tensor": fill_,
    "aten::zero_": zero_,
    "aten::cat": cat,
    "aten::any": lambda self: any_dims(self),
    "aten::all": lambda self: all_dims(self),
    "aten::any.dims": any_dims,
    "aten::all.dims": all_dims,
    "aten::any.dim": any_dims,
    "aten::all.dim": all_dims,
    "aten::var.correction": var_correction,
    "aten::std.correction": std_correction,
    "aten::outer": outer,
}
