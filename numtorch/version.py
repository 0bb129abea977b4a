"""Build facts, as ``torch.version``: this build has no CUDA, ROCm or XPU toolkit linked in."""

from __future__ import annotations

from .torch_version import TorchVersion

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = TorchVersion("0.1.0")
debug = False
cuda = None  # numba-cuda, when installed, brings its own runtime; nothing is compiled in
hip = None
rocm = None
xpu = None
git_version = "Unknown"
