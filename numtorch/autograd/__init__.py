"""numtorch.autograd: reverse-mode engine, grad modes, custom Functions, gradcheck."""

from __future__ import annotations

from . import _api, grad_mode, graph
from ._api import backward, grad
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

_api.install()

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "backward", "detect_anomaly", "enable_grad",
    "grad", "gradcheck", "gradgradcheck", "inference_mode", "no_grad", "once_differentiable",
    "set_detect_anomaly", "set_grad_enabled",
]  # fmt: skip
