"""Connectionist temporal classification: ``_ctc_loss`` (per-element negative log likelihood and
log_alpha, Numba kernels in kernels/cpu/nn/ctc.py), its backward, and ``torch.ctc_loss`` /
``F.ctc_loss`` with PyTorch's reductions (mean divides each loss by its target length first)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._registry import defop, public

K = lazy("numtorch.kernels.cpu.nn.ctc")
aten = _ops.aten  # Note [Composite bodies are below the Python API]
_F = "torch.nn.functional"
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _lengths(v) -> np.ndarray:
    return np.asarray(v.tolist() if isinstance(v, Tensor) else list(v), np.int64).reshape(-1)


def _setup(log_probs, targets, input_lengths, target_lengths, blank):
    if log_probs.dtype not in (D.float32, D.float64):
        raise RuntimeError(f'"ctc_loss_cpu" not implemented for \'{str(log_probs.dtype).split(".")[-1].capitalize()}\'')
    T, N, C = log_probs.shape
    in_len, tg_len = _lengths(input_lengths), _lengths(target_lengths)
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(in_len) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tg_len) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    tg = targets.numpy().astype(np.int64)
    if targets.dim() == 1:
        off = np.concatenate([[0], np.cumsum(tg_len)[:-1]]).astype(np.int64)
        flat = tg
    else:
        if targets.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size at least {N} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
        off = np.arange(N, dtype=np.int64) * targets.shape[1]
        flat = tg.reshape(-1)
        for n in range(N):
            if tg_len[n] > targets.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {tg_len[n]} at dimension 1, but got size "
                                   f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
    for n in range(N):
        if in_len[n] > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {in_len[n]} (while "
                               "checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
    S2 = 2 * int(tg_len.max(initial=0)) + 1
    lp = np.ascontiguousarray(log_probs._data).reshape(-1)
    return lp, np.ascontiguousarray(flat), in_len, tg_len, off, T, N, C, S2


def _ctc_cpu(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lp, flat, in_len, tg_len, off, T, N, C, S2 = _setup(log_probs, targets, input_lengths, target_lengths, blank)
    la = np.empty(N * T * S2, lp.dtype)
    nll = np.empty(N, lp.dtype)
    fn = K.ctc_alpha_parallel if N > 1 and T * N * S2 >= 1 << 16 else K.ctc_alpha
    fn(lp, flat, in_len, tg_len, off, la, nll, T, N, C, S2, int(blank))
    dt = log_probs._dtype
    return _make(nll, dt), _make(la.reshape(N, T, S2), dt)


def _ctc_backward_cpu(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                      blank, zero_infinity):  # fmt: skip
    lp, flat, in_len, tg_len, off, T, N, C, S2 = _setup(log_probs, targets, input_lengths, target_lengths, blank)
    go = np.ascontiguousarray(np.broadcast_to(grad._data, (N,)), lp.dtype)
    la = np.ascontiguousarray(log_alpha._data, lp.dtype).reshape(-1)
    nll = np.ascontiguousarray(neg_log_likelihood._data, lp.dtype)
    lb = np.empty_like(la)
    out = np.empty(T * N * C, lp.dtype)
    fn = K.ctc_grad_parallel if N > 1 and T * N * S2 >= 1 << 16 else K.ctc_grad
    fn(go, lp, flat, in_len, tg_len, off, la, lb, nll, out, T, N, C, S2, int(blank), bool(zero_infinity))
    return _make(out.reshape(T, N, C), log_probs._dtype)


_ctc_loss = defop(
    "_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int blank=0, "
    "bool zero_infinity=False) -> (Tensor, Tensor)",
    cpu=_ctc_cpu,
    backward={"log_probs": lambda grads, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity,
              result0, result1: dispatch(_ctc_loss_backward, [grads[0], log_probs, targets, input_lengths,
                                                              target_lengths, result0, result1, blank, zero_infinity])},
)  # fmt: skip
_ctc_loss_backward = defop(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "Tensor neg_log_likelihood, Tensor log_alpha, int blank, bool zero_infinity=False) -> Tensor",
    cpu=_ctc_backward_cpu,
)


def _ctc_loss_composite(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    il, tl = _lengths(input_lengths).tolist(), _lengths(target_lengths).tolist()
    res = dispatch(_ctc_loss, [log_probs, targets, il, tl, blank, zero_infinity])[0]
    if zero_infinity:
        res = aten.where.self(res == float("inf"), res.new_zeros(()), res)
    if unbatched:
        res = res.squeeze(0)
    if reduction == 1:
        return (res / res.new_tensor(tl).clamp_min(1)).mean()
    if reduction == 2:
        return res.sum()
    return res


ctc_loss = defop(
    "ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int blank=0, "
    "int reduction=Mean, bool zero_infinity=False) -> Tensor",
    composite=_ctc_loss_composite,
)


def _t_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """CTC loss with the reduction as an enum (0 none, 1 mean, 2 sum), as ``torch.ctc_loss``.

    >>> lp = numtorch.full((2, 1, 2), 0.5).log()
    >>> round(numtorch.ctc_loss(lp, numtorch.tensor([[1]]), [2], [1], 0, 0, False).item(), 4)
    0.2877
    """
    return dispatch(ctc_loss, [log_probs, targets, _lengths(input_lengths).tolist(), _lengths(target_lengths).tolist(),
                               blank, reduction, zero_infinity])  # fmt: skip


def _f_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """Connectionist temporal classification loss of (T, N, C) log-probabilities against targets.

    >>> lp = numtorch.full((2, 1, 2), 0.5).log()
    >>> numtorch.nn.functional.ctc_loss(lp, numtorch.tensor([[1]]), [2], [1], reduction="sum")
    tensor(0.2877)
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _t_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction], zero_infinity)


public("ctc_loss", "log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False",
       _t_ctc_loss, relevant=("log_probs", "targets"), ops=(ctc_loss,))  # fmt: skip
public("ctc_loss", "log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', "
       "zero_infinity=False", _f_ctc_loss, relevant=("log_probs", "targets"), module=_F, ops=(ctc_loss,))  # fmt: skip
