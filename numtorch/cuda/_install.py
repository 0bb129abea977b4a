"""Attach CUDA kernels to the registered ops, by family, when the CUDA backend starts.

# Note [CUDA kernel table]
# As the meta device's ``install`` (numtorch/ops/_meta_rules.py), this runs once, after every op
# is registered, and fills ``op.impls["cuda"]`` per family, so no op declaration names CUDA:
# - elementwise ops: the engine of numtorch/cuda/_pointwise.py with kernels generated from the
#   op's one scalar declaration (Note [One declaration, two targets]);
# - views: the CPU view kernel on a stand-in, read back as a view of the same device storage
#   (Note [CUDA storage]);
# - factories (``device=`` ops) and ``*_like``: built on the host, then one upload;
# - copies (``_to_copy``, ``clone``, ``copy_``), reductions (``sum``/``mean``/``amax``) and
#   matrix products (``mm``/``bmm``/``matmul``/``addmm``, _matmul.py: cuBLAS or kernels in
#   numtorch/kernels/cuda/, with output shapes, dtypes and argument errors from the op's meta
#   kernel (one place for those rules).
# Every other op has no CUDA kernel and the dispatcher raises PyTorch's "Could not run
# 'aten::X' with arguments from the 'CUDA' backend": nothing silently runs on the CPU.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .._device import device
from .._meta import empty_meta
from .._tags import Tag
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _pointwise as P
from . import _runtime as rt
from . import _storage as S
from ._launch import device_error, launch, meta, run, strides_for
from ._memcpy import device_copy

K_COPY = lazy("numtorch.kernels.cuda.copy")
K_RED = lazy("numtorch.kernels.cuda.reduction")
CUDA0 = device("cuda", 0)
META = device("meta")


def cuda_device(dev) -> device:
    return CUDA0 if dev is None or dev.index in (None, 0) else device("cuda", dev.index)


# ---- copies ------------------------------------------------------------------------------------
def _via_float(src_dt, npdt) -> bool:
    # numba-cuda cannot convert float16 to bool in one step (NVVM rejects the IR): go through float32
    return src_dt == np.float16 and np.dtype(npdt) == np.bool_


def _real_part(a: S.CudaArray, npdt) -> S.CudaArray:
    # complex -> real casts keep the real part (PyTorch's, after its warning); the device cannot
    # assign a complex to a real element, so the copy reads the real parts through a float view
    if a.dtype.kind != "c" or np.dtype(npdt).kind == "c":
        return a
    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=5)
    ft = np.dtype(a.dtype.char.lower())  # F -> f, D -> d
    root = rt.typed(a.block.mem, ft)
    return S.CudaArray(a.block, root, a.offset * 2, a.shape, tuple(2 * s for s in a.estrides), ft)


def contiguous_copy(a: S.CudaArray, npdt) -> S.CudaArray:
    a = _real_part(a, npdt)
    if _via_float(a.dtype, npdt):
        a = contiguous_copy(a, np.float32)
    out = S.empty(a.shape, npdt)
    if a.size and not device_copy(out, a):  # Note [Device memcpy]
        shape = a.shape or (1,)
        launch(K_COPY.copy_strided, a.size, meta(shape), out.root, a.root, a.offset, meta(strides_for(a, shape)))
    return out


def copy_into(dst: S.CudaArray, src: S.CudaArray) -> None:
    """Write ``src`` (broadcast to ``dst``'s shape, cast to its dtype) into ``dst``."""
    if not dst.size:
        return
    src = _real_part(src, dst.dtype)
    if _via_float(src.dtype, dst.dtype):
        src = contiguous_copy(src, np.float32)
    if device_copy(dst, src):
        return
    shape = dst.shape or (1,)
    launch(K_COPY.copy_into_strided, dst.size, meta(shape), dst.root, dst.offset, meta(strides_for(dst, shape)),
           src.root, src.offset, meta(strides_for(src, shape)))  # fmt: skip


def fill(dst: S.CudaArray, value) -> None:
    """Write the scalar ``value`` (already of ``dst``'s dtype) into every element of ``dst``."""
    if dst.size:
        shape = dst.shape or (1,)
        launch(K_COPY.fill_strided, dst.size, meta(shape), dst.root, dst.offset, meta(strides_for(dst, shape)), value)


def _host_to_cuda(t: Tensor, dt: D.dtype, dev: device) -> Tensor:
    a = t._host()
    return _make(S.from_host(a if a.dtype == dt.np else a.astype(dt.np)), dt, Tensor, cuda_device(dev))


def _to_copy_cuda(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
                  memory_format=None):  # fmt: skip
    dt = self._dtype if dtype is None else D.to_dtype(dtype)
    if device is not None and device.type == "cpu":
        host = self._data.copy_to_host()
        return _make(host if host.dtype == dt.np else host.astype(dt.np), dt)
    return _make(contiguous_copy(self._data, dt.np), dt, Tensor, cuda_device(device or self._device))


def _local_scalar_dense_cuda(self):
    # Tensor.item(): one element back to the host (a synchronising copy, as in PyTorch)
    return self._data.copy_to_host().reshape(()).item()


def _clone_cuda(self, memory_format=None):
    return _make(contiguous_copy(self._data, self._dtype.np), self._dtype, Tensor, self._device)


def _copy_cuda(self, src, non_blocking=False):
    if isinstance(src, Tensor) and src._device.type == "cpu":
        src_arr = S.from_host(src._host())
    else:
        src_arr = src._data
    from ..ops._pointwise import _broadcast

    _broadcast([self._data.shape, src_arr.shape])  # PyTorch's size error before writing
    copy_into(self._data, src_arr)
    self._vc[0] += 1
    return self


def _copy_cpu_from(cpu_impl):
    def impl(self, src, non_blocking=False):  # a CPU destination reads a CUDA source through the host
        if isinstance(src, Tensor) and src._device.type == "cuda":
            src = _make(src._data.copy_to_host(), src._dtype)
        return cpu_impl(self, src, non_blocking)

    return impl


# ---- views and factories -------------------------------------------------------------------------
def _view_rule(op):
    cpu = op.impls["cpu"]

    def rule(*vals):
        src = next(v for v in vals if isinstance(v, Tensor))
        ins = [_make(S.standin(v._data), v._dtype, Tensor, vc=v._vc) if isinstance(v, Tensor) else v for v in vals]
        stand = ins[vals.index(src)]._data
        return _back(cpu(*ins), stand, src)

    return rule


def _inplace_view_rule(op):
    cpu = op.impls["cpu"]

    def rule(self, *rest):
        stand = S.standin(self._data)
        t = _make(stand, self._dtype, Tensor, vc=self._vc)
        cpu(t, *rest)
        self._data = S.view_of(self._data, t._data, stand)
        return self

    return rule


def _back(r, stand, src):
    if isinstance(r, Tensor):
        t = _make(S.view_of(src._data, r._data, stand), r._dtype, type(r), src._device, vc=r._vc)
        if r._base is not None:
            t._base = src if src._base is None else src._base
        return t
    if isinstance(r, (list, tuple)):
        return type(r)(_back(x, stand, src) for x in r)
    return r


# factories whose result is one value everywhere: made on the device (meta kernel for the shape
# and dtype, then a fill kernel), never built on the host and uploaded (an upload from pageable
# memory waits for every queued kernel). Value: a constant, the named argument, or None (empty).
_FILLED = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1, "new_ones": 1,
           "full": "fill_value", "full_like": "fill_value", "new_full": "fill_value",
           "empty.memory_format": None, "empty_like": None, "new_empty": None}  # fmt: skip


def _filled(op, names, at, what):
    meta_impl = op.impls["meta"]

    def impl(*vals):
        import numtorch

        if what is None and numtorch.are_deterministic_algorithms_enabled():
            return _factory_on_host(op, names, at)(*vals)  # deterministic empty() fills NaN there
        key = _factory_key(op, vals, at)
        hit = _FACTORY_META.get(key) if key is not None else None
        dev = vals[at]
        if hit is None:
            mvals = list(vals)
            mvals[at] = META
            for i, v in enumerate(mvals):
                if isinstance(v, Tensor):
                    mvals[i] = _as_meta(v)
            r = meta_impl(*mvals)
            hit = (r._data.shape, r._dtype)
            if key is not None:
                if len(_FACTORY_META) > 4096:
                    _FACTORY_META.clear()
                _FACTORY_META[key] = hit
        if not dev:
            dev = next((v._device for v in vals if isinstance(v, Tensor)), dev)
        shape, rdt = hit
        out = S.empty(shape, rdt.np)
        if what is not None:
            value = vals[names.index(what)] if isinstance(what, str) else what
            fill(out, rdt.np.type(value.item() if isinstance(value, Tensor) else value))
        return _make(out, rdt, Tensor, cuda_device(dev if isinstance(dev, device) else None))

    return impl


# Note [Factory results by argument]: a factory's meta kernel (PyTorch's argument checks, the
# result's shape and dtype) costs more host time than the fill kernel after it, and a model
# makes the same few factory calls every step; its answer depends only on the arguments (typed,
# so 1 and 1.0 differ), the default dtype and, for the *_like ones, the tensor's dtype, shape
# and strides. An argument that does not hash runs the meta kernel every time.
_FACTORY_META: dict = {}


def _factory_key(op, vals, at):
    parts = [op, D.get_default_dtype()]
    for i, v in enumerate(vals):
        if i == at:
            continue
        if isinstance(v, Tensor):
            parts.append((Tensor, v._dtype, v._data.shape, v._data.strides))
        else:
            parts.append((v.__class__, tuple(v) if v.__class__ is list else v))
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _factory(op):
    names = [a.name for a in op._schema.arguments]
    at = names.index("device")
    key = op._schema.name.removeprefix("aten::") + (f".{op._schema.overload_name}" if op._schema.overload_name else "")
    if key in _FILLED and "meta" in op.impls:
        return _filled(op, names, at, _FILLED[key])
    return _factory_on_host(op, names, at)


def _factory_on_host(op, names, at):
    cpu = op.impls["cpu"]

    def impl(*vals):
        vals = list(vals)
        dev = vals[at]
        vals[at] = None
        for i, v in enumerate(vals):  # *_like: the CPU kernel reads only the metadata
            if isinstance(v, Tensor) and v._device.type == "cuda":
                dev = dev or v._device
                vals[i] = _make(S.standin(v._data), v._dtype)
        r = cpu(*vals)
        dev = cuda_device(dev if isinstance(dev, device) else None)
        return _make(S.from_host(r._data), r._dtype, Tensor, dev)

    return impl


# ---- reductions ----------------------------------------------------------------------------------
_META_RESULTS: dict = {}  # (op, argument metadata) -> the meta kernel's result


def _meta_of(op, vals):
    """``op``'s meta kernel on ``vals`` (tensors as contiguous meta tensors of their shape and
    dtype): PyTorch's argument errors and the result's shape and dtype. Results are remembered
    per (op, shapes, dtypes, other arguments), as the rules depend on nothing else; a call that
    raises is not remembered and raises again."""
    try:
        key = (op, *[_meta_key(v) for v in vals])
        hit = _META_RESULTS.get(key)
    except TypeError:  # an unhashable argument: no memo
        return op.impls["meta"](*[_as_meta(v) for v in vals])
    if hit is None:
        hit = op.impls["meta"](*[_as_meta(v) for v in vals])
        if len(_META_RESULTS) > 8192:
            _META_RESULTS.clear()
        _META_RESULTS[key] = hit
    return hit


def _meta_key(v):
    if isinstance(v, Tensor):
        return (Tensor, v._data.shape, v._dtype)
    if isinstance(v, (list, tuple)):
        return (type(v), *[_meta_key(x) for x in v])
    return (type(v), v)  # 1, 1.0 and True promote differently


def _as_meta(v):
    if isinstance(v, Tensor):
        return empty_meta(v._data.shape, v._dtype)
    if isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v):
        return type(v)(_as_meta(x) for x in v)
    return v


def _reduction(op, kind, dims_at=None):
    def impl(self, *rest):
        res = _meta_of(op, [self, *rest])
        a = self._data
        dims = rest[dims_at] if dims_at is not None and rest[dims_at] is not None else []
        dims = sorted({d % max(a.ndim, 1) for d in ([dims] if isinstance(dims, int) else dims)})
        if not dims or a.ndim == 0:
            dims = list(range(a.ndim))
        keep = [d for d in range(a.ndim) if d not in dims]
        perm = keep + dims
        pv = S.permuted(a, perm)
        out_dt = res._dtype
        if out_dt.is_complex:
            if kind not in ("sum", "mean"):
                raise P.not_implemented(op._schema.name, out_dt)
            return _complex_reduction(kind, self, dims if a.ndim else [], out_dt, res)
        # half: on a GPU numba-cuda links a helper library into kernels that compare halves, and
        # its disk cache cannot store such kernels; float32 copies reduce exactly as well
        half = out_dt is D.float16
        work = np.int64 if out_dt.category < D._FLOAT else np.float32 if half else out_dt.np
        # the input itself when it already is contiguous rows of ``work`` (kernels read from 0)
        x = pv if pv.offset == 0 and pv.dtype == work and pv.contiguous else contiguous_copy(pv, work)
        rows = math.prod(a.shape[d] for d in keep)
        n = math.prod(a.shape[d] for d in dims)
        out = S.empty(res._data.shape, np.float32 if half else out_dt.np)
        if rows:
            _launch_red(kind, x, rows, n, out, out_dt)
        if half:
            out = contiguous_copy(out, np.float16)
        return _make(out, out_dt, Tensor, self._device)

    return impl


def _complex_reduction(kind, self, dims, out_dt, res):
    # Note [Complex on CUDA]: a complex sum or mean is the real reduction of its view_as_real
    # (the real and imaginary parts are independent sums), read back as complex
    import numtorch

    x = self if self._dtype is out_dt else self.to(out_dt)
    r = numtorch.view_as_real(x.resolve_conj())
    r = getattr(numtorch, kind)(r, dims) if dims else r.clone()
    return numtorch.view_as_complex(r.contiguous()).reshape(res.shape)


def _launch_red(kind, x, rows, n, out, out_dt):
    from ..kernels.cuda import RED_THREADS

    # few long rows (a full sum): cut each row into k chunks, one block each, then reduce the
    # partials (one block per row alone leaves all but a few of the GPU's SMs idle)
    k = max(1, min(-(-n // (RED_THREADS * 16)), _RED_TARGET_BLOCKS // rows)) if rows < _RED_TARGET_BLOCKS else 1
    floating = x.dtype.kind == "f"
    if k > 1:
        part = S.empty((rows * k,), np.float64 if floating and kind in ("sum", "mean") else x.dtype)
        _red_pass(kind, x.root, rows, n, k, part, floating, 1.0)
        _red_pass(kind, part.root, rows, k, 1, out, floating, (1.0 / n) if kind == "mean" else 1.0)
        return
    xr = x.root if n else meta((0,))  # an empty row still needs a typed array argument
    _red_pass(kind, xr, rows, n, 1, out, floating, ((1.0 / n if n else math.nan) if kind == "mean" else 1.0))


_RED_TARGET_BLOCKS = 1024  # enough blocks to fill an H100's 132 SMs several times over


def _red_pass(kind, xr, rows, n, k, out, floating, scale):
    from ..kernels.cuda import RED_BLOCKS, RED_THREADS

    grid = (min(rows * k, RED_BLOCKS), RED_THREADS)
    if kind in ("amax", "amin"):
        want_max = kind == "amax"
        if floating:
            run(K_RED.extreme_rows_float, *grid, (xr, rows, n, k, out.root, want_max))
        else:
            info = np.iinfo(np.int64)
            run(K_RED.extreme_rows_int, *grid, (xr, rows, n, k, out.root, want_max, info.min if want_max else info.max))
    elif floating:
        run(K_RED.sum_rows_float, *grid, (xr, rows, n, k, out.root, scale))
    else:
        run(K_RED.sum_rows_int, *grid, (xr, rows, n, k, out.root))


# ---- installation --------------------------------------------------------------------------------
def _pointwise_of(op):
    pw = getattr(op, "pointwise", None)  # Note [Pointwise declaration]
    if pw is not None:
        return pw
    impl = op.impls.get("cpu")
    owner = getattr(impl, "__self__", None)
    if hasattr(owner, "dtypes") and getattr(impl, "__name__", "") in ("unary", "binary"):
        k = 1 if impl.__name__ == "unary" else 2
        return (owner, tuple(range(k)), tuple(range(k, op.nargs)), "functional", impl)
    return None


def _pointwise_impl(pwinfo):
    pw, ins, pars, kind = pwinfo[:4]
    sel = getattr(pwinfo, "select", None)
    if sel is not None:  # gelu's approximate picks the declaration; the CPU entry raises for others
        table, cpu = pw, pwinfo.cpu
        return lambda *v: (P.entry(table[v[sel]], [v[i] for i in ins], [v[i] for i in pars])
                           if v[sel] in table else cpu(*v))  # fmt: skip
    if kind == "out":
        return lambda *v: P.entry(pw, [v[i] for i in ins], [v[i] for i in pars], v[-1])
    if kind == "inplace":
        return lambda *v: P.entry(pw, [v[i] for i in ins], [v[i] for i in pars], inplace=True)
    return lambda *v: P.entry(pw, [v[i] for i in ins], [v[i] for i in pars])


def install() -> dict:
    """Fill ``op.impls["cuda"]`` for every op family with CUDA kernels (Note [CUDA kernel table])."""
    from ..ops._registry import OPS
    from ..ops.factory.conversion import DEVICE_COPY

    counts = {"pointwise": 0, "view": 0, "factory": 0, "other": 0}
    special = {
        "aten::_to_copy": _to_copy_cuda,
        "aten::clone": _clone_cuda,
        "aten::copy_": _copy_cuda,
        "aten::_local_scalar_dense": _local_scalar_dense_cuda,
        "aten::sum": _reduction(OPS["aten::sum"], "sum"),
        "aten::sum.dim_IntList": _reduction(OPS["aten::sum.dim_IntList"], "sum", 0),
        "aten::mean": _reduction(OPS["aten::mean"], "mean"),
        "aten::mean.dim": _reduction(OPS["aten::mean.dim"], "mean", 0),
        "aten::amax": _reduction(OPS["aten::amax"], "amax", 0),
        "aten::amin": _reduction(OPS["aten::amin"], "amin", 0),
        "aten::max": _reduction(OPS["aten::max"], "amax"),
        "aten::min": _reduction(OPS["aten::min"], "amin"),
    }
    from . import _composed, _conv, _indexing, _masked, _matmul, _nn, _random, _scatter, _select, _sort, _viewgrad, _views

    special.update(_matmul.install(OPS, _meta_of))  # matrix products (cuBLAS or Numba kernels)
    special.update(_indexing.install(OPS, _meta_of))
    special.update(_sort.install(OPS, _meta_of))
    special.update(_select.install(OPS))
    special.update(_scatter.install(OPS, _meta_of))
    special.update(_viewgrad.IMPLS)
    special.update(_views.install(OPS, _view_rule))  # Note [CUDA view fast paths]
    special.update(_conv.IMPLS)
    special.update(_masked.IMPLS)
    special.update(_nn.install(OPS, _meta_of))
    special.update(_random.install(OPS))

    counts["composed"] = _composed.install(OPS, _meta_of)
    for name, fn in special.items():
        OPS[name].impls["cuda"] = fn
        counts["other"] += 1
    copy_ = OPS["aten::copy_"]
    copy_.impls["cpu"] = _copy_cpu_from(copy_.impls["cpu"])
    for op in OPS.values():
        kind = _family(op)
        if kind is not None:
            counts[kind] += 1
    DEVICE_COPY["cuda"] = _host_to_cuda
    return counts


def _family(op) -> str | None:
    """Give ``op`` its family's CUDA implementation; returns the family (None: none applies)."""
    if "cuda" in op.impls or "composite" in op.impls or "any" in op.impls or "cpu" not in op.impls:
        return None  # "any": the op's own kernel serves every device (_conj's conjugate view)
    pwinfo = _pointwise_of(op)
    if pwinfo is not None:
        op.impls["cuda"] = _pointwise_impl(pwinfo)
        return "pointwise"
    if op.kind == "view" or op._schema.name == "_unsafe_view":
        op.impls["cuda"] = _view_rule(op)
        return "view"
    if Tag.inplace_view in op.tags:  # squeeze_, unsqueeze_, t_, ...: restride self in place
        op.impls["cuda"] = _inplace_view_rule(op)
        return "view"
    if "device" in [a.name for a in op._schema.arguments] and op.kind == "functional":
        op.impls["cuda"] = _factory(op)
        return "factory"
    return None


def install_one(op) -> bool:
    """Whether ``op`` has a CUDA implementation, giving it its family's when it has none yet."""
    if "cuda" not in op.impls:
        _family(op)
    return "cuda" in op.impls
