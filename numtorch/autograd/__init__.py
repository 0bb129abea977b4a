"""numtorch.autograd: reverse-mode engine, grad modes, custom Functions, gradcheck."""

from __future__ import annotations

from ..overrides import handle_torch_function, has_torch_function, is_tensor_like
from . import _api, functional, grad_mode, graph, profiler, profiler_legacy, profiler_util
from ._api import backward, grad
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, enforce_grad_layout_policy, inference_mode, is_multithreading_enabled,
                        is_view_replay_enabled, no_grad, set_grad_enabled, set_multithreading_enabled)  # fmt: skip
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import SavedTensor
from .profiler import DeviceType, ProfilerActivity, ProfilerConfig, ProfilerEvent, ProfilerState, kineto_available
from .variable import Variable

_api.install()

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "Variable", "backward", "detect_anomaly", "enable_grad",
    "grad", "gradcheck", "gradgradcheck", "inference_mode", "no_grad", "once_differentiable",
    "set_detect_anomaly", "set_grad_enabled",
]  # fmt: skip


def variable(*args, **kwargs):
    """Removed in PyTorch: raises, pointing at ``torch.tensor``.

    >>> numtorch.autograd.variable(1)
    Traceback (most recent call last):
    RuntimeError: torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead
    """
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
