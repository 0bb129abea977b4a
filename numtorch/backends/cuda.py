"""``numtorch.backends.cuda``: CUDA math flags, kept for scripts (``matmul.allow_tf32`` ...)."""

from __future__ import annotations

_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


class cuBLASModule:  # noqa: N801 - torch's name
    """``matmul``: the cuBLAS flags; unknown names raise as in PyTorch."""

    _FLAGS = ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction",
              "allow_fp16_accumulation")  # fmt: skip

    def __init__(self):
        object.__setattr__(self, "_v", {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                                        "allow_bf16_reduced_precision_reduction": True,
                                        "allow_fp16_accumulation": False})  # fmt: skip

    def __getattr__(self, name):
        if name in self._FLAGS:
            return self._v[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name not in self._FLAGS:
            raise AttributeError("Unknown attribute " + name)
        self._v[name] = value


matmul = cuBLASModule()


def is_built() -> bool:
    """False: numtorch was not built with CUDA."""
    return False


def preferred_linalg_library(backend=None):
    """The linalg backend: always the default (LAPACK through NumPy)."""
    return "default"


def preferred_blas_library(backend=None):
    """The BLAS backend: always the default (NumPy's)."""
    return "default"


def _flag(name):
    def enabled() -> bool:
        return _SDP[name]

    def enable(on: bool) -> None:
        _SDP[name] = bool(on)

    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _flag("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _flag("mem_efficient")
math_sdp_enabled, enable_math_sdp = _flag("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _flag("cudnn")


def is_flash_attention_available() -> bool:
    """False without CUDA."""
    return False
