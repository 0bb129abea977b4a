"""Activation modules (``nn.ReLU`` ... ``nn.Softmax``) and ``nn.MultiheadAttention``."""

from __future__ import annotations

import warnings

import numtorch

from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = [
    "Threshold", "ReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish", "Hardswish",
    "ELU", "CELU", "SELU", "GLU", "GELU", "LeakyReLU", "LogSigmoid", "Softplus", "Softsign", "Tanhshrink",
    "Softmin", "Softmax", "LogSoftmax", "MultiheadAttention", "Hardshrink", "Softshrink", "PReLU", "Softmax2d", "RReLU",
]  # fmt: skip


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class Threshold(Module):
    """y = x if x > threshold else value.

    >>> numtorch.nn.Threshold(0.5, -1.0)(numtorch.tensor([0.0, 1.0]))
    tensor([-1.,  1.])
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else ""
        )


class ReLU(Module):
    """max(x, 0).

    >>> numtorch.nn.ReLU()(numtorch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """Clamp to [min_val, max_val].

    >>> numtorch.nn.Hardtanh()(numtorch.tensor([-2.0, 0.5]))
    tensor([-1.0000,  0.5000])
    """

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        for old, new in (("min_value", "min_val"), ("max_value", "max_val")):
            if locals()[old] is not None:
                warnings.warn(
                    f"keyword argument `{old}` is deprecated and renamed to `{new}`",
                    FutureWarning,
                    stacklevel=2,
                )
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else ""
        )


class ReLU6(Hardtanh):
    """min(max(x, 0), 6).

    >>> numtorch.nn.ReLU6()(numtorch.tensor([-1.0, 7.0]))
    tensor([0., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


def _simple(name: str, fn, doc: str):
    def forward(self, input: Tensor) -> Tensor:
        return fn(input)

    return type(name, (Module,), {"forward": forward, "__doc__": doc, "__module__": __name__})


Sigmoid = _simple(
    "Sigmoid",
    lambda x: x.sigmoid(),
    "1 / (1 + exp(-x)).\n\n    >>> numtorch.nn.Sigmoid()("
    "numtorch.tensor([0.0]))\n    tensor([0.5000])\n",
)
Tanh = _simple(
    "Tanh",
    lambda x: x.tanh(),
    "Hyperbolic tangent.\n\n    >>> numtorch.nn.Tanh()(numtorch.tensor([0.0]))\n    tensor([0.])\n",
)
LogSigmoid = _simple(
    "LogSigmoid",
    lambda x: F.logsigmoid(x),
    "log(sigmoid(x)).\n\n    >>> numtorch.nn.LogSigmoid()("
    "numtorch.tensor([0.0]))\n    tensor([-0.6931])\n",
)
Softsign = _simple(
    "Softsign",
    lambda x: F.softsign(x),
    "x / (1 + |x|).\n\n    >>> numtorch.nn.Softsign()("
    "numtorch.tensor([1.0]))\n    tensor([0.5000])\n",
)
Tanhshrink = _simple(
    "Tanhshrink",
    lambda x: F.tanhshrink(x),
    "x - tanh(x).\n\n    >>> numtorch.nn.Tanhshrink()(numtorch.tensor([0.0]))\n    tensor([0.])\n",
)


class _InplaceAct(Module):
    __constants__ = ["inplace"]
    _fn = ""  # the functional's name, looked up per call: F is filled after the modules import

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._fn)(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class SiLU(_InplaceAct):
    """x * sigmoid(x).

    >>> numtorch.nn.SiLU()(numtorch.tensor([0.0]))
    tensor([0.])
    """

    _fn = "silu"


class Mish(_InplaceAct):
    """x * tanh(softplus(x)).

    >>> numtorch.nn.Mish()(numtorch.tensor([0.0]))
    tensor([0.])
    """

    _fn = "mish"


class Hardsigmoid(_InplaceAct):
    """clamp(x / 6 + 1/2, 0, 1).

    >>> numtorch.nn.Hardsigmoid()(numtorch.tensor([0.0]))
    tensor([0.5000])
    """

    _fn = "hardsigmoid"


class Hardswish(_InplaceAct):
    """x * hardsigmoid(x).

    >>> numtorch.nn.Hardswish()(numtorch.tensor([4.0]))
    tensor([4.])
    """

    _fn = "hardswish"


class SELU(_InplaceAct):
    """Scaled ELU.

    >>> numtorch.nn.SELU()(numtorch.tensor([0.0]))
    tensor([0.])
    """

    _fn = "selu"


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> numtorch.nn.ELU()(numtorch.tensor([1.0]))
    tensor([1.])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> numtorch.nn.CELU()(numtorch.tensor([1.0]))
    tensor([1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class GLU(Module):
    """a * sigmoid(b) for the two halves of ``dim``.

    >>> numtorch.nn.GLU()(numtorch.tensor([1.0, 0.0]))
    tensor([0.5000])
    """

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """Gaussian error linear unit.

    >>> numtorch.nn.GELU()(numtorch.tensor([0.0]))
    tensor([0.])
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    """x if x > 0 else negative_slope * x.

    >>> numtorch.nn.LeakyReLU(0.5)(numtorch.tensor([-2.0]))
    tensor([-1.])
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """log(1 + exp(beta x)) / beta.

    >>> numtorch.nn.Softplus()(numtorch.tensor([0.0]))
    tensor([0.6931])
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardshrink(Module):
    """0 inside [-lambd, lambd], x outside.

    >>> numtorch.nn.Hardshrink()(numtorch.tensor([0.3, 2.0]))
    tensor([0., 2.])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Shrink towards 0 by lambd.

    >>> numtorch.nn.Softshrink()(numtorch.tensor([0.3, 2.0]))
    tensor([0.0000, 1.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class _DimSoftmax(Module):
    __constants__ = ["dim"]

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_DimSoftmax):
    """softmax(-x) along ``dim``.

    >>> numtorch.nn.Softmin(0)(numtorch.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_DimSoftmax):
    """exp(x) / sum(exp(x)) along ``dim``.

    >>> numtorch.nn.Softmax(0)(numtorch.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimSoftmax):
    """log(softmax(x)) along ``dim``.

    >>> numtorch.nn.LogSoftmax(0)(numtorch.tensor([0.0, 0.0]))
    tensor([-0.6931, -0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W) input.

    >>> numtorch.nn.Softmax2d()(numtorch.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class RReLU(Module):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element when training
    and is (lower + upper) / 2 in eval.

    >>> numtorch.nn.RReLU(0.25, 0.25)(numtorch.tensor([-2.0, 3.0]))
    tensor([-0.5000,  3.0000])
    """

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class PReLU(Module):
    """max(0, x) + weight * min(0, x) with a learned ``weight`` (one, or one per channel).

    >>> numtorch.nn.PReLU()(numtorch.tensor([-1.0, 2.0])).detach()
    tensor([-0.2500,  2.0000])
    """

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(numtorch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """Multi-head attention over (L, N, E) inputs ((N, L, E) with ``batch_first``).

    >>> mha = numtorch.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = numtorch.ones(1, 3, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (torch.Size([1, 3, 8]), torch.Size([1, 3, 3]))
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None) -> None:  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} "
                "instead"
            )
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(numtorch.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(numtorch.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(numtorch.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(numtorch.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(numtorch.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(numtorch.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(numtorch.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):  # fmt: skip
        batched = query.dim() == 3
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights
