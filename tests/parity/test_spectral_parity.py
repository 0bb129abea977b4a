"""numtorch/_spectral.py against torch.stft / torch.istft: the same defaults, shapes and values."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _run(T):
    x = T.tensor(np.random.default_rng(0).standard_normal((2, 40)))
    w = T.hann_window(16, dtype=T.float64)
    s = T.stft(x, 16, hop_length=4, window=w, return_complex=True)
    out = [s, T.stft(x, 16, return_complex=True, center=False, normalized=True),
           T.stft(x[0], 16, hop_length=5, win_length=10, window=T.hann_window(10, dtype=T.float64), return_complex=False,
                  pad_mode="constant"),
           T.stft(x, 16, return_complex=True, onesided=False), T.istft(s, 16, hop_length=4, window=w, length=40),
           T.istft(s, 16, hop_length=4, window=w)]  # fmt: skip
    return [np.asarray(o) for o in out]


def test_stft_istft_match_torch():
    for got, want in zip(_run(numtorch), _run(torch)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
