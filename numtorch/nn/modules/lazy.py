"""Lazy modules: ``LazyModuleMixin`` and the layers whose input size is inferred from the first
call (``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``,
``LazyInstanceNorm1d/2d/3d``), mirroring torch.nn.modules.lazy and the classes beside it.

# Note [Lazy modules become their eager class]
# A lazy module holds UninitializedParameter/UninitializedBuffer placeholders; a forward pre-hook
# reads the input's size, materializes them, runs reset_parameters, removes itself and switches
# ``__class__`` to ``cls_to_become`` (Linear, Conv2d, ...), so after the first call the module is
# indistinguishable from one built eagerly. load_state_dict materializes through a pre-hook too.
"""

from __future__ import annotations

import itertools
import warnings

import numtorch

from ... import _dtype as D
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = [
    "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]  # fmt: skip


class LazyModuleMixin:
    """Mixin for modules whose parameters are shaped by the first input (Note [Lazy modules become
    their eager class]).

    >>> m = numtorch.nn.LazyLinear(2); _ = m(numtorch.ones(3, 5)); type(m).__name__, m.weight.shape
    ('Linear', torch.Size([2, 5]))
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        warnings.warn(
            "Lazy modules are a new feature under heavy development so changes to the API or "
            "functionality can happen at any moment.",
            stacklevel=2,
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        # placeholders are saved as they are (detach would touch their missing data)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:  # fmt: skip
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                input_param = state_dict[key]
                if not is_lazy(input_param):
                    with numtorch.no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Shape the placeholders from the forward's arguments (each lazy class defines it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy forward "
            "pass to correctly initialize the modules"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear layer whose ``in_features`` is read from the first input's last dimension.

    >>> m = numtorch.nn.LazyLinear(4); m(numtorch.ones(2, 3)).shape, m.in_features
    (torch.Size([2, 4]), 3)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**kw)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**kw)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with numtorch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._num_spatial + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to {self.__class__.__name__}, "
                f"but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return self._num_spatial


def _placeholders(self, out_channels, bias, kw) -> None:
    self.weight = UninitializedParameter(**kw)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(**kw)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A Conv1d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConv1d(4, 1); m(numtorch.ones(1, 2, 3)).shape[1], m.in_channels
    (4, 2)
    """

    cls_to_become = Conv1d
    _num_spatial = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, **kw)
        _placeholders(self, out_channels, bias, kw)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A Conv2d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConv2d(4, 1); m(numtorch.ones(1, 2, 3, 3)).shape[1], m.in_channels
    (4, 2)
    """

    cls_to_become = Conv2d
    _num_spatial = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, **kw)
        _placeholders(self, out_channels, bias, kw)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A Conv3d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConv3d(4, 1); m(numtorch.ones(1, 2, 3, 3, 3)).shape[1], m.in_channels
    (4, 2)
    """

    cls_to_become = Conv3d
    _num_spatial = 3

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, **kw)
        _placeholders(self, out_channels, bias, kw)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A ConvTranspose1d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConvTranspose1d(4, 2); m(numtorch.ones(1, 2, 3)).shape, m.in_channels
    (torch.Size([1, 4, 4]), 2)
    """

    cls_to_become = ConvTranspose1d
    _num_spatial = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **kw)  # fmt: skip
        _placeholders(self, out_channels, bias, kw)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A ConvTranspose2d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConvTranspose2d(4, 2); m(numtorch.ones(1, 2, 3, 3)).shape, m.in_channels
    (torch.Size([1, 4, 4, 4]), 2)
    """

    cls_to_become = ConvTranspose2d
    _num_spatial = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **kw)  # fmt: skip
        _placeholders(self, out_channels, bias, kw)


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """A ConvTranspose3d whose ``in_channels`` is read from the first input.

    >>> m = numtorch.nn.LazyConvTranspose3d(4, 2); m(numtorch.ones(1, 2, 3, 3, 3)).shape, m.in_channels
    (torch.Size([1, 4, 4, 4, 4]), 2)
    """

    cls_to_become = ConvTranspose3d
    _num_spatial = 3

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **kw)  # fmt: skip
        _placeholders(self, out_channels, bias, kw)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        # affine and track_running_stats off here: no tensors that the placeholders replace at once
        super().__init__(0, eps, momentum, False, False, **kw, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**kw)
            if bias:
                self.bias = UninitializedParameter(**kw)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            self.num_batches_tracked = numtorch.tensor(0, dtype=D.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _dims_check(allowed):
    def check(self, input):
        if input.dim() not in allowed:
            want = " or ".join(f"{d}D" for d in allowed)
            raise ValueError(f"expected {want} input (got {input.dim()}D input)")

    return check


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyBatchNorm1d(); _ = m(numtorch.randn(4, 3)); m.num_features, type(m).__name__
    (3, 'BatchNorm1d')
    """

    cls_to_become = BatchNorm1d
    _check_input_dim = _dims_check((2, 3))


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyBatchNorm2d(); _ = m(numtorch.randn(2, 3, 2, 2)); m.num_features
    3
    """

    cls_to_become = BatchNorm2d
    _check_input_dim = _dims_check((4,))


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyBatchNorm3d(); _ = m(numtorch.randn(2, 3, 2, 2, 2)); m.num_features
    3
    """

    cls_to_become = BatchNorm3d
    _check_input_dim = _dims_check((5,))


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm1d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyInstanceNorm1d(); _ = m(numtorch.randn(2, 3, 4)); m.num_features
    3
    """

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2
    _check_input_dim = _dims_check((2, 3))


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm2d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyInstanceNorm2d(); _ = m(numtorch.randn(2, 3, 4, 4)); m.num_features
    3
    """

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3
    _check_input_dim = _dims_check((3, 4))


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm3d whose ``num_features`` is read from the first input.

    >>> m = numtorch.nn.LazyInstanceNorm3d(); _ = m(numtorch.randn(2, 3, 2, 2, 2)); m.num_features
    3
    """

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
    _check_input_dim = _dims_check((4, 5))
