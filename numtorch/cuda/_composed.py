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
    """Register IMPLS, each behind its op's meta kernel (PyTorch's checks) when it has one."""
    for name, fn in IMPLS.items():
        op = ops[name]
        op.impls["cuda"] = _validated(op, fn, meta_of) if "meta" in op.impls else fn
    return len(IMPLS)


def _validated(op, fn, meta_of):
    def impl(*vals):
        meta_of(op, vals)
        return fn(*vals)

    return impl
