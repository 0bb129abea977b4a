"""OpInfos for the shape area: numtorch/ops/shape/ and numtorch/ops/factory/conversion.py."""

from __future__ import annotations

import itertools

import numpy as np

from .core import ALL_REAL, FLOATS, OpInfo, SampleInput, make_arg

ALL = ALL_REAL
COMPLEX = ("complex64", "complex128")
_S = SampleInput


def _samples(*specs):
    """Sample generator from (shape, args, kwargs[, noncontiguous]) specs; a shape may be a
    list of shapes (a tensor-list input)."""

    def gen(dtype, rng):
        out = []
        for spec in specs:
            shape, args, kwargs = spec[:3]
            nc = len(spec) > 3 and spec[3]
            if isinstance(shape, list):
                inp = [make_arg(s, dtype, rng) for s in shape]
            else:
                inp = make_arg(shape, dtype, rng, noncontiguous=nc)
            out.append(
                _S(inp, args, dict(kwargs), name=f"{shape}{args}{kwargs or ''}{'nc' if nc else ''}")
            )
        return out

    return gen


def _with_arrays(*specs):
    """Like _samples, but args given as ("arr", shape[, dtype]) become arrays (other tensors)."""

    def gen(dtype, rng):
        out = []
        for shape, args, kwargs in specs:
            conv = tuple(
                make_arg(a[1], a[2] if len(a) > 2 else dtype, rng)
                if isinstance(a, tuple) and a[:1] == ("arr",)
                else a
                for a in args
            )
            out.append(_S(make_arg(shape, dtype, rng), conv, dict(kwargs), name=f"{shape}{args}"))
        return out

    return gen


def _resolve(shape, size):
    """An expand/view target with its -1 entries filled in."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = len(size) - len(shape)
    return tuple(shape[i - lead] if s == -1 else s for i, s in enumerate(size))


def _view_ref(a, *shape):
    if len(shape) == 1 and hasattr(shape[0], "np"):
        return a.view(shape[0].np)
    return a.reshape(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)


def _view_samples(dtype, rng):
    out = _samples(((2, 3), (3, 2), {}), ((6,), (-1, 2), {}), ((), (1,), {}), ((2, 3, 4), ((4, 6),), {}),
                   ((0, 3), (3, 0), {}), ((2, 1, 3), (3, 2), {}))(dtype, rng)  # fmt: skip
    if dtype == "float32":
        import numtorch

        out.append(_S(make_arg((2, 4), dtype, rng), (numtorch.int32,), name="dtype"))
    return out


def _unfold_ref(a, dimension, size, step):
    if a.ndim == 0:
        return a.reshape(1)[:size]
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dimension)
    return w[(slice(None),) * (dimension % a.ndim) + (slice(None, None, step),)]


def _as_strided_ref(a, size, stride, storage_offset=0):
    flat = np.ascontiguousarray(a).reshape(-1)[storage_offset:]
    return np.lib.stride_tricks.as_strided(flat, size, [s * a.itemsize for s in stride])


def _split_ref(a, split, dim=0):
    n = a.shape[dim]
    sizes = (
        list(split)
        if isinstance(split, (list, tuple))
        else [split] * (n // split) + ([n % split] if n % split else [])
    )
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis=dim))


def _chunk_ref(a, chunks, dim=0):
    return _split_ref(a, -(-a.shape[dim] // chunks), dim)


def _diag_embed_ref(a, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    idx = np.arange(a.shape[-1])
    r, c = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., r, c] = a
    nd = a.ndim + 1
    return np.moveaxis(out, (-2, -1), (dim1 % nd, dim2 % nd))


def _to_ref(a, *args, **kwargs):
    dt = kwargs.get("dtype", args[0] if args else None)
    if isinstance(dt, np.ndarray):
        dt = dt.dtype
    if isinstance(dt, str):  # a device string: no dtype change
        return a.copy()
    return a.astype(getattr(dt, "np", dt))


def _cartesian_ref(*arrs):
    return (
        np.array(list(itertools.product(*arrs))).astype(arrs[0].dtype).reshape(-1, len(arrs))
        if len(arrs) > 1
        else arrs[0]
    )


def _column_stack_ref(arrs):
    return np.column_stack(arrs)


_CAT = _samples(([(2, 3), (1, 3)], (), {}), ([(2, 3), (2, 2)], (1,), {}), ([(2, 3), (0,)], (), {}),
                ([(2, 3), (2, 3), (2, 1)], (-1,), {}), ([(4,)], (), {}))  # fmt: skip
_STACK = _samples(
    ([(2, 3), (2, 3)], (), {}), ([(2, 3), (2, 3)], (2,), {}), ([(3,), (3,), (3,)], (-1,), {})
)
_CAT2 = _samples(([(2, 3), (1, 3)], (), {}), ([(2, 3), (2, 2)], (-1,), {}))
_HSTACK = _samples(([(2, 3), (2, 1)], (), {}), ([(3,), (2,)], (), {}), ([(), (1,)], (), {}))
_VSTACK = _samples(([(2, 3), (1, 3)], (), {}), ([(3,), (3,)], (), {}), ([(), ()], (), {}))
_DSTACK = _samples(
    ([(2, 3), (2, 3)], (), {}),
    ([(3,), (3,)], (), {}),
    ([(), ()], (), {}),
    ([(1, 2, 1), (1, 2)], (), {}),
)
_COLUMN = _samples(([(3,), (3, 2)], (), {}), ([(), ()], (), {}), ([(2, 3), (2,)], (), {}))


def _repeat_interleave_samples(dtype, rng):
    reps = rng.integers(0, 3, size=3).astype(np.int64)
    return [_S(make_arg((2, 3), dtype, rng), (2,), name="int"), _S(make_arg((2, 3), dtype, rng), (2, 1), name="int-dim"),
            _S(make_arg((2, 3), dtype, rng), (reps, 1), name="tensor"), _S(make_arg((3,), dtype, rng), (0,), name="zero"),
            _S(make_arg((2, 3), dtype, rng), (np.array([2]),), {"dim": 0}, name="one-count")]  # fmt: skip


_FLOAT_OUT = {
    "grad": "a float32 result is too coarse for float64 finite differences",
    "gradgrad": "a float32 result is too coarse for float64 finite differences",
}


def _cast(name: str, npd: str, grad: bool = True, skips=None) -> OpInfo:
    return OpInfo(f"Tensor.{name}", lambda a: a.astype(npd), _samples(((2, 3), (), {}), ((), (), {}), ((3, 4), (), {}, True)),
                  dtypes=ALL, grad=grad, skips=skips or {})  # fmt: skip


def _diff_ref(a, n=1, dim=-1):
    r = a
    for _ in range(min(n, a.shape[dim])):
        hi = np.take(r, range(1, r.shape[dim]), axis=dim)
        lo = np.take(r, range(r.shape[dim] - 1), axis=dim)
        r = hi ^ lo if a.dtype == np.bool_ else hi - lo
    return r.copy()


# views whose result is defined by the input's strides: PyTorch's view refuses a layout it cannot
# express, and resize_ reinterprets the storage in order; the value tests cover the contiguous case
_STRIDED_VIEW = "view refuses strides it cannot express (as PyTorch does); the contiguous samples cover the values"
_RESIZE = "resize_ reads the storage in order, which the non-contiguous layout permutes (as in PyTorch)"

OPINFOS = [
    # ---- views ------------------------------------------------------------------------------
    OpInfo("Tensor.view", _view_ref, _view_samples, dtypes=ALL, skips={"layouts": _STRIDED_VIEW}),
    OpInfo("Tensor.view_as", lambda a, b: a.reshape(b.shape),
           _with_arrays(((2, 3), (("arr", (3, 2), "int64"),), {}), ((4,), (("arr", (2, 2), "int64"),), {})), dtypes=ALL,
           skips={"layouts": _STRIDED_VIEW}),
    OpInfo("reshape", lambda a, shape: a.reshape(shape), _samples(((2, 3), ((3, 2),), {}), ((2, 3), ((-1,),), {}),
           ((3, 4), ((4, 3),), {}, True), ((), ((1, 1),), {}), ((0, 2), ((2, 0),), {})), dtypes=ALL, method="reshape"),
    OpInfo("Tensor.reshape_as", lambda a, b: a.reshape(b.shape),
           _with_arrays(((2, 3), (("arr", (6,), "int64"),), {})), dtypes=ALL),
    OpInfo("flatten", lambda a, start_dim=0, end_dim=-1: a.reshape(
               a.shape[:start_dim % max(a.ndim, 1)] + (-1,) + a.shape[end_dim % max(a.ndim, 1) + 1:]) if a.ndim else a.reshape(1),
           _samples(((2, 3, 4), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (0, 1), {}), ((), (), {}),
                    ((3, 4), (), {}, True)), dtypes=ALL, method="flatten"),
    OpInfo("unflatten", lambda a, dim, sizes: a.reshape(a.shape[:dim % a.ndim] + tuple(sizes) + a.shape[dim % a.ndim + 1:]),
           _samples(((2, 6), (1, (2, 3)), {}), ((2, 6), (-1, (3, -1)), {}), ((4,), (0, (2, 2)), {})),
           dtypes=ALL, method="unflatten"),
    OpInfo("ravel", np.ravel, _samples(((2, 3), (), {}), ((3, 4), (), {}, True), ((), (), {})), dtypes=ALL, method="ravel"),
    OpInfo("squeeze", lambda a, dim=None: np.squeeze(a, dim if dim is None or isinstance(dim, tuple)
                                                      else (dim,) if a.ndim and a.shape[dim] == 1 else ()),
           _samples(((2, 1, 3, 1), (), {}), ((2, 1, 3, 1), (1,), {}), ((2, 1, 3, 1), ((1, 3),), {}),
                    ((2, 1, 3), (0,), {}), ((), (), {}), ((), (0,), {})), dtypes=ALL, method="squeeze"),
    OpInfo("unsqueeze", np.expand_dims, _samples(((2, 3), (0,), {}), ((2, 3), (2,), {}), ((2, 3), (-1,), {}), ((), (0,), {}),
           ((3, 4), (1,), {}, True)), dtypes=ALL, method="unsqueeze"),
    OpInfo("permute", np.transpose, _samples(((2, 3, 4), ((2, 0, 1),), {}), ((2, 3), ((-1, 0),), {}), ((), ((),), {})),
           dtypes=ALL, method="permute"),
    OpInfo("transpose", np.swapaxes, _samples(((2, 3), (0, 1), {}), ((2, 3, 4), (-1, 0), {}), ((2, 3), (1, 1), {})),
           dtypes=ALL, method="transpose"),
    OpInfo("swapaxes", np.swapaxes, _samples(((2, 3, 4), (0, 2), {})), dtypes=ALL, method="swapaxes"),
    OpInfo("swapdims", np.swapaxes, _samples(((2, 3, 4), (0, 2), {})), dtypes=ALL, method="swapdims"),
    OpInfo("t", lambda a: a.T, _samples(((2, 3), (), {}), ((3,), (), {}), ((), (), {})), dtypes=ALL, method="t"),
    OpInfo("adjoint", lambda a: np.swapaxes(a, -1, -2), _samples(((2, 3), (), {}), ((4, 2, 3), (), {})),
           dtypes=ALL, method="adjoint"),
    OpInfo("Tensor.expand", lambda a, *size: np.broadcast_to(a, _resolve(a.shape, size)),
           _samples(((3, 1), (3, 4), {}), ((3,), (2, 3), {}), ((1,), (-1,), {}), ((), (2,), {}),
                    ((2, 1), ((2, 2, -1),), {})), dtypes=ALL),
    OpInfo("Tensor.expand_as", lambda a, b: np.broadcast_to(a, b.shape),
           _with_arrays(((3, 1), (("arr", (2, 3, 4), "int64"),), {})), dtypes=ALL),
    OpInfo("broadcast_to", lambda a, size: np.broadcast_to(a, _resolve(a.shape, (size,))),
           _samples(((3, 1), ((3, 4),), {}), ((3,), ((2, -1),), {})), dtypes=ALL, method="broadcast_to"),
    OpInfo("movedim", np.moveaxis, _samples(((2, 3, 4), (0, -1), {}), ((2, 3, 4), ((0, 1), (2, 0)), {})),
           dtypes=ALL, method="movedim"),
    OpInfo("moveaxis", np.moveaxis, _samples(((2, 3, 4), (1, 0), {})), dtypes=ALL, method="moveaxis"),
    OpInfo("narrow", lambda a, dim, start, length: np.take(a, range(start % a.shape[dim], start % a.shape[dim] + length), dim),
           _samples(((4, 5), (1, 1, 2), {}), ((4, 5), (0, -2, 2), {}), ((4, 5), (1, 0, 0), {})),
           dtypes=ALL, method="narrow"),
    OpInfo("select", lambda a, dim, index: np.take(a, index, dim),
           _samples(((4, 5), (1, 2), {}), ((4, 5), (0, -1), {}), ((3,), (0, 1), {})), dtypes=ALL, method="select"),
    OpInfo("Tensor.unfold", _unfold_ref, _samples(((7,), (0, 3, 2), {}), ((2, 6), (1, 2, 1), {}), ((2, 6), (0, 2, 1), {}),
           ((), (0, 1, 1), {})), dtypes=ALL),
    OpInfo("as_strided", _as_strided_ref, _samples(((3, 4), ((2, 2), (1, 2)), {}), ((3, 4), ((3, 3), (4, 1), 1), {}),
           ((6,), ((2, 3), (1, 1)), {})), dtypes=ALL, method="as_strided",
           skips={"layouts": "strides and offset index the storage, whose order the layout changes"}),
    OpInfo("unbind", lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)), _samples(((3, 2), (), {}), ((3, 2), (1,), {})),
           dtypes=ALL, method="unbind"),
    OpInfo("split", _split_ref, _samples(((5, 2), (2,), {}), ((5, 2), ([1, 4],), {}), ((2, 5), (3, 1), {})),
           dtypes=ALL, method="split"),
    OpInfo("split_with_sizes", _split_ref, _samples(((5, 2), ([2, 3],), {}), ((2, 5), ([5, 0], 1), {})),
           dtypes=ALL, method="split_with_sizes"),
    OpInfo("chunk", _chunk_ref, _samples(((5, 2), (3,), {}), ((2, 6), (2, 1), {})), dtypes=ALL, method="chunk"),
    OpInfo("tensor_split", lambda a, ios, dim=0: tuple(np.array_split(a, ios, dim)),
           _samples(((5, 2), (3,), {}), ((2, 5), ([1, 4], 1), {}), ((5,), ([2, 9],), {})), dtypes=ALL, method="tensor_split"),
    OpInfo("hsplit", lambda a, s: tuple(np.hsplit(a, s)), _samples(((2, 4), (2,), {}), ((6,), ([1, 3],), {})),
           dtypes=ALL, method="hsplit"),
    OpInfo("vsplit", lambda a, s: tuple(np.vsplit(a, s)), _samples(((4, 2), (2,), {}), ((4, 2), ([1],), {})),
           dtypes=ALL, method="vsplit"),
    OpInfo("dsplit", lambda a, s: tuple(np.dsplit(a, s)), _samples(((1, 2, 4), (2,), {})), dtypes=ALL, method="dsplit"),
    OpInfo("diagonal", np.diagonal, _samples(((3, 4), (), {}), ((3, 4), (1,), {}), ((3, 4), (-2,), {}),
           ((2, 3, 4), (0, 2, 0), {}), ((3, 4), (9,), {})), dtypes=ALL, method="diagonal"),
    OpInfo("view_as_real", lambda a: np.stack([a.real, a.imag], -1), _samples(((2, 3), (), {}), ((), (), {})),
           dtypes=COMPLEX, grad=False),
    OpInfo("view_as_complex", lambda a: a[..., 0] + 1j * a[..., 1], _samples(((3, 2), (), {}), ((2,), (), {})),
           dtypes=FLOATS, grad=False, skips={"layouts": "PyTorch refuses a last dim whose stride is not 1"}),
    OpInfo("real", np.real, _samples(((2, 3), (), {})), dtypes=COMPLEX + FLOATS),
    OpInfo("imag", np.imag, _samples(((2, 3), (), {})), dtypes=COMPLEX),
    # ---- copies -----------------------------------------------------------------------------
    OpInfo("clone", np.copy, _samples(((2, 3), (), {}), ((3, 4), (), {}, True), ((), (), {})), dtypes=ALL, method="clone"),
    OpInfo("Tensor.contiguous", np.ascontiguousarray, _samples(((2, 3), (), {}), ((3, 4), (), {}, True)), dtypes=ALL),
    OpInfo("cat", lambda ts, dim=0: np.concatenate([t for t in ts if t.shape != (0,)], dim), _CAT, dtypes=ALL,
           supports_out=True),
    OpInfo("concat", lambda ts, dim=0: np.concatenate(ts, dim), _CAT2, dtypes=FLOATS, supports_out=True),
    OpInfo("concatenate", lambda ts, dim=0: np.concatenate(ts, dim), _CAT2, dtypes=FLOATS, supports_out=True),
    OpInfo("stack", lambda ts, dim=0: np.stack(ts, dim), _STACK, dtypes=ALL, supports_out=True),
    OpInfo("hstack", np.hstack, _HSTACK, dtypes=ALL, supports_out=True),
    OpInfo("vstack", np.vstack, _VSTACK, dtypes=ALL, supports_out=True),
    OpInfo("row_stack", np.vstack, _VSTACK, dtypes=FLOATS, supports_out=True),
    OpInfo("dstack", np.dstack, _DSTACK, dtypes=ALL, supports_out=True),
    OpInfo("column_stack", _column_stack_ref, _COLUMN, dtypes=ALL, supports_out=True),
    OpInfo("flip", lambda a, dims: np.flip(a, dims) if a.ndim else a,
           _samples(((2, 3), ((0,),), {}), ((2, 3, 4), ((0, 2),), {}), ((3, 4), ((1,),), {}, True), ((), ((),), {})),
           dtypes=ALL, method="flip"),
    OpInfo("fliplr", np.fliplr, _samples(((2, 3), (), {})), dtypes=ALL, method="fliplr"),
    OpInfo("rot90", lambda a, k=1, dims=(0, 1): np.rot90(a, k, dims).copy(),
           _samples(((2, 3), (), {}), ((2, 3), (2,), {}), ((2, 3, 4), (-1, (2, 0)), {}), ((3, 4), (3,), {}, True),
                    ((2, 3), (4,), {})), dtypes=ALL, method="rot90"),
    OpInfo("diff", _diff_ref,
           _samples(((5,), (), {}), ((2, 5), (2, 1), {}), ((3, 4), (1, 0), {}, True), ((3, 4), (), {"n": 0}),
                    ((4,), (), {"n": 7})), dtypes=ALL, method="diff"),
    OpInfo("flipud", np.flipud, _samples(((2, 3), (), {}), ((4,), (), {})), dtypes=ALL, method="flipud"),
    OpInfo("roll", lambda a, shifts, dims=None: np.roll(a, shifts, dims),
           _samples(((2, 3), (1,), {}), ((2, 3), (1, 0), {}), ((2, 3), ((1, -2), (0, 1)), {}), ((3, 4), (5, 1), {}, True)),
           dtypes=ALL, method="roll"),
    OpInfo("Tensor.repeat", lambda a, *reps: np.tile(a, reps), _samples(((2, 3), (2, 1), {}), ((3,), (2, 2), {}),
           ((2, 3), (1, 0), {}), ((), (3,), {})), dtypes=ALL),
    OpInfo("tile", np.tile, _samples(((2, 3), ((2,),), {}), ((3,), ((2, 2),), {})), dtypes=ALL, method="tile"),
    OpInfo("repeat_interleave", lambda a, r, dim=None: np.repeat(a, r, dim),
           _repeat_interleave_samples, dtypes=ALL, method="repeat_interleave"),
    OpInfo("tril", np.tril, _samples(((3, 4), (), {}), ((3, 4), (1,), {}), ((2, 3, 3), (-1,), {})), dtypes=ALL,
           method="tril", inplace="tril_", supports_out=True),
    OpInfo("triu", np.triu, _samples(((3, 4), (), {}), ((3, 4), (-1,), {}), ((2, 3, 3), (1,), {})), dtypes=ALL,
           method="triu", inplace="triu_", supports_out=True),
    OpInfo("diag", np.diag, _samples(((3,), (), {}), ((3,), (1,), {}), ((3, 4), (), {}), ((3, 4), (-1,), {})),
           dtypes=ALL, method="diag", supports_out=True),
    OpInfo("diag_embed", _diag_embed_ref, _samples(((2, 3), (), {}), ((3,), (1,), {}), ((2, 3), (-1, 0, 2), {})),
           dtypes=ALL, method="diag_embed"),
    OpInfo("broadcast_tensors", lambda *a: tuple(np.broadcast_arrays(*a)),
           _with_arrays(((2, 1), (("arr", (3,)),), {}), ((3,), (("arr", (3,)),), {})), dtypes=ALL),
    OpInfo("atleast_1d", np.atleast_1d, _samples(((), (), {}), ((2,), (), {})), dtypes=ALL),
    OpInfo("atleast_2d", np.atleast_2d, _samples(((), (), {}), ((2,), (), {}), ((2, 3), (), {})), dtypes=ALL),
    OpInfo("atleast_3d", np.atleast_3d, _samples(((), (), {}), ((2,), (), {}), ((2, 3), (), {})), dtypes=ALL),
    OpInfo("meshgrid", lambda *a, indexing="ij": tuple(np.meshgrid(*a, indexing=indexing)),
           _with_arrays(((2,), (("arr", (3,)),), {"indexing": "ij"}), ((2,), (("arr", (3,)),), {"indexing": "xy"})),
           dtypes=ALL),
    OpInfo("cartesian_prod", _cartesian_ref, _with_arrays(((2,), (("arr", (3,)),), {}), ((3,), (), {})), dtypes=ALL),
    # ---- in place ---------------------------------------------------------------------------
    OpInfo("Tensor.copy_", lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype),
           _with_arrays(((2, 3), (("arr", (2, 3)),), {}), ((2, 3), (("arr", (3,), "int64"),), {})), dtypes=ALL, grad=False),
    OpInfo("fill_", lambda a, v: np.full_like(a, v), _samples(((2, 3), (1,), {}), ((), (0,), {})), dtypes=ALL, method="fill_", grad=False),
    OpInfo("fill", lambda a, v: np.full_like(a, v), _samples(((2, 3), (1,), {})), dtypes=ALL, gradgrad=False),
    OpInfo("zero_", np.zeros_like, _samples(((2, 3), (), {})), dtypes=ALL, method="zero_", grad=False),
    OpInfo("Tensor.resize_", lambda a, *s: a.reshape(s), _samples(((2, 3), (3, 2), {}), ((6,), (6,), {})), dtypes=ALL, grad=False,
           skips={"layouts": _RESIZE}),
    OpInfo("resize_as_", lambda a, b: a.reshape(b.shape), _with_arrays(((2, 3), (("arr", (6,)),), {})),
           dtypes=ALL, method="resize_as_", grad=False, skips={"layouts": _RESIZE}),
    # ---- conversions --------------------------------------------------------------------------
    OpInfo("Tensor.to", _to_ref, _with_arrays(((2, 3), ("cpu",), {}), ((2, 3), (("arr", (1,), "int32"),), {}),
           ((3,), (), {"dtype": np.dtype("float64")})), dtypes=ALL),
    OpInfo("Tensor.type", lambda a, t: a.astype({"torch.DoubleTensor": "float64", "torch.IntTensor": "int32"}[t]),
           _samples(((2, 3), ("torch.DoubleTensor",), {}), ((2, 3), ("torch.IntTensor",), {})), dtypes=ALL,
           skips={"grad": "the int32 sample has no gradient"}),
    OpInfo("Tensor.type_as", lambda a, b: a.astype(b.dtype), _with_arrays(((2, 3), (("arr", (1,), "float64"),), {})), dtypes=ALL),
    _cast("double", "float64"),
    _cast("float", "float32", skips=_FLOAT_OUT),
    _cast("half", "float16", skips=_FLOAT_OUT),
    _cast("int", "int32", grad=False),
    _cast("long", "int64", grad=False),
    _cast("short", "int16", grad=False),
    _cast("bool", "bool", grad=False),
    _cast("byte", "uint8", grad=False),
    _cast("char", "int8", grad=False),
    OpInfo("Tensor.cfloat", lambda a: a.astype(np.complex64), _samples(((2, 3), (), {})), dtypes=FLOATS, grad=False),
    OpInfo("Tensor.cdouble", lambda a: a.astype(np.complex128), _samples(((2, 3), (), {})), dtypes=FLOATS, grad=False),
    OpInfo("Tensor.cpu", np.copy, _samples(((2, 3), (), {})), dtypes=ALL),
    OpInfo("Tensor.cuda", None, _samples(((2, 3), (), {})), dtypes=FLOATS,
           skips={"grad": "needs a CUDA device; the error without one is tested in test_conversion.py",
                  "gradgrad": "needs a CUDA device"}),
]  # fmt: skip
