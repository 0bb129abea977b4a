"""prelu, rrelu, channel_shuffle / native_channel_shuffle, max_unpool2d/3d (aten composites), and the
functions PyTorch writes in Python over them and over pooling: local_response_norm, lp_pool1d,
lp_pool2d, max_unpool1d/2d/3d."""

from __future__ import annotations

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import _make
from .._pointwise import Pointwise, _cname, defpointwise
from .._registry import defop, public
from . import _prelu_grad, prelu_rows, unpool_node
from . import pooling as _pool

_F = "torch.nn.functional"
aten = _ops.aten  # Note [Composite bodies are below the Python API]


# ---- prelu -----------------------------------------------------------------------------------------------
def _prelu(self, weight):
    if self.dtype is not weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {_cname(self.dtype)} and {_cname(weight.dtype)}"
        )
    nd = self.dim()
    if weight.numel() != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self.shape[1] if nd > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if nd > 3 and weight.numel() > 1 and self.is_contiguous():
        # (N, C, H, W, ...) as (N, C, H*W*...): the kernel's rows are then whole channel planes
        # with one weight each, not rows of W (Note [Broadcast rows])
        size = self.shape
        flat = dispatch(_prelu_kernel, [self.reshape(size[0], size[1], -1), weight.reshape(1, -1, 1)])
        return flat.reshape(size)
    w = weight
    if nd != weight.dim():
        shape = [1] * nd
        if nd > 1:
            shape[1] = weight.numel()
        w = weight.reshape(shape)
    return dispatch(_prelu_kernel, [self, w])


# Note [Fused prelu]: one generated kernel forward (the composite where(x > 0, x, w * x) ran
# three ops: 7.7x PyTorch's time on (32, 64, 8, 8)), and PyTorch's _prelu_kernel_backward,
# two more kernels, whose weight gradient the engine sums to the weight's (1, C, 1, ...) shape.
_PRELU_GRADS = (
    Pointwise("prelu_grad_self", ["grad", "self", "weight"], "grad if self > 0 else weight * grad"),
    Pointwise("prelu_grad_weight", ["grad", "self", "weight"], "type(self)(0) if self > 0 else self * grad"),
)
_prelu_kernel_backward = defop(
    "_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (Tensor, Tensor)",
    cpu=lambda grad_output, self, weight: _prelu_grad.cpu(grad_output, self, weight, _PRELU_GRADS),
    cuda=lambda grad_output, self, weight: (grad_output.where(self > 0, weight * grad_output),
                                            (self * grad_output).where(~(self > 0), 0.0)),
    # derivatives.yaml's (its self >= 0; the engine passes zeros for a missing grads[i])
    backward={
        "grad_output": lambda grads, self, weight: grads[0].where(self >= 0, grads[0] * weight + grads[1] * self),
        "self": lambda grads, grad_output, self: (grad_output * grads[1]).where(~(self >= 0), 0.0),
        "weight": lambda grads, grad_output, self: (grad_output * grads[0]).where(~(self >= 0), 0.0),
    },
)
_prelu_kernel = defpointwise(
    "_prelu_kernel(Tensor self, Tensor weight) -> Tensor",
    Pointwise("_prelu_kernel", ["self", "weight"], "self if self > 0 else weight * self"),
    # one joint formula: the kernel gives both gradients in one call, as PyTorch's derivative
    backward={("self", "weight"): lambda grad, self, weight: dispatch(_prelu_kernel_backward, [grad, self, weight])},
    holomorphic=False, inplace=False, out=False, function=False, method=False,
)["functional"]  # fmt: skip
_prelu_binary = _prelu_kernel.impls["cpu"]


def _prelu_kernel_cpu(self, weight):
    lay = prelu_rows.layout(self, weight)
    return _prelu_binary(self, weight) if lay is None else prelu_rows.forward(self, weight, lay)  # Note [PReLU rows]


_prelu_kernel.impls["cpu"] = _prelu_kernel_cpu
prelu = defop("prelu(Tensor self, Tensor weight) -> Tensor", composite=_prelu)


# ---- rrelu ------------------------------------------------------------------------------------------------
def _rrelu(self, lower, upper, training, generator):
    if not training:
        # ATen's rrelu_with_noise in eval: leaky_relu with the mean slope (one fused kernel and
        # leaky_relu_backward, not gt + mul + where: 3x PyTorch's time; the slope is rounded to
        # the input's dtype as there)
        return aten.leaky_relu.default(self, (lower + upper) / 2)
    # one slope per element drawn from U(lower, upper), as ATen's rrelu_with_noise
    slope = self.detach().new_empty(self.shape).uniform_(lower, upper, generator=generator)
    return self.where(self > 0, self * slope)


rrelu = defop(
    "rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, "
    "Generator? generator=None) -> Tensor",
    composite=_rrelu,
)


# ---- channel shuffle ---------------------------------------------------------------------------------------
def _channel_shuffle_dtype(self):
    # after the shape checks, as PyTorch's CPU kernel, which an empty input never reaches
    if self._dtype._rank > 10 and self._data.size:  # Note [Wide unsigned dtypes]
        raise NotImplementedError(f"\"channel_shuffle\" not implemented for '{D._CXX_NAMES[self._dtype.name]}'")


def _channel_shuffle_check(self, groups):
    if self.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(self.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = self.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )


def _channel_shuffle(self, groups):
    _channel_shuffle_check(self, groups)
    if self.device.type == "cpu":
        _channel_shuffle_dtype(self)
    n, c, rest = self.shape[0], self.shape[1], list(self.shape[2:])
    x = self.reshape([n, groups, c // groups] + rest).transpose(1, 2)
    return x.reshape([n, c] + rest)


# Note [channel_shuffle's own node]
# ATen's channel_shuffle is CompositeExplicitAutograd over its CPU kernel, with derivatives.yaml's
# ``channel_shuffle(grad, grad.size(1) / groups)`` (ChannelShuffleBackward0: the inverse
# shuffle). Recording the decomposition instead built four nodes (view, transpose, clone,
# unsafe view) and ran their four backwards. The CPU kernel is the decomposition's copy (C
# order) for every groups, 1 and C included, as PyTorch's kernel copies; native_channel_shuffle
# stays the decomposition (math_channel_shuffle), and other devices run it below autograd.
def _channel_shuffle_cpu(self, groups):
    _channel_shuffle_check(self, groups)
    _channel_shuffle_dtype(self)
    a = self._data
    c = a.shape[1]
    y = a.reshape((a.shape[0], groups, c // groups) + a.shape[2:]).swapaxes(1, 2)
    return _make(y.copy(order="C").reshape(a.shape), self._dtype)


channel_shuffle = defop(
    "channel_shuffle(Tensor self, SymInt groups) -> Tensor",
    cpu=_channel_shuffle_cpu,
    any_device=_channel_shuffle,
    backward={
        "self": lambda grad, groups: dispatch(channel_shuffle, [grad, grad.shape[1] // groups])
    },
)
native_channel_shuffle = defop(
    "native_channel_shuffle(Tensor self, SymInt groups) -> Tensor", composite=_channel_shuffle
)


# ---- max unpool ------------------------------------------------------------------------------------------
def _max_unpool(self, indices, output_size, n):
    if indices.dtype is not D.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_cname(indices.dtype)}")
    if list(self.shape) != list(indices.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(self.shape)}) but got "
            f"indices tensor with shape: {list(indices.shape)}"
        )
    if self.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
            f"{self.dim()} dimensions."
        )
    batched = self.dim() == n + 2
    x, idx = (self, indices) if batched else (self.unsqueeze(0), indices.unsqueeze(0))
    nb, c = x.shape[0], x.shape[1]
    volume = 1
    for s in output_size:
        volume *= s
    flat_idx = idx.reshape(nb, c, -1)
    if flat_idx.numel() and not flat_idx.is_meta:  # index values are unknown on meta
        lo, hi = int(flat_idx.min()), int(flat_idx.max())
        if lo < 0 or hi >= volume:
            bad = lo if lo < 0 else hi
            sizes = "x".join(str(s) for s in output_size)
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {sizes})")
    out = x.new_zeros((nb, c, volume)).scatter(2, flat_idx, x.reshape(nb, c, -1))
    out = out.reshape([nb, c] + list(output_size))
    return out if batched else out.squeeze(0)


# Note [max_unpool's own node]
max_unpool2d = defop(
    "max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor",
    any_device=lambda self, indices, output_size: unpool_node.kernel(
        self, indices, output_size, 2, _max_unpool
    ),
    backward={"self": lambda grad, indices: unpool_node.grad(grad, indices, 2)},
)
max_unpool3d = defop(
    "max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor",
    any_device=lambda self, indices, output_size, stride, padding: unpool_node.kernel(
        self, indices, output_size, 3, _max_unpool
    ),
    backward={"self": lambda grad, indices: unpool_node.grad(grad, indices, 3)},
)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of "
            f"'{len(output_size)}'"
        )
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _unpool_args(input, kernel_size, stride, padding, output_size, n):
    k = _tuple(kernel_size, n)
    st = _tuple(stride, n) if stride is not None else k
    pad = _tuple(padding, n)
    return st, pad, _unpool_output_size(input, k, st, pad, output_size)


def _f_max_unpool1d(input, indices, kernel_size, stride, padding, output_size):
    """Place each value of ``input`` at its ``indices`` (from max_pool1d) in a zero tensor.

    >>> numtorch.nn.functional.max_unpool1d(numtorch.tensor([[[5.0]]]), numtorch.tensor([[[1]]]), 2)
    tensor([[[0., 5.]]])
    """
    _, _, size = _unpool_args(input, kernel_size, stride, padding, output_size, 1)
    out = dispatch(max_unpool2d, [input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]])
    return out.squeeze(-1)


def _f_max_unpool2d(input, indices, kernel_size, stride, padding, output_size):
    """The partial inverse of max_pool2d: values at their ``indices``, zeros elsewhere.

    >>> numtorch.nn.functional.max_unpool2d(numtorch.tensor([[[[5.0]]]]), numtorch.tensor([[[[3]]]]), 2)
    tensor([[[[0., 0.],
              [0., 5.]]]])
    """
    _, _, size = _unpool_args(input, kernel_size, stride, padding, output_size, 2)
    return dispatch(max_unpool2d, [input, indices, list(size)])


def _f_max_unpool3d(input, indices, kernel_size, stride, padding, output_size):
    """The partial inverse of max_pool3d.

    >>> x = numtorch.ones(1, 1, 1, 1, 1)
    >>> numtorch.nn.functional.max_unpool3d(x, numtorch.tensor([[[[[7]]]]]), 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 1.])
    """
    st, pad, size = _unpool_args(input, kernel_size, stride, padding, output_size, 3)
    return dispatch(max_unpool3d, [input, indices, list(size), list(st), list(pad)])


# ---- torch.nn.functional ------------------------------------------------------------------------------------
def _f_prelu(input, weight):
    """max(0, x) + weight * min(0, x), with one weight or one per channel.

    >>> numtorch.nn.functional.prelu(numtorch.tensor([-2.0, 3.0]), numtorch.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    return dispatch(prelu, [input, weight])


def _f_rrelu(input, lower, upper, training, inplace):
    """Leaky ReLU with a random slope in [lower, upper] per element when training, their mean in eval.

    >>> numtorch.nn.functional.rrelu(numtorch.tensor([-2.0, 3.0]), 0.25, 0.25)
    tensor([-0.5000,  3.0000])
    """
    out = dispatch(rrelu, [input, lower, upper, training, None])
    return input.copy_(out) if inplace else out


def _f_rrelu_(input, lower, upper, training):
    """In-place rrelu.

    >>> numtorch.nn.functional.rrelu_(numtorch.tensor([-2.0, 3.0]), 0.25, 0.25)
    tensor([-0.5000,  3.0000])
    """
    return input.copy_(dispatch(rrelu, [input, lower, upper, training, None]))


def _t_rrelu(input, lower, upper, training, generator):
    """The ``aten::rrelu`` op as ``torch.rrelu``.

    >>> numtorch.rrelu(numtorch.tensor([-2.0, 3.0]), 0.25, 0.25)
    tensor([-0.5000,  3.0000])
    """
    return dispatch(rrelu, [input, lower, upper, training, generator])


def _f_channel_shuffle(input, groups):
    """Interleave the channels of ``groups`` groups.

    >>> numtorch.nn.functional.channel_shuffle(numtorch.arange(4.0).view(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return dispatch(channel_shuffle, [input, groups])


def _f_native_channel_shuffle(input, groups):
    """channel_shuffle, as the op PyTorch's ChannelShuffle module calls.

    >>> numtorch.native_channel_shuffle(numtorch.arange(4.0).view(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return dispatch(native_channel_shuffle, [input, groups])


def _f_local_response_norm(input, size, alpha, beta, k):
    """Normalize each element by the squares of its ``size`` neighbouring channels.

    >>> numtorch.nn.functional.local_response_norm(numtorch.ones(1, 2, 1), 2).shape
    torch.Size([1, 2, 1])
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    if dim > 3 and input.dtype in (D.float16, D.bfloat16) and input.device.type == "cpu":  # avg_pool3d
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{_cname(input.dtype)}'")
    c = input.shape[1]
    # the channel window average of avg_pool over zero padding (count_include_pad): pad dim 1
    pad = [0, 0] * (dim - 2) + [size // 2, (size - 1) // 2]
    sq = aten.constant_pad_nd.default(input * input, pad, 0.0)
    div = sq.narrow(1, 0, c)
    for i in range(1, size):
        div = div + sq.narrow(1, i, c)
    div = (div / size * alpha + k) ** beta
    return input / div


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _lp_finish(out, window, norm_type):
    return (out.sign() * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def _f_lp_pool1d(input, norm_type, kernel_size, stride, ceil_mode):
    """Power-average pooling: (sum of x^p over the window)^(1/p).

    >>> numtorch.nn.functional.lp_pool1d(numtorch.tensor([[[3.0, 4.0]]]), 2, 2)
    tensor([[[5.]]])
    """
    stride = [] if stride is None else stride
    out = dispatch(_pool.avg_pool1d, [input.pow(norm_type), kernel_size, stride, 0, ceil_mode, True])
    return _lp_finish(out, kernel_size, norm_type)


def _f_lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode):
    """2-D power-average pooling.

    >>> numtorch.nn.functional.lp_pool2d(numtorch.full((1, 1, 2, 2), 2.0), 1, 2)
    tensor([[[[8.]]]])
    """
    kw, kh = _pair(kernel_size)
    stride = [] if stride is None else stride
    out = dispatch(_pool.avg_pool2d, [input.pow(norm_type), kernel_size, stride, 0, ceil_mode, True, None])
    return _lp_finish(out, kw * kh, norm_type)


public("prelu", "input, weight", _f_prelu, relevant=("input", "weight"), module=_F, ops=(prelu,))
public("prelu", "input, weight", _f_prelu, relevant=("input", "weight"), ops=(prelu,))
public("channel_shuffle", "input, groups", _f_channel_shuffle, module=_F, ops=(channel_shuffle,))
public("channel_shuffle", "input, groups", _f_channel_shuffle, ops=(channel_shuffle,))
public("native_channel_shuffle", "input, groups", _f_native_channel_shuffle, module=_F,
       ops=(native_channel_shuffle,))  # fmt: skip
public("native_channel_shuffle", "input, groups", _f_native_channel_shuffle, ops=(native_channel_shuffle,))
public("local_response_norm", "input, size, alpha=0.0001, beta=0.75, k=1.0", _f_local_response_norm, module=_F)
public("lp_pool1d", "input, norm_type, kernel_size, stride=None, ceil_mode=False", _f_lp_pool1d, module=_F)
public("lp_pool2d", "input, norm_type, kernel_size, stride=None, ceil_mode=False", _f_lp_pool2d, module=_F)
_UNPOOL_SIG = "input, indices, kernel_size, stride=None, padding=0, output_size=None"
public("max_unpool1d", _UNPOOL_SIG, _f_max_unpool1d, relevant=("input", "indices"), module=_F, ops=(max_unpool2d,))
public("max_unpool2d", _UNPOOL_SIG, _f_max_unpool2d, relevant=("input", "indices"), module=_F, ops=(max_unpool2d,))
public("max_unpool3d", _UNPOOL_SIG, _f_max_unpool3d, relevant=("input", "indices"), module=_F, ops=(max_unpool3d,))
public("rrelu", "input, lower=0.125, upper=0.3333333333333333, training=False, inplace=False", _f_rrelu, module=_F,
       ops=(rrelu,))  # fmt: skip
public("rrelu_", "input, lower=0.125, upper=0.3333333333333333, training=False", _f_rrelu_, module=_F, ops=(rrelu,))
public("rrelu", "input, lower=0.125, upper=0.3333333333333333, training=False, generator=None", _t_rrelu,
       ops=(rrelu,))  # fmt: skip
