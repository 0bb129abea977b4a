"""Spatial sampling and random relaxations: ``affine_grid`` (``affine_grid_generator``),
``grid_sample`` (``grid_sampler``: bilinear / nearest / bicubic, zeros / border / reflection
padding, 4-D and 5-D input) and ``gumbel_softmax``.

# Note [grid_sampler is a composite]
# The sampler is written with numtorch ops: source coordinates from the grid (PyTorch's
# grid_sampler_compute_source_index: unnormalize, then clip or reflect), integer corners by floor,
# the corner values by one gather per corner from the flattened input (out-of-range corners
# masked to zero), and the interpolation weights from the fractional parts. Autograd then gives
# both gradients with PyTorch's semantics: w.r.t. the input through gather's scatter-add, w.r.t.
# the grid through the weights (clamp and floor contribute 0 where PyTorch's formulas do).
# 5-D input runs it as is; 4-D input goes to grid_sampler_2d (Note [Fused grid_sampler_2d]).

# Note [Fused grid_sampler_2d]
# As PyTorch, grid_sampler sends 4-D input to aten.grid_sampler_2d, whose derivative is
# aten.grid_sampler_2d_backward: two kernels (kernels/cpu/nn/grid_sample.py) that compute the
# composite's forward step for step (same results bit for bit) and PyTorch's backward formulas,
# ~300 us -> ~10 us on a small case. When the backward is itself recorded (create_graph), the
# gradient comes from the composite's graph instead, so higher derivatives exist (PyTorch's
# grid_sampler_2d_backward is differentiable too).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._factory_utils import space_array
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import _make
from ...autograd._api import grad as autograd_grad
from ...autograd.grad_mode import enable_grad, no_grad
from ...kernels import lazy
from .._meta_shapes import SHAPE_RULES
from .._pointwise import _cname
from .._registry import defop, public

aten = _ops.aten  # Note [Composite bodies are below the Python API]
GS = lazy("numtorch.kernels.cpu.nn.grid_sample")
_F = "torch.nn.functional"
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
_MODES, _PADS = GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES


# ---- affine_grid -----------------------------------------------------------------------------------
def _linspace_from_neg_one(theta, steps, align_corners):
    if steps <= 1:
        return theta.new_zeros(1)
    r = aten.linspace.default(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return r if align_corners else r * ((steps - 1) / steps)


def _affine_grid_generator(theta, size, align_corners):
    N, spatial = size[0], list(size[2:])
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in reversed(spatial)]  # x, y(, z)
    mesh = aten.meshgrid.indexing(list(reversed(axes)), indexing="ij")  # (z,) y, x order
    coords = [*reversed(mesh), aten.ones_like.default(mesh[0])]
    base = aten.stack.default(coords, -1).reshape(1, -1, len(coords))
    grid = base.expand(N, -1, -1) @ theta.transpose(1, 2)
    return grid.reshape(N, *spatial, len(spatial))


# Note [affine_grid_generator is one op]
# As PyTorch's, the op is opaque to dispatch modes and its derivative is written in ops
# (affine_grid_generator_backward is a composite there): grad_theta = base^T @ grad. On CPU the
# base grid (PyTorch's make_base_grid: linspace per axis, meshgrid, a ones column) is NumPy and
# the product one np.matmul, ~115 -> ~10 us for a small grid; CUDA and float16 run the composite.
def _base_grid(dt, spatial, align_corners):
    if math.prod(spatial) <= 4096:  # small grids repeat (a model's one size): kept, read-only
        return _small_base_grid(dt, tuple(spatial), align_corners)
    return _make_base_grid(dt, spatial, align_corners)


@functools.lru_cache(maxsize=32)
def _small_base_grid(dt, spatial, align_corners):
    base = _make_base_grid(dt, spatial, align_corners)
    base.flags.writeable = False
    return base


def _make_base_grid(dt, spatial, align_corners):
    axes = []
    for s in reversed(spatial):  # x, y(, z)
        if s <= 1:
            axes.append(np.zeros(1, dt.np))
            continue
        r = space_array(-1, 1, s, dt, "linspace")
        axes.append(r if align_corners else r * dt.np.type((s - 1) / s))
    mesh = np.meshgrid(*reversed(axes), indexing="ij")
    coords = [*reversed(mesh), np.ones_like(mesh[0])]
    return np.stack(coords, -1).reshape(-1, len(coords))


def _affine_grid_generator_cpu(theta, size, align_corners):
    size = [int(s) for s in size]
    if theta._dtype not in (D.float32, D.float64):
        with no_grad():
            return _affine_grid_generator(theta, size, align_corners)
    base = _base_grid(theta._dtype, size[2:], align_corners)
    out = np.matmul(base, np.asarray(theta._data).transpose(0, 2, 1))
    return _make(np.ascontiguousarray(out).reshape(size[0], *size[2:], len(size) - 2), theta._dtype)


def _affine_grid_generator_cuda(theta, size, align_corners):
    with no_grad():
        return _affine_grid_generator(theta, [int(s) for s in size], align_corners)


def _affine_grid_grad(grad, size, align_corners):
    size = [int(s) for s in size]
    base = _make(_base_grid(grad._dtype, size[2:], align_corners), grad._dtype)
    if grad.device.type != "cpu":
        base = base.to(grad.device)
    return (base.t() @ grad.reshape(size[0], -1, len(size) - 2)).transpose(1, 2)


affine_grid_generator = defop(
    "affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor",
    cpu=_affine_grid_generator_cpu,
    cuda=_affine_grid_generator_cuda,
    backward={"theta": _affine_grid_grad},
)
SHAPE_RULES["affine_grid_generator"] = lambda a: (a["size"][0], *a["size"][2:], len(a["size"]) - 2)


def _f_affine_grid(theta, size, align_corners):
    """The sampling grid of a batch of affine matrices (N x 2 x 3 or N x 3 x 4), for ``grid_sample``.

    >>> numtorch.nn.functional.affine_grid(numtorch.tensor([[[1.0, 0, 0], [0, 1, 0]]]), [1, 1, 1, 2], align_corners=True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
            "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
            "details.",
            stacklevel=2,
        )
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {tuple(size)}. Got "
                             f"{theta.shape}.")  # fmt: skip
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {tuple(size)}. Got "
                             f"{theta.shape}.")  # fmt: skip
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {tuple(size)}.")  # fmt: skip
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    return dispatch(affine_grid_generator, [theta, size, bool(align_corners)])


# ---- grid_sampler ------------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twin_low, twin_high):
    if twin_low == twin_high:
        return aten.zeros_like.default(coord)
    lo, span = twin_low / 2, (twin_high - twin_low) / 2
    coord = (coord - lo).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    return aten.where.self(flips.fmod(2) == 0, extra + lo, span - extra + lo)


def _pad_coord(coord, size, padding_mode, align_corners):
    if padding_mode == 1:
        return coord.clamp(0, size - 1)
    if padding_mode == 2:
        twin = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return _reflect(coord, *twin).clamp(0, size - 1)
    return coord


def _gather(flat, idx_list, sizes, out_shape):
    """Values of ``flat`` (N, C, prod(sizes)) at integer coordinates, 0 outside the volume."""
    inside = None
    lin = None
    for idx, s in zip(idx_list, sizes, strict=True):
        ok = (idx >= 0) & (idx <= s - 1)
        inside = ok if inside is None else inside & ok
        ci = idx.clamp(0, s - 1).long()
        lin = ci if lin is None else lin * s + ci
    N, C = flat.shape[0], flat.shape[1]
    vals = flat.gather(2, lin.reshape(N, 1, -1).expand(N, C, -1)).reshape(N, C, *out_shape)
    return vals * inside.reshape(N, 1, *out_shape).to(flat.dtype)


def _cubic_coeffs(t):
    A = -0.75
    c = lambda x: ((A + 2) * x - (A + 3)) * x * x + 1  # noqa: E731  |x| <= 1
    f = lambda x: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A  # noqa: E731  1 < |x| < 2
    return [f(t + 1), c(t), c(1 - t), f(2 - t)]


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    sp = list(input.shape[2:])
    nd = len(sp)
    N, C = input.shape[0], input.shape[1]
    out_shape = list(grid.shape[1:-1])
    flat = input.reshape(N, C, -1)
    # grid's last dim is (x, y[, z]): reversed to the input's (.., H, W) order
    raw = [_unnormalize(grid[..., nd - 1 - i], sp[i], align_corners) for i in range(nd)]
    if interpolation_mode == 2:
        return _bicubic(flat, raw, sp, out_shape, padding_mode, align_corners)
    coords = [_pad_coord(raw[i], sp[i], padding_mode, align_corners) for i in range(nd)]
    if interpolation_mode == 1:
        return _gather(flat, [c.round() for c in coords], sp, out_shape)
    lows = [c.floor() for c in coords]
    out = None
    for corner in range(1 << nd):
        idx, w = [], None
        for i in range(nd):
            hi = (corner >> (nd - 1 - i)) & 1
            idx.append(lows[i] + hi)
            wi = (coords[i] - lows[i]) if hi else (lows[i] + 1 - coords[i])
            w = wi if w is None else w * wi
        term = _gather(flat, idx, sp, out_shape) * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(flat, raw, sp, out_shape, padding_mode, align_corners):
    lows = [c.floor() for c in raw]
    coeffs = [_cubic_coeffs(raw[i] - lows[i]) for i in range(2)]
    out = None
    for a in range(4):
        for b in range(4):
            iy = _pad_coord(lows[0] - 1 + a, sp[0], padding_mode, align_corners)
            ix = _pad_coord(lows[1] - 1 + b, sp[1], padding_mode, align_corners)
            w = (coeffs[0][a] * coeffs[1][b]).unsqueeze(1)
            term = _gather(flat, [iy, ix], sp, out_shape) * w
            out = term if out is None else out + term
    return out


def _check_grid_sampler(input, grid, interpolation_mode):
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")  # fmt: skip
    if input.dim() not in (4, 5) or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected grid to have same dimensionality as input, but got input "
                           f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")  # fmt: skip
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")  # fmt: skip
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")  # fmt: skip
    if interpolation_mode == 2 and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")  # fmt: skip


def _grid_sampler_checked(input, grid, interpolation_mode, padding_mode, align_corners):
    # Note [grid_sampler is a composite]
    if input.dim() == 4 and input.device.type != "cuda":  # CUDA: the composite's ops have kernels there
        return dispatch(grid_sampler_2d, [input, grid, interpolation_mode, padding_mode, align_corners])
    _check_grid_sampler(input, grid, interpolation_mode)
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _gs2d_arrays(input, grid, name):
    xs, gs = input._data.shape, grid._data.shape
    if not (input._dtype is grid._dtype and len(xs) == len(gs) == 4 and xs[0] == gs[0] and gs[3] == 2 and xs[2]
            and xs[3]):  # fmt: skip
        _check_grid_sampler(input, grid, 0)
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(xs)} and grid with sizes {list(gs)}")  # fmt: skip
    if input._dtype.category != D._FLOAT:
        raise NotImplementedError(f"\"{name}\" not implemented for '{_cname(input._dtype)}'")
    dt = np.float32 if input._dtype is D.float16 else input._dtype.np  # float16 computes in float32
    return np.ascontiguousarray(input._data, dtype=dt), np.ascontiguousarray(grid._data, dtype=dt)


def _as(a, like):
    return _make(a if a.dtype == like._dtype.np else a.astype(like._dtype.np), like._dtype)


def _grid_sampler_2d_cpu(input, grid, interpolation_mode, padding_mode, align_corners):
    # Note [Fused grid_sampler_2d]
    x, g = _gs2d_arrays(input, grid, "grid_sampler_2d_cpu_kernel_impl")
    out = np.empty((x.shape[0], x.shape[1], g.shape[1], g.shape[2]), x.dtype)
    if out.size:
        GS.forward(x, g, out, int(interpolation_mode), int(padding_mode), bool(align_corners))
    return _as(out, input)


def _grid_sampler_2d_backward_cpu(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                  output_mask):  # fmt: skip
    x, g = _gs2d_arrays(input, grid, "grid_sampler_2d_backward_cpu_kernel_impl")
    go = np.ascontiguousarray(grad_output._data, dtype=x.dtype)
    gx = np.zeros(x.shape if output_mask[0] else (0, 0, 0, 0), x.dtype)
    gg = np.empty(g.shape, x.dtype)
    if g.size and x.size:
        GS.backward(go, x, g, gx, gg, int(interpolation_mode), int(padding_mode), bool(align_corners),
                    bool(output_mask[0]), bool(output_mask[1]))  # fmt: skip
    else:
        gg[...] = 0
    return (_as(gx, input) if output_mask[0] else None, _as(gg, grid) if output_mask[1] else None)


def _grid_sampler_2d_grad(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    args = [interpolation_mode, padding_mode, align_corners]
    if STATE.grad_enabled:  # create_graph: the composite's gradient, which differentiates again
        wrt = [t for t in (input, grid) if t.requires_grad]
        with enable_grad():
            out = _grid_sampler(input, grid, *args)
            got = iter(autograd_grad(out, wrt, grad, create_graph=True, allow_unused=True))
        return tuple(next(got) if t.requires_grad else None for t in (input, grid))
    mask = [input.requires_grad, grid.requires_grad]
    return dispatch(grid_sampler_2d_backward, [grad, input, grid, *args, mask if any(mask) else [True, True]])


grid_sampler = defop(
    "grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor",
    composite=_grid_sampler_checked,
)


grid_sampler_2d = defop(
    "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> "
    "Tensor",
    cpu=_grid_sampler_2d_cpu,
    backward={("input", "grid"): _grid_sampler_2d_grad},
)
grid_sampler_2d_backward = defop(
    "grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
    "int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)",
    cpu=_grid_sampler_2d_backward_cpu,
)

SHAPE_RULES["grid_sampler_2d"] = lambda a: tuple(a["input"]._data.shape[:2]) + tuple(a["grid"]._data.shape[1:3])
SHAPE_RULES["grid_sampler_2d_backward"] = lambda a: [tuple(a["input"]._data.shape), tuple(a["grid"]._data.shape)]


def _f_grid_sample(input, grid, mode, padding_mode, align_corners):
    """Sample ``input`` at the normalized (x, y[, z]) positions of ``grid`` in [-1, 1].

    >>> x = numtorch.arange(4.0).reshape(1, 1, 2, 2)
    >>> numtorch.nn.functional.grid_sample(x, numtorch.zeros(1, 1, 1, 2), align_corners=False)
    tensor([[[[1.5000]]]])
    """
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")  # fmt: skip
    if padding_mode not in _PADS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")  # fmt: skip
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
            "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
            "details.",
            stacklevel=2,
        )
        align_corners = False
    return dispatch(grid_sampler, [input, grid, _MODES[mode], _PADS[padding_mode], bool(align_corners)])


def _t_grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """The ``torch.grid_sampler`` form of grid_sample (integer mode codes).

    >>> numtorch.grid_sampler(numtorch.ones(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.]]]])
    """
    return dispatch(grid_sampler, [input, grid, interpolation_mode, padding_mode, align_corners])


def _t_affine_grid_generator(theta, size, align_corners):
    """The ``torch.affine_grid_generator`` form of affine_grid (no argument checks).

    >>> numtorch.affine_grid_generator(numtorch.tensor([[[1.0, 0, 0], [0, 1, 0]]]), [1, 1, 1, 1], False).shape
    torch.Size([1, 1, 1, 2])
    """
    return dispatch(affine_grid_generator, [theta, list(size), align_corners])


# ---- gumbel_softmax ----------------------------------------------------------------------------------
def _f_gumbel_softmax(logits, tau, hard, eps, dim):
    """Samples from the Gumbel-softmax distribution; ``hard=True`` returns one-hot samples whose
    gradient is the soft sample's (straight-through).

    >>> y = numtorch.nn.functional.gumbel_softmax(numtorch.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist()
    [1.0, 1.0]
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -aten.empty_like.default(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = aten.zeros_like.default(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


public("affine_grid", "theta, size, align_corners=None", _f_affine_grid, relevant=("theta",), module=_F,
       ops=(affine_grid_generator,))  # fmt: skip
public("affine_grid_generator", "theta, size, align_corners", _t_affine_grid_generator, relevant=("theta",),
       ops=(affine_grid_generator,))  # fmt: skip
public("grid_sample", "input, grid, mode='bilinear', padding_mode='zeros', align_corners=None", _f_grid_sample,
       relevant=("input", "grid"), module=_F, ops=(grid_sampler,))  # fmt: skip
public("grid_sampler", "input, grid, interpolation_mode, padding_mode, align_corners", _t_grid_sampler,
       relevant=("input", "grid"), ops=(grid_sampler,))  # fmt: skip
public("gumbel_softmax", "logits, tau=1, hard=False, eps=1e-10, dim=-1", _f_gumbel_softmax, relevant=("logits",),
       module=_F)  # fmt: skip
