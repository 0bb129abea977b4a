"""Top-level functions PyTorch keeps beside its main ops, built from numtorch's own (so their
gradients are those ops'): ``range`` (deprecated), ``asarray``, ``frombuffer``,
``empty_permuted``, ``nonzero_static``, ``frobenius_norm``, ``norm_except_dim``,
``native_dropout``, the ``torch.adaptive_{avg,max}_pool1d``, ``rrelu_`` and ``i0_`` spellings
and ``Tensor.prelu``. Public bodies over the public API (not op declarations: Note [Composite bodies are below the
Python API]), so they live outside numtorch/ops; imported before the bindings are installed."""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype as D
from . import return_types
from ._factory_utils import cname
from ._tensor import Tensor, _make
from .ops._registry import body_of, public


def _nt():
    import numtorch

    return numtorch


def _range(start, end, step, out, dtype, layout, device, requires_grad):
    """Deprecated: ``[start, end]`` with ``end`` included (``arange`` excludes it).

    >>> numtorch.range(0, 2)
    tensor([0., 1., 2.])
    """
    if end is None:  # torch's parser: start and end are both required
        raise TypeError('range() missing 1 required positional arguments: "end"')
    nt = _nt()
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
        "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=3,
    )
    dt = dtype or D.get_default_dtype()
    if dt is D.bool or dt.is_complex:  # range_cpu's dispatch comes before its argument checks
        raise NotImplementedError(f"\"range_cpu\" not implemented for '{cname(dt)}'")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    r = nt.arange(n, dtype=D.float64 if dt.is_floating_point else D.int64) * step + start
    r = r.to(dt)
    if out is not None:
        return out.resize_(r.shape).copy_(r)
    return r.requires_grad_(requires_grad) if requires_grad else r


public("range", "start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False",
       _range, relevant=())  # fmt: skip


def _asarray(obj, dtype, device, copy, requires_grad):
    """``obj`` as a tensor, sharing memory where it can (a tensor, NumPy array or buffer) unless
    ``copy=True``; ``copy=False`` refuses to copy.

    >>> t = numtorch.ones(2); numtorch.asarray(t) is t
    True
    """
    nt = _nt()
    if isinstance(obj, Tensor):
        same = dtype is None or dtype is obj.dtype
        if copy is False and not same:
            raise ValueError("can't alias tensor from ndarray of different dtype without copying")
        r = obj.clone() if copy else obj
        r = r if same else r.to(dtype)
    elif isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__") or isinstance(obj, (bytes, bytearray, memoryview)):
        arr = np.asarray(obj) if not isinstance(obj, (bytes, bytearray, memoryview)) else np.frombuffer(obj, np.uint8)
        if copy is False and dtype is not None and np.dtype(dtype.np) != arr.dtype:
            raise ValueError("can't alias tensor from ndarray of different dtype without copying")
        r = nt.from_numpy(arr.copy() if copy else arr) if arr.flags.writeable else nt.tensor(arr)
        r = r if dtype is None else r.to(dtype)
    else:
        if copy is False:
            raise ValueError("can't alias tensor from a Python sequence without copying")
        r = nt.tensor(obj, dtype=dtype)
    if device is not None:
        r = r.to(device)
    return r.requires_grad_(True) if requires_grad else r


public("asarray", "obj, *, dtype=None, device=None, copy=None, requires_grad=False", _asarray, relevant=())


def _frombuffer(buffer, dtype, count, offset, requires_grad):
    """A 1-D tensor over the memory of a Python buffer (shared, not copied).

    >>> numtorch.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=numtorch.int16)
    tensor([1, 2], dtype=torch.int16)
    """
    nt = _nt()
    mv = memoryview(buffer)
    nbytes, item = mv.nbytes, dtype.itemsize
    if nbytes <= 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not 0 <= offset < nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({nbytes} bytes) minus 1")  # fmt: skip
    if count < 0 and (nbytes - offset) % item:
        raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({item})")  # fmt: skip
    n = (nbytes - offset) // item if count < 0 else count
    if count > 0 and offset + n * item > nbytes:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not be "
                         f"greater than actual buffer length ({nbytes} bytes)")  # fmt: skip
    if mv.readonly:
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors.",
                      UserWarning, stacklevel=3)  # fmt: skip
    arr = np.frombuffer(buffer, dtype=dtype.np, count=n, offset=offset)
    t = nt.from_numpy(arr) if arr.flags.writeable else _make(arr, dtype)
    return t.requires_grad_(True) if requires_grad else t


public("frombuffer", "buffer, *, dtype, count=-1, offset=0, requires_grad=False", _frombuffer, relevant=())


def _empty_permuted(size, physical_layout, dtype, layout, device, pin_memory, requires_grad):
    """An uninitialised tensor of logical ``size`` whose memory is laid out in the dim order
    ``physical_layout`` (outermost first).

    >>> numtorch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    nt = _nt()
    size, perm = tuple(size), tuple(physical_layout)
    if sorted(perm) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")  # fmt: skip
    phys = nt.empty([size[d] for d in perm], dtype=dtype, device=device, requires_grad=False)
    r = phys.permute(*np.argsort(perm).tolist())
    return r.requires_grad_(True) if requires_grad else r


public("empty_permuted", "size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=False, "
       "requires_grad=False", _empty_permuted, relevant=())  # fmt: skip


def _nonzero_static(input, size, fill_value):
    """The first ``size`` rows of ``nonzero(input)``, padded with ``fill_value`` (a static shape).

    >>> numtorch.nonzero_static(numtorch.tensor([0, 1, 0, 2]), size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    nz = input.nonzero()
    if nz.shape[0] >= size:
        return nz[:size].clone()
    pad = _nt().full((size - nz.shape[0], input.ndim), fill_value, dtype=D.int64)
    return _nt().cat([nz, pad], 0)


public("nonzero_static", "input, *, size, fill_value=-1", _nonzero_static)
public("nonzero_static", "self, *, size, fill_value=-1", _nonzero_static, relevant=("self",), module="Tensor")


def _frobenius_norm(input, dim, keepdim, out):
    """The 2-norm over ``dim`` (``sqrt(sum(|x|^2))``).

    >>> numtorch.frobenius_norm(numtorch.tensor([[3.0, 4.0]]), (0, 1))
    tensor(5.)
    """
    r = _nt().linalg.vector_norm(input, 2, dim, keepdim)
    return r if out is None else out.resize_(r.shape).copy_(r)


public("frobenius_norm", "input, dim, keepdim=False, *, out=None", _frobenius_norm)


def _norm_except_dim(v, pow, dim):  # noqa: A002 - torch's parameter name
    """The ``pow``-norm of ``v`` over every dim except ``dim`` (``dim=-1``: over all), keeping
    ``dim``'s size and 1 elsewhere (weight normalisation's norm).

    >>> numtorch.norm_except_dim(numtorch.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0).flatten()
    tensor([5., 1.])
    """
    nt = _nt()
    if dim == -1:
        return nt.linalg.vector_norm(v, pow)
    d = dim % v.ndim
    others = [i for i in range(v.ndim) if i != d]
    return nt.linalg.vector_norm(v, pow, others, True) if others else v.abs() if pow else v


public("norm_except_dim", "v, pow=2, dim=0", _norm_except_dim, relevant=("v",))


def _native_dropout(input, p, train):
    """Dropout that also returns its keep mask (bool); with ``train`` False or None it is the
    identity with an all-True mask.

    >>> numtorch.native_dropout(numtorch.ones(2), 0.5, False)[1]
    tensor([True, True])
    """
    nt = _nt()
    if not train:
        return input.clone(), nt.ones(input.shape, dtype=D.bool)
    if p == 1:
        return input * 0, nt.zeros(input.shape, dtype=D.bool)
    mask = nt.rand(input.shape, dtype=input.dtype if input.is_floating_point() else None) >= p
    return input * mask / (1 - p), mask


public("native_dropout", "input, p, train", _native_dropout)


def _adaptive_avg_pool1d(input, output_size):
    """``torch.adaptive_avg_pool1d``: see ``numtorch.nn.functional.adaptive_avg_pool1d``.

    >>> numtorch.adaptive_avg_pool1d(numtorch.ones(1, 1, 4), 2)
    tensor([[[1., 1.]]])
    """
    return _nt().nn.functional.adaptive_avg_pool1d(input, output_size)


def _adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: the pooled values and their indices.

    >>> numtorch.adaptive_max_pool1d(numtorch.arange(4.0).reshape(1, 1, 4), 2)[1]
    tensor([[[1, 3]]])
    """
    return _nt().nn.functional.adaptive_max_pool1d(input, output_size, True)


public("adaptive_avg_pool1d", "input, output_size", _adaptive_avg_pool1d)
public("adaptive_max_pool1d", "input, output_size", _adaptive_max_pool1d)


def _rrelu_(input, lower, upper, training, generator):
    """In-place ``rrelu`` (``torch.rrelu_``).

    >>> numtorch.rrelu_(numtorch.tensor([-1.0, 2.0]), 0.1, 0.1)
    tensor([-0.1000,  2.0000])
    """
    return _nt().nn.functional.rrelu_(input, lower, upper, training)


public("rrelu_", "input, lower=0.125, upper=0.3333333333333333, training=False, generator=None", _rrelu_)


def _i0_(input):
    """In-place ``i0`` (``torch.i0_``).

    >>> numtorch.i0_(numtorch.tensor([0.0]))
    tensor([1.])
    """
    return input.i0_()


public("i0_", "input", _i0_)


def _prelu_method(self, weight):
    """``prelu`` as a method: ``max(0, x) + weight * min(0, x)``.

    >>> numtorch.tensor([-1.0, 1.0]).prelu(numtorch.tensor([0.25]))
    tensor([-0.2500,  1.0000])
    """
    return body_of("prelu")(self, weight)


public("prelu", "self, weight", _prelu_method, relevant=("self", "weight"), module="Tensor")


# ---- index_reduce: scatter_reduce with the index spread along dim -------------------------------
def _index_reduce_args(self, dim, index, source, reduce, name):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"{name}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index._dtype not in (D.int32, D.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {_cname(index)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"index_reduce_(): self ({_cname(self)}) and source ({_cname(source)}) must have the same scalar type")
    d = dim % max(self.ndim, 1)
    n = source.shape[d] if source.ndim else 1
    if index.numel() != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({n}), "
                           f"for dim: {dim}")  # fmt: skip
    if index.numel() and (int(index.min()) < -self.shape[d] or int(index.max()) >= self.shape[d]):
        raise IndexError("index out of range in self")
    shape = [1] * source.ndim
    shape[d] = n
    full = index.to(D.int64).remainder(self.shape[d]).reshape(shape).expand(*source.shape)
    return d, full, "mean" if reduce == "mean" else reduce


def _cname(t):
    from . import _factory_utils as FU

    return FU.cname(t._dtype)


def _index_reduce(input, dim, index, source, reduce, include_self, out):
    """``input`` with the rows ``source[i]`` (along ``dim``) reduced into row ``index[i]`` by
    ``reduce`` (prod, mean, amax, amin), as ``torch.index_reduce``.

    >>> numtorch.index_reduce(numtorch.ones(2), 0, numtorch.tensor([0, 0]), numtorch.tensor([2.0, 3.0]), "prod")
    tensor([6., 1.])
    """
    d, full, red = _index_reduce_args(input, dim, index, source, reduce, "index_reduce")
    r = input.scatter_reduce(d, full, source, red, include_self=include_self)
    return r if out is None else out.resize_(r.shape).copy_(r)


def _index_reduce_method(self, dim, index, source, reduce, include_self):
    return _index_reduce(self, dim, index, source, reduce, include_self, None)


def _index_reduce_inplace(self, dim, index, source, reduce, include_self):
    """In-place ``index_reduce``."""
    d, full, red = _index_reduce_args(self, dim, index, source, reduce, "index_reduce_")
    return self.scatter_reduce_(d, full, source, red, include_self=include_self)


_IR_SIG = "dim, index, source, reduce, *, include_self=True"
public("index_reduce", f"input, {_IR_SIG}, out=None", _index_reduce, relevant=("input", "index", "source"))
public("index_reduce", f"self, {_IR_SIG}", _index_reduce_method, relevant=("self", "index", "source"), module="Tensor")
public("index_reduce_", f"self, {_IR_SIG}", _index_reduce_inplace, relevant=("self", "index", "source"), module="Tensor")


# ---- legacy linalg spellings: qr, triangular_solve ---------------------------------------------
def _qr(input, some, out):
    """Legacy ``torch.qr``: ``linalg.qr`` with ``mode='reduced'`` (``some``) or ``'complete'``.

    >>> numtorch.qr(numtorch.ones(3, 2), some=False).Q.shape
    torch.Size([3, 3])
    """
    nt = _nt()
    Q, R = nt.linalg.qr(input, "reduced" if some else "complete")
    res = return_types.register("qr", ("Q", "R"))(Q, R)
    if out is not None:
        for o, r in zip(out, res):
            o.resize_(r.shape).copy_(r)
        return type(res)(*out)
    return res


def _qr_method(self, some):
    return _qr(self, some, None)


def _triangular_solve(input, A, upper, transpose, unitriangular, out):
    """Legacy ``torch.triangular_solve(b, A)``: the solution of ``op(A) X = b`` with ``op`` the
    transpose when ``transpose``, and a copy of ``A``.

    >>> numtorch.triangular_solve(numtorch.tensor([[3.0], [4.0]]), numtorch.tensor([[2.0, 1.0], [0.0, 4.0]])).solution
    tensor([[1.],
            [1.]])
    """
    nt = _nt()
    M = A.mT if transpose else A
    X = nt.linalg.solve_triangular(M, input, upper=upper != bool(transpose), unitriangular=unitriangular)
    res = return_types.register("triangular_solve", ("solution", "cloned_coefficient"))(X, A.clone())
    if out is not None:
        for o, r in zip(out, res):
            o.resize_(r.shape).copy_(r)
        return type(res)(*out)
    return res


def _triangular_solve_method(self, A, upper, transpose, unitriangular):
    return _triangular_solve(self, A, upper, transpose, unitriangular, None)


public("qr", "input, some=True, *, out=None", _qr)
public("qr", "self, some=True", _qr_method, relevant=("self",), module="Tensor")
public("triangular_solve", "input, A, upper=True, transpose=False, unitriangular=False, *, out=None", _triangular_solve,
       relevant=("input", "A"))  # fmt: skip
public("triangular_solve", "self, A, upper=True, transpose=False, unitriangular=False", _triangular_solve_method,
       relevant=("self", "A"), module="Tensor")  # fmt: skip


# ---- conv_tbc, grid_sampler_2d/3d -----------------------------------------------------------------
def _conv_tbc(input, weight, bias, pad):
    """1-d convolution on (time, batch, channel) input with a (width, in, out) weight, as
    ``torch.conv_tbc`` (fairseq's layout).

    >>> numtorch.conv_tbc(numtorch.ones(5, 2, 3), numtorch.ones(3, 3, 4), numtorch.zeros(4), 1).shape
    torch.Size([5, 2, 4])
    """
    nt = _nt()
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    y = nt.nn.functional.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return y.permute(2, 0, 1)


public("conv_tbc", "input, weight, bias, pad=0", _conv_tbc, relevant=("input", "weight", "bias"))
public("conv_tbc", "input, weight, bias, pad=0", _conv_tbc, relevant=("input", "weight", "bias"),
       module="torch.nn.functional")  # fmt: skip


def _grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners, nd):
    if input.ndim != nd or grid.ndim != nd:
        raise RuntimeError(f"grid_sampler(): expected {nd}D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")  # fmt: skip
    return _nt().grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` for 4-d input (``interpolation_mode`` 0 bilinear, 1 nearest, 2 bicubic;
    ``padding_mode`` 0 zeros, 1 border, 2 reflection)."""
    return _grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners, 4)


def _grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` for 5-d input (volumetric)."""
    return _grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners, 5)


_GS_SIG = "input, grid, interpolation_mode, padding_mode, align_corners"
public("grid_sampler_2d", _GS_SIG, _grid_sampler_2d, relevant=("input", "grid"))
public("grid_sampler_3d", _GS_SIG, _grid_sampler_3d, relevant=("input", "grid"))


# ---- segment_reduce, histogramdd ---------------------------------------------------------------
_SEG_EMPTY = {"sum": 0.0, "mean": math.nan, "max": -math.inf, "min": math.inf, "prod": 1.0}


def _segment_reduce(data, reduce, lengths, indices, offsets, axis, unsafe, initial):
    """Reduce consecutive segments of ``data`` along ``axis`` (sizes ``lengths`` or boundaries
    ``offsets``) by sum, mean, max, min or prod, as ``torch.segment_reduce``.

    >>> numtorch.segment_reduce(numtorch.tensor([1.0, 2.0, 3.0]), "sum", lengths=numtorch.tensor([2, 1]))
    tensor([3., 3.])
    """
    nt = _nt()
    if reduce not in _SEG_EMPTY:
        raise RuntimeError(f"segment_reduce(): reduction {reduce} not supported")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    if lengths is None:
        lengths = offsets[1:] - offsets[:-1]
    if lengths.ndim != 1 or axis not in (0, -data.ndim):
        raise NotImplementedError("segment_reduce: only 1-d lengths (axis 0) are supported")
    if not unsafe and int(lengths.sum()) != data.shape[0]:
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")  # fmt: skip
    seg = nt.arange(lengths.shape[0]).repeat_interleave(lengths.to(D.int64))
    idx = seg.reshape(-1, *([1] * (data.ndim - 1))).expand(*data.shape)
    if reduce == "mean":  # PyTorch: (sum + initial) / length, the initial not counted
        base = nt.full((lengths.shape[0],) + tuple(data.shape[1:]), 0.0 if initial is None else initial, dtype=data.dtype)
        total = base.scatter_reduce(0, idx, data, "sum", include_self=True)
        n = lengths.to(data.dtype).reshape(-1, *([1] * (data.ndim - 1)))
        return total / (n if initial is None else n.clamp(min=1))
    fill = _SEG_EMPTY[reduce] if initial is None else initial
    base = nt.full((lengths.shape[0],) + tuple(data.shape[1:]), fill, dtype=data.dtype)
    red = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    return base.scatter_reduce(0, idx, data, red, include_self=initial is not None)


public("segment_reduce", "data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None",
       _segment_reduce, relevant=("data",))  # fmt: skip


def _histogramdd(input, bins, range, weight, density):
    """The histogram of the points in the rows of ``input`` (N, D) over a D-dimensional grid of
    bins, as ``torch.histogramdd``: ``(hist, bin_edges)`` (counted by NumPy's histogramdd).

    >>> numtorch.histogramdd(numtorch.tensor([[0.0, 0.0], [1.0, 1.0]]), bins=[2, 2]).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    pts = input._data.reshape(-1, input.shape[-1]).astype(np.float64)
    d = pts.shape[1]
    edges_in = [b._data for b in bins] if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor) else bins
    rng = None if range is None else [(float(range[2 * i]), float(range[2 * i + 1])) for i in np.arange(d)]
    w = None if weight is None else weight._data.reshape(-1).astype(np.float64)
    hist, edges = np.histogramdd(pts, bins=edges_in, range=rng, weights=w, density=density)
    kind = return_types.register("histogramdd", ("hist", "bin_edges"))
    dt = input._dtype
    return kind(_make(hist.astype(dt.np), dt), tuple(_make(e.astype(dt.np), dt) for e in edges))


public("histogramdd", "input, bins, *, range=None, weight=None, density=False", _histogramdd, relevant=("input",))
