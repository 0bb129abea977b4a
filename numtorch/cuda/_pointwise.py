"""The CUDA backend of every elementwise op: the CPU engine's dtype rules, CUDA kernels
generated from the same declaration (Note [One declaration, two targets])."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..ops._pointwise import _broadcast, _cname, _param, _scalar, warn_resize
from ..ops.pointwise._elementwise import CAT, Elementwise, Routed, _half, number
from ..kernels.cuda import _SIM
from . import _storage as S
from ._launch import arg_key, device_error, launch, launch_ew, meta, parts, strides_for

_MODS: dict = {}


def _kernel(pw, name: str, cplx: bool = False):
    """Kernel ``name`` of ``pw``'s module for real or (``cplx``) complex operands, which spell
    NumPy calls differently on a GPU (Note [Complex device math])."""
    key = (pw, cplx and not _SIM)  # by object: declarations may share a name (round and round.decimals)
    mod = _MODS.get(key)
    if mod is None:
        from ..kernels._codegen import load_module
        from ..kernels.cuda._codegen import render_pointwise

        # a library elementwise op's scalar functions go into its module as for the CPU
        helpers = getattr(pw, "device_helpers", None) or getattr(pw, "helpers", ())
        src = render_pointwise(pw.inputs, pw.params, pw.expr, helpers, getattr(pw, "header", ()), key[1])
        mod = _MODS[key] = load_module(f"cu_{pw.name}{'_c' if key[1] else ''}", src)
    return getattr(mod, name)


def _unroll(pw, cplx: bool = False) -> int:
    """The elements per thread per pass of ``pw``'s contiguous kernels (its module's _UNROLL)."""
    return _MODS[(pw, cplx and not _SIM)]._UNROLL


def not_implemented(name: str, dt: D.dtype) -> RuntimeError:
    return RuntimeError(f"\"{name}_cuda\" not implemented for '{_cname(dt)}'")


# Note [Complex on CUDA]
# Elementwise kernels take complex64/complex128 from the same declarations as the CPU ones (their
# "c" variants: numba-cuda lowers complex arithmetic and the cmath-free helpers they call); the
# tree-reduction, scan, sort and GEMM kernels are real-only: complex sum/mean and matrix products
# are composed from real ones over view_as_real (_install.py), and the kernels that take
# _UNSUPPORTED dtypes refuse them with PyTorch's "not implemented for 'ComplexFloat'".
# Complex variants that call np.exp/sqrt/expm1/log1p get type-generic device spellings of them
# (Note [Complex device math]), so every complex elementwise declaration runs on CUDA.
_UNSUPPORTED = (D.complex64, D.complex128)


def cast(a: S.CudaArray, npdt) -> S.CudaArray:
    """``a`` as a contiguous array of ``npdt`` (``a`` itself when it already is one)."""
    if a.dtype == npdt and a.contiguous:
        return a
    from ._install import contiguous_copy

    return contiguous_copy(a, npdt)


def _operand(x, dev_tensors):
    if isinstance(x, Tensor):
        if x._device.type == "cuda":
            dev_tensors.append(x)
            return x
        if x._data.ndim == 0 and x._device.type == "cpu":  # a CPU 0-d tensor stands for a scalar
            return x.item()
        raise device_error()
    return x


# Note [Elementwise launch plans]
# Deciding an elementwise call (promotion, category checks, which declaration and kernel,
# broadcasting, the output's shape, the strided kernels' metadata) costs tens of microseconds
# of Python, more than a small op's kernel, and a training step repeats the same few hundred
# calls. Everything it decides depends only on the engine, each tensor operand's dtype, shape
# and strides (never its offset or values), each number's and parameter's type and the default
# dtype, so a call with no ``out=`` (functional or in place: the key says which) whose tensor
# operands are CUDA tensors of the compute dtype (no cast) stores a plan under that key. A later call with the same key runs
# what depends on values as before, in the same order: ``number``, the engine's ``early`` and
# ``prep`` hooks (value checks, kernel parameters), half rounding and the compute-dtype
# conversion of numbers; then it launches. Routed engines (whose pick reads parameter values:
# div's rounding_mode, clamp's bounds) and plain declarations take the full path every time.
_PLANS: dict = {}


def _plan_key(engine, operands, params, inplace):
    key = [engine, D._default, inplace]  # the "float" rule promotes integers to the default dtype
    for x in operands:
        if x.__class__ is Tensor:
            d = x._data
            if d.__class__ is not S.CudaArray:
                return None
            key.append((x._dtype, d.shape, d.estrides))
        elif isinstance(x, Tensor):  # a subclass: the full path
            return None
        else:
            key.append(x.__class__)
    for p in params:
        key.append(p.__class__)
    return tuple(key)


def _planned(plan, engine, operands, params, inplace):
    kernel, contig, shape, result, scalars, pt, metas, n, compute, rkey = plan
    ops = operands
    if None in scalars:  # numbers: PyTorch's argument parsing first, as entry's
        ops = [x if c is None else number(x, engine, i) for i, (x, c) in enumerate(zip(operands, scalars))]
    if engine.early is not None:
        engine.early(ops)
    kp = engine.prep(compute, ops, list(params)) if engine.prep is not None else params
    args = [n] if contig else [n, metas[0], None, 0, metas[1]]
    dev = None
    for i, x in enumerate(ops):
        conv = scalars[i]
        if conv is None:
            a = x._data
            if dev is None:
                dev = x._device
            if contig:
                args += (a.root, a.offset)
            else:
                args += (a.root, a.offset, metas[i + 2])
        else:
            args.append(conv(x))
    dest = ops[0]._data if inplace else S.empty(shape, result.np)
    if contig:
        args += (dest.root, dest.offset)
    else:
        args[2], args[3] = dest.root, dest.offset
    args += [pt(p.item() if isinstance(p, Tensor) else p) for p in kp]
    if n:
        if rkey[0] is None:  # the arguments' kinds are the same on every call of a plan
            rkey[0] = arg_key(kernel, args) or False
        if contig:
            launch_ew(kernel, *args, unroll=metas, key=rkey[0] or None)
        else:
            launch(kernel, *args, key=rkey[0] or None)
    if inplace:
        ops[0]._vc[0] += 1
        return ops[0]
    return _make(dest, result, Tensor, dev)


def _make_plan(engine, pw, operands, compute, result, half, inplace):
    """The plan of a call that just ran through the full path (None where it may not have one)."""
    npc = compute.np
    tensors = [x._data for x in operands if x.__class__ is Tensor]
    if any(a.dtype != npc for a in tensors):
        return None
    shape = _broadcast([a.shape for a in tensors])
    n = 1
    for s in shape:
        n *= s
    scalars = []
    for i, x in enumerate(operands):
        if x.__class__ is Tensor:
            scalars.append(None)
            continue
        wide = pw.wide and pw.inputs[i] in pw.wide and compute.category == D._FLOAT
        scalars.append(_scalar_conv(compute, half, wide, half and i not in engine.opmath))
    pat = "".join("a" if c is None else "s" for c in scalars)
    h = "h" if half else ""
    pt = np.float32 if half else npc.type
    if all(a.size == n and a.contiguous for a in tensors):
        # a contiguous plan keeps its kernel's unroll where a strided one keeps its metadata
        kernel = _kernel(pw, f"c{h}_" + pat, compute.is_complex)
        return (kernel, True, shape, result, scalars, pt, _unroll(pw, compute.is_complex), n, compute, [None])
    full = shape or (1,)  # as _run: 0-d runs one element
    dest = operands[0]._data if inplace else S.CudaArray(None, None, 0, shape, S.contiguous_strides(shape), result.np)
    metas = [meta(full), meta(strides_for(dest, full))]
    metas += [meta(strides_for(x._data, full)) if x.__class__ is Tensor else None for x in operands]
    return (_kernel(pw, f"s{h}_" + pat, compute.is_complex), False, shape, result, scalars, pt, metas, n, compute, [None])


def _scalar_conv(compute, half, wide, rnd):
    # a number's path through entry and call after ``number``, as one function of the value
    def conv(v):
        if rnd:
            v = _half(v)
        if wide:
            return np.float64(_scalar(v, compute))
        return np.float32(_scalar(v, D.float32)) if half else compute.np.type(_scalar(v, compute))

    return conv


def entry(engine, operands, params=(), out=None, inplace=False):
    """The CUDA backend of an elementwise op declared with ``engine``: the CPU engine's checks
    and dtype rules (Note [Elementwise semantics]), then the kernel generated for CUDA."""
    key = None
    if out is None and engine.__class__ is Elementwise:
        key = _plan_key(engine, operands, params, inplace)
        plan = _PLANS.get(key, False) if key is not None else False
        if plan:
            return _planned(plan, engine, operands, params, inplace)
    if isinstance(engine, Routed):
        engine, operands, params = engine.pick(list(operands), list(params))
    if not isinstance(engine, Elementwise):
        return call(engine, operands, params, out, inplace)
    ops = [x if isinstance(x, Tensor) else number(x, engine, i) for i, x in enumerate(operands)]
    if not any(isinstance(x, Tensor) for x in ops):
        raise device_error()
    if engine.early is not None:
        engine.early(ops)
    common, compute, result = engine._dtypes(ops)
    target = ops[0] if inplace else out
    if target is not None:
        engine._check_out(target, inplace, compute, result, engine.out_strict(ops))
    engine.check(common)
    kp = engine.prep(compute, ops, list(params)) if engine.prep else list(params)
    kname = engine.kname.removesuffix("_cpu")
    pw = engine.variants[CAT[compute.category]]
    if compute is D.float16:  # as the CPU engine: numbers round to half, but opmath ones (mul's)
        ops = [x if isinstance(x, Tensor) or (i in engine.opmath and not isinstance(x, Tensor)) else _half(x)
               for i, x in enumerate(ops)]  # fmt: skip
    r = call(pw, ops, kp, out, inplace, (compute, result), raw=True, kname=kname)
    if key is not None and key not in _PLANS:
        if len(_PLANS) > 4096:  # bounded, as the metadata cache
            _PLANS.clear()
        _PLANS[key] = _make_plan(engine, pw, operands, compute, result, compute is D.float16, inplace)
    return r


def call(pw, operands, params=(), out=None, inplace=False, types=None, raw=False, kname=None):
    """Elementwise ``pw`` on CUDA operands (PyTorch's promotion, broadcasting, out=, in place);
    ``types``: (compute, result) already decided; ``raw``: params are already validated;
    ``kname``: the kernel name errors give (PyTorch's ``add_cuda``)."""
    if inplace:
        out = operands[0]
    if out is not None and out._device.type != "cuda":
        raise device_error()
    devs: list = []
    vals = [_operand(x, devs) for x in operands]
    compute, result = pw.dtypes(operands) if types is None else types
    if out is not None and not inplace and out._dtype is not result:
        if not D.can_cast(result, out._dtype):
            raise RuntimeError(f"result type {_cname(result)} can't be cast to the desired output type "
                               f"{_cname(out._dtype)}")  # fmt: skip
        r = call(pw, operands, params, types=types, raw=raw, kname=kname)
        from ._install import copy_into

        if out._data.shape != r._data.shape:
            _resize(out, r._data.shape)
        copy_into(out._data, r._data)
        out._vc[0] += 1
        return out
    npc = compute.np
    half = compute is D.float16  # float16 kernels read half arrays and compute in float32 (opmath)
    arrays = []
    for i, v in enumerate(vals):
        if isinstance(v, Tensor):
            a = v._data
            arrays.append(a if a.dtype == npc else cast(a, npc))
        else:
            wide = pw.wide and pw.inputs[i] in pw.wide and compute.category == D._FLOAT
            arrays.append(np.float64(_scalar(v, compute)) if wide else
                          np.float32(_scalar(v, D.float32)) if half else npc.type(_scalar(v, compute)))  # fmt: skip
    shape = _broadcast([a.shape for a in arrays if isinstance(a, S.CudaArray)])
    if inplace and shape != out._data.shape:
        raise RuntimeError(f"output with shape {list(out._data.shape)} doesn't match the broadcast shape "
                           f"{list(shape)}")  # fmt: skip
    if out is None:
        dest = S.empty(shape, result.np)
    else:
        if out._data.shape != shape:
            _resize(out, shape)
        dest = out._data
    pt = np.float32 if half else npc.type
    if raw:  # as the CPU kernels do: every parameter cast to the compute dtype
        pvals = [pt(p.item() if isinstance(p, Tensor) else p) for p in params]
    else:
        pvals = [pt(_param(p, D.float32 if half else compute)) for p in params]
    _run(pw, arrays, dest, shape, pvals, "h" if half else "", compute.is_complex)
    if out is None:
        return _make(dest, result, Tensor, devs[0]._device)
    out._vc[0] += 1
    return out


def _run(pw, arrays, dest, shape, pvals, h="", cplx=False):
    n = dest.size
    if not n:
        return
    pat = "".join("a" if isinstance(a, S.CudaArray) else "s" for a in arrays)
    if dest.contiguous and all(not isinstance(a, S.CudaArray) or a.size == n and a.contiguous for a in arrays):
        args = []
        for a in arrays:
            args += (a.root, a.offset) if isinstance(a, S.CudaArray) else (a,)
        launch_ew(_kernel(pw, f"c{h}_" + pat, cplx), n, *args, dest.root, dest.offset, *pvals, unroll=_unroll(pw, cplx))
        return
    shape = shape or (1,)  # 0-d: one element, and the kernels' loop over dims needs one
    args = [meta(shape), *parts(dest, shape)]
    for a in arrays:
        args += parts(a, shape) if isinstance(a, S.CudaArray) else [a]
    launch(_kernel(pw, f"s{h}_" + pat, cplx), n, *args, *pvals)


def _resize(out: Tensor, shape) -> None:
    if out._data.size:
        warn_resize(out._data.shape, shape, 4)
    out._data = S.empty(shape, out._dtype.np)
