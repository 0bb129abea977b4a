"""Batch normalization: ``nn.BatchNorm1d``, ``nn.BatchNorm2d`` (and the shared ``_NormBase``)."""

from __future__ import annotations

import numtorch

from ... import _dtype as D
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _NormBase(Module):
    """Parameters and running statistics shared by batch and instance norm."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if self.affine:
            self.weight = Parameter(numtorch.empty(num_features, **kw))
            if bias:
                self.bias = Parameter(numtorch.empty(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", numtorch.zeros(num_features, **kw))
            self.register_buffer("running_var", numtorch.ones(num_features, **kw))
            self.register_buffer(
                "num_batches_tracked", numtorch.tensor(0, dtype=D.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")  # fmt: skip

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):  # fmt: skip
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # at version 2 num_batches_tracked became a buffer; older checkpoints lack it
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else numtorch.tensor(0, dtype=D.int64))  # fmt: skip
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)  # fmt: skip


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = (
                1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
            )
        bn_training = (
            True if self.training else (self.running_mean is None and self.running_var is None)
        )
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None, self.running_var if use_stats else None,
                            self.weight, self.bias, bn_training, factor, self.eps)  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) input.

    >>> bn = numtorch.nn.BatchNorm1d(1)
    >>> bn(numtorch.tensor([[1.0], [3.0]])).detach()
    tensor([[-1.0000],
            [ 1.0000]])
    >>> bn.running_mean
    tensor([0.2000])
    """

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) input.

    >>> numtorch.nn.BatchNorm2d(3)(numtorch.randn(2, 3, 4, 4)).shape
    torch.Size([2, 3, 4, 4])
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over (N, C, D, H, W) input.

    >>> numtorch.nn.BatchNorm3d(3)(numtorch.randn(2, 3, 2, 2, 2)).shape
    torch.Size([2, 3, 2, 2, 2])
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose training statistics are reduced across a process group.

    numtorch has no ``torch.distributed`` process group, so (as PyTorch does whenever no group is
    initialized) the forward is ordinary batch normalization over the local batch, in training and eval.

    >>> bn = numtorch.nn.SyncBatchNorm.convert_sync_batchnorm(numtorch.nn.Sequential(numtorch.nn.BatchNorm2d(3)))
    >>> type(bn[0]).__name__, bn[0](numtorch.randn(2, 3, 2, 2)).shape
    ('SyncBatchNorm', torch.Size([2, 3, 2, 2]))
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` replaced by a SyncBatchNorm sharing its parameters and buffers."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)  # fmt: skip
            if module.affine:
                with numtorch.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
