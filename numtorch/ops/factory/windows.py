"""Window functions: hann, hamming, bartlett, blackman and kaiser windows, as PyTorch defines them
(``periodic=True`` is the first ``window_length`` points of a ``window_length + 1`` symmetric window)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from .._registry import public

_CXX = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "bool": "bool"}  # fmt: skip


def _window(fname, window_length, periodic, dtype, requires_grad, shape_fn):
    dt = dtype or D.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{fname} expects floating point dtypes, got: TensorOptions(dtype={_CXX.get(dt.name, dt.name)}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )
    if window_length < 0:
        raise RuntimeError(f"{fname} requires non-negative window_length, got window_length={window_length}")
    if window_length == 0:
        w = np.zeros(0)
    elif window_length == 1:
        w = np.ones(1)
    else:
        m = window_length + 1 if periodic else window_length
        w = shape_fn(m)[:window_length]
    t = _make(np.ascontiguousarray(w.astype(dt.np)), dt)
    return t.requires_grad_(True) if requires_grad else t


def _cosine_sum(coeffs):
    def fn(m):
        n = np.arange(m)
        return sum(c * np.cos(2 * np.pi * k * n / (m - 1)) for k, c in enumerate(coeffs))

    return fn


def _hann(window_length, periodic, dtype, layout, device, requires_grad):
    """Hann window, ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    >>> numtorch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _cosine_sum((0.5, -0.5)))


def _hamming(window_length, periodic, alpha, beta, dtype, layout, device, requires_grad):
    """Hamming window, ``alpha - beta cos(2 pi n / (N - 1))``.

    >>> numtorch.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, _cosine_sum((alpha, -beta)))


def _blackman(window_length, periodic, dtype, layout, device, requires_grad):
    """Blackman window, ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> numtorch.blackman_window(3, periodic=False)
    tensor([-1.4901e-08,  1.0000e+00, -1.4901e-08])
    """
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _cosine_sum((0.42, -0.5, 0.08)))


def _bartlett(window_length, periodic, dtype, layout, device, requires_grad):
    """Bartlett (triangular) window.

    >>> numtorch.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda m: 1 - np.abs(2 * np.arange(m) / (m - 1) - 1))  # fmt: skip


def _kaiser(window_length, periodic, beta, dtype, layout, device, requires_grad):
    """Kaiser window with shape parameter ``beta``, ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``.

    >>> numtorch.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, lambda m: np.kaiser(m, beta))


_TAIL = "*, dtype=None, layout=None, device=None, requires_grad=False"
public("hann_window", f"window_length, periodic=True, {_TAIL}", _hann, relevant=())
public("hamming_window", f"window_length, periodic=True, alpha=0.54, beta=0.46, {_TAIL}", _hamming, relevant=())
public("blackman_window", f"window_length, periodic=True, {_TAIL}", _blackman, relevant=())
public("bartlett_window", f"window_length, periodic=True, {_TAIL}", _bartlett, relevant=())
public("kaiser_window", f"window_length, periodic=True, beta=12.0, {_TAIL}", _kaiser, relevant=())
