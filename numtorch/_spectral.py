"""``torch.stft`` / ``torch.istft`` (and their Tensor methods) as composites over numtorch.fft,
framing (``unfold``) and overlap-add (``index_add``), so they are differentiable end to end;
PyTorch's defaults, shapes and errors (torch/functional.py)."""

from __future__ import annotations

from .ops._registry import public


def _nt():
    import numtorch

    return numtorch


def _window(window, win_length, n_fft, dtype):
    nt = _nt()
    w = nt.ones(win_length, dtype=dtype) if window is None else window
    if w.shape[-1] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(w.shape)}")  # fmt: skip
    left = (n_fft - win_length) // 2
    return nt.nn.functional.pad(w, (left, n_fft - win_length - left)) if win_length < n_fft else w


def _stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex):
    """Short-time Fourier transform: ``(..., freq, frames)`` complex (or its real view with
    ``return_complex=False``), as ``torch.stft``.

    >>> numtorch.stft(numtorch.arange(16.0), 8, return_complex=True).shape
    torch.Size([5, 9])
    """
    nt = _nt()
    if return_complex is None and not input.is_complex() and (window is None or not window.is_complex()):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")  # fmt: skip
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    if not 0 < wl <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={wl}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    if center:
        p = n_fft // 2
        x = nt.nn.functional.pad(x.unsqueeze(1), (p, p), mode=pad_mode).squeeze(1)
    if x.shape[-1] < n_fft:
        raise RuntimeError(f"stft: expected 0 < n_fft < {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _window(window, wl, n_fft, x.dtype if not x.is_complex() else None)
    side = (not x.is_complex() and (window is None or not window.is_complex())) if onesided is None else onesided
    spec = nt.fft.rfft(frames, dim=-1) if side else nt.fft.fft(frames, dim=-1)
    if normalized:
        spec = spec * n_fft**-0.5
    spec = spec.transpose(-1, -2)
    spec = spec.squeeze(0) if input.ndim == 1 else spec
    return spec if return_complex or return_complex is None else nt.view_as_real(spec)


def _istft(input, n_fft, hop_length, win_length, window, center, normalized, onesided, length, return_complex):
    """Inverse short-time Fourier transform by windowed overlap-add, as ``torch.istft``.

    >>> x = numtorch.arange(16.0)
    >>> numtorch.istft(numtorch.stft(x, 8, return_complex=True), 8, length=16).allclose(x, atol=1e-5)
    True
    """
    nt = _nt()
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    spec = input.unsqueeze(0) if input.ndim == 2 else input
    side = spec.shape[-2] != n_fft if onesided is None else onesided
    if normalized:
        spec = spec * n_fft**0.5
    spec = spec.transpose(-1, -2)
    frames = nt.fft.irfft(spec, n=n_fft, dim=-1) if side and not return_complex else nt.fft.ifft(spec, n=n_fft, dim=-1)
    if not return_complex and frames.is_complex():
        frames = frames.real
    w = _window(window, wl, n_fft, frames.real.dtype if frames.is_complex() else frames.dtype)
    frames = frames * w
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    idx = (nt.arange(n_frames).unsqueeze(1) * hop + nt.arange(n_fft)).reshape(-1)
    y = nt.zeros(*frames.shape[:-2], total, dtype=frames.dtype).index_add(-1, idx, frames.reshape(*frames.shape[:-2], -1))
    env = nt.zeros(total, dtype=w.dtype).index_add(-1, idx, (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    y, env = y[..., start:min(end, total)], env[start:min(end, total)]
    if bool((env.abs() < 1e-11).any()):
        raise RuntimeError(f"istft(window overlap add min: {float(env.abs().min()):g}): window overlap add min should "
                           "be greater than 1e-11")  # fmt: skip
    y = y / env
    if length is not None and y.shape[-1] < length:
        y = nt.nn.functional.pad(y, (0, length - y.shape[-1]))
    return y.squeeze(0) if input.ndim == 2 else y


_STFT_SIG = ("n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect', "
             "normalized=False, onesided=None, return_complex=None")  # fmt: skip
_ISTFT_SIG = ("n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=None, "
              "length=None, return_complex=False")  # fmt: skip
public("stft", f"input, {_STFT_SIG}", _stft, relevant=("input", "window"))
public("stft", f"self, {_STFT_SIG}", _stft, relevant=("self", "window"), module="Tensor")
public("istft", f"input, {_ISTFT_SIG}", _istft, relevant=("input", "window"))
public("istft", f"self, {_ISTFT_SIG}", _istft, relevant=("self", "window"), module="Tensor")
