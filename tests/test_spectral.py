"""numtorch/_spectral.py: stft against a NumPy framing + rfft, istft inverts it, gradients
by gradcheck, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck


def test_stft_matches_numpy_frames_and_istft_inverts():
    x = np.random.default_rng(0).standard_normal(40)
    w = np.hanning(18)[1:-1]  # any window: compare with the same one
    got = numtorch.stft(numtorch.tensor(x), 16, hop_length=4, window=numtorch.tensor(w), center=False, return_complex=True)
    frames = np.stack([x[i:i + 16] * w for i in range(0, 40 - 16 + 1, 4)])
    np.testing.assert_allclose(got.numpy(), np.fft.rfft(frames, axis=-1).T, rtol=1e-12, atol=1e-12)
    hann = numtorch.hann_window(16, dtype=numtorch.float64)
    s = numtorch.tensor(x).stft(16, hop_length=4, window=hann, return_complex=True)
    np.testing.assert_allclose(s.istft(16, hop_length=4, window=hann, length=40).numpy(), x, atol=1e-12)
    assert numtorch.stft(numtorch.tensor(x), 16, return_complex=False).shape == (9, 11, 2)


def test_stft_gradients_and_errors():
    x = numtorch.tensor(np.random.default_rng(1).standard_normal(20), requires_grad=True)
    assert gradcheck(lambda v: numtorch.stft(v, 8, hop_length=2, return_complex=True).abs(), (x,))
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given for real inputs"):
        numtorch.stft(x, 8)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        numtorch.istft(numtorch.stft(x, 8, hop_length=8, window=numtorch.hann_window(8, dtype=numtorch.float64),
                                     return_complex=True), 8, hop_length=8, window=numtorch.hann_window(8, dtype=numtorch.float64))  # fmt: skip
