"""The window functions of ``torch.signal.windows``, written over numtorch's public ops as PyTorch writes
them (a linspace of phases through one pointwise formula), so ``requires_grad=True`` windows are
differentiable and float32 windows round as PyTorch's do.

``sym=True`` gives the symmetric window (filter design); ``sym=False`` the periodic one (spectral
analysis), i.e. the first ``M`` points of the symmetric window of length ``M + 1``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numtorch
from numtorch._layout import strided

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]  # fmt: skip


def _checks(name: str, M: int, dtype, layout) -> None:
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (numtorch.float32, numtorch.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _trivial(M, dtype, device, requires_grad):
    # M == 0 and M == 1 are fixed (the phase step would divide by zero for a symmetric M == 1)
    make = numtorch.empty if M == 0 else numtorch.ones
    return make((M,), dtype=dtype, device=device, requires_grad=requires_grad)


def _phases(start, step, M, dtype, device, requires_grad):
    return numtorch.linspace(start, start + (M - 1) * step, M, dtype=dtype, device=device,
                             requires_grad=requires_grad)  # fmt: skip


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None,
                layout=strided, device=None, requires_grad: bool = False):  # fmt: skip
    """exp(-|n - center| / tau) (the Poisson window).

    >>> numtorch.signal.windows.exponential(3, dtype=numtorch.float64).tolist()[1]
    1.0
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(0, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _phases(-center / tau, 1 / tau, M, dtype, device, requires_grad)
    return numtorch.exp(-numtorch.abs(k))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """sin(pi (n + 0.5) / M) (the sine window).

    >>> numtorch.signal.windows.cosine(2, dtype=numtorch.float64).tolist()
    [0.7071067811865476, 0.7071067811865476]
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(0, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return numtorch.sin(_phases(0.5 * step, step, M, dtype, device, requires_grad))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False):  # fmt: skip
    """exp(-(n - (M-1)/2)^2 / (2 std^2)).

    >>> numtorch.signal.windows.gaussian(3, dtype=numtorch.float64).tolist()[1]
    1.0
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(0, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    step = 1 / (std * math.sqrt(2))
    k = _phases(start * step, step, M, dtype, device, requires_grad)
    return numtorch.exp(-(k**2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False):  # fmt: skip
    """I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta), N = M - 1 if sym else M.

    >>> numtorch.signal.windows.kaiser(3, beta=0.0, dtype=numtorch.float64).tolist()
    [1.0, 1.0, 1.0]
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    # beta as a tensor of the window's dtype: sqrt(beta^2 - k^2) at the ends is then exactly 0, not NaN
    b = numtorch.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * b / (M if not sym else M - 1)
    end = numtorch.minimum(b, -b + (M - 1) * step)
    k = numtorch.linspace(-b, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return numtorch.i0(numtorch.sqrt(b * b - numtorch.pow(k, 2))) / numtorch.i0(b)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """The triangular window 1 - |2n/N - 1|, N = M - 1 if sym else M.

    >>> numtorch.signal.windows.bartlett(5, dtype=numtorch.float64).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("bartlett", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    k = _phases(-1, 2 / (M if not sym else M - 1), M, dtype, device, requires_grad)
    return 1 - numtorch.abs(k)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided, device=None,
                   requires_grad: bool = False):  # fmt: skip
    """sum_i (-1)^i a_i cos(2 pi i n / N), N = M - 1 if sym else M.

    >>> numtorch.signal.windows.general_cosine(3, a=[0.5, 0.5], dtype=numtorch.float64).tolist()
    [0.0, 1.0, 0.0]
    """
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("general_cosine", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _phases(0, 2 * math.pi / (M if not sym else M - 1), M, dtype, device, requires_grad)
    a_i = numtorch.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                          requires_grad=requires_grad)  # fmt: skip
    i = numtorch.arange(a_i.shape[0], dtype=dtype, device=device)
    return (a_i.unsqueeze(-1) * numtorch.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided, device=None,
                    requires_grad: bool = False):  # fmt: skip
    """alpha - (1 - alpha) cos(2 pi n / N).

    >>> numtorch.signal.windows.general_hamming(3, alpha=0.5, dtype=numtorch.float64).tolist()
    [0.0, 1.0, 0.0]
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)  # fmt: skip


def hamming(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """general_hamming with alpha = 0.5 (the raised cosine)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)  # fmt: skip


def blackman(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = numtorch.get_default_dtype() if dtype is None else dtype
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)  # fmt: skip


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None, requires_grad: bool = False):
    """The minimum 4-term Blackman-Harris window (Nuttall's coefficients)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)  # fmt: skip
