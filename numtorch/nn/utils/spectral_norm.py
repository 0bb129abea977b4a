"""The hook-based (legacy) spectral normalization, mirroring ``torch.nn.utils.spectral_norm``:
``name_orig``, buffers ``name_u`` / ``name_v`` and a forward pre-hook running the power iteration
in training mode. New code uses ``nn.utils.parametrizations.spectral_norm``."""

from __future__ import annotations

from typing import Any

import numtorch

from .. import functional as F
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]  # fmt: skip


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`: ``name = name_orig / sigma``."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name, self.dim, self.eps = name, dim, eps
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")  # fmt: skip
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # in place on the buffers (out=), then cloned: backward must not see later updates
            with numtorch.no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(numtorch.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(numtorch.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone(memory_format=numtorch.contiguous_format)
                v = v.clone(memory_format=numtorch.contiguous_format)
        sigma = numtorch.dot(u, numtorch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with numtorch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        v = numtorch.linalg.multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(), u.unsqueeze(1)])
        v = v.squeeze(1)
        return v.mul_(target_sigma / numtorch.dot(u, numtorch.mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")  # fmt: skip
        with numtorch.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Rebuilds ``name_v`` when loading a state dict saved before spectral_norm's version 1."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")) and (
            weight_key not in state_dict
        ):
            return
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with numtorch.no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            sigma = (weight_orig / state_dict.pop(weight_key)).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, state_dict[weight_key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Records spectral_norm's version in the state dict's metadata."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        meta = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in meta:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        meta[key] = self.fn._version


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:  # fmt: skip
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration (legacy hook form).

    >>> m = numtorch.nn.utils.spectral_norm(numtorch.nn.Linear(20, 40))
    >>> m.weight_u.shape
    torch.Size([40])
    """
    if dim is None:
        transposed = (numtorch.nn.ConvTranspose1d, numtorch.nn.ConvTranspose2d, numtorch.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _unwrap(hook):
    return getattr(hook, "hook", hook)


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Replace the spectral-normalized ``name`` by a plain parameter holding its current value.

    >>> m = numtorch.nn.utils.remove_spectral_norm(numtorch.nn.utils.spectral_norm(numtorch.nn.Linear(3, 2)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for hooks, cls in ((module._state_dict_hooks, SpectralNormStateDictHook),
                       (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):  # fmt: skip
        for k, hook in hooks.items():
            if isinstance(_unwrap(hook), cls) and _unwrap(hook).fn.name == name:
                del hooks[k]
                break
    return module
