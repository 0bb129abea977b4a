"""Meta kernels: every op's output metadata from its inputs' metadata, one rule per op family.

``install()`` runs once every op is registered and attaches ``op.impls["meta"]`` to each op
with a CPU kernel, by family: views run their CPU kernel on stand-ins (Note [Meta storage]);
``out=`` and in-place overloads reuse their functional sibling's rule; the rest look their
base name up in ``SHAPE_RULES`` (numtorch/ops/_meta_shapes.py). Elementwise ops get theirs
from the pointwise engine (``pointwise_meta``, registered by defpointwise).

# Note [Dtype probe]
# A family rule gives output shapes; output dtypes (and PyTorch's dtype refusals) come from
# the op's own CPU kernel run once on a probe: tensors of the same dtypes and ranks whose every
# dimension has at most one element. The probe costs the same for any size, reads no data of
# the meta tensors (they have none), and keeps the dtype rules in one place (the CPU kernel).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._meta import META, NO_DATA, MetaArray, contiguous_strides, empty_meta, from_standin, standin
from .._tensor import Tensor, _make
from ._meta_shapes import DATA_DEPENDENT, SHAPE_RULES, TYPED_RULES, broadcast, data_dependent, no_meta_kernel
from ._registry import OPS

_PROBE_SMALL = 4096


# ---- device checks and errors ---------------------------------------------------------------------
def _walk(vals):
    for v in vals:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, Tensor))


def check_devices(vals) -> None:
    """PyTorch's device check for a meta kernel: a CPU 0-d tensor may stand for a scalar."""
    for t in _walk(vals):
        if t._device.type != "meta" and (t._data.ndim or t._device.type != "cpu"):
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device meta!")


# ---- the probe (Note [Dtype probe]) -------------------------------------------------------------------
def _probe_arg(v, full: bool):
    if isinstance(v, Tensor) and v._device.type == "meta":
        shape = v._data.shape if full else tuple(min(n, 1) for n in v._data.shape)
        fill = 1 if v._dtype.category >= D._FLOAT else 0  # valid probabilities / divisors; valid indices
        return _make(np.full(shape, fill, v._dtype.np), v._dtype)
    if isinstance(v, list):
        return [_probe_arg(x, full) for x in v]
    if isinstance(v, tuple):
        return tuple(_probe_arg(x, full) for x in v)
    return v


# a factory's probe: sizes zeroed (nothing allocated), the CPU device
_ZERO = {"n": 0, "m": 0, "steps": 0, "row": 0, "col": 0, "num_samples": 0, "device": None}


def _factory_probe(names, vals):
    vals = list(vals)
    for i, k in enumerate(names):
        if k in ("size", "stride") and vals[i] is not None:
            vals[i] = [0] * len(vals[i]) if k == "size" else list(vals[i])
        elif k in _ZERO:
            vals[i] = _ZERO[k] if vals[i] is not None else None
        elif k == "end":
            vals[i] = vals[names.index("start")] if "start" in names else 0
    return vals


# int arguments that never size a buffer: a kernel given a clamped probe cannot overrun with them
_SAFE_INTS = frozenset({"dim", "dims", "dim0", "dim1", "dim2", "keepdim", "dtype", "correction", "half_to_float",
                        "descending", "stable", "largest", "sorted", "reduction", "ignore_index", "offset"})  # fmt: skip


def _clamp_safe(op) -> bool:
    return all(a.name in _SAFE_INTS or not a.type.removesuffix("?").startswith(("int", "SymInt"))
               for a in op._schema.arguments)  # fmt: skip


def probe(op, vals):
    """The CPU kernel's result on a probe: its tensors' dtypes are the meta outputs' dtypes.

    A small call probes with its real shapes (a valid CPU call: PyTorch's errors surface); a
    large one with clamped shapes only where no int argument sizes a buffer (the kernel would
    trust it and overrun the probe), else None: the dtypes then follow the inputs."""
    fn = op.impls.get("cpu") or op.impls.get("any")
    names = [a.name for a in op._schema.arguments]
    if "device" in names:
        vals = _factory_probe(names, vals)
        full = False
    else:
        full = sum(t._data.size for t in _walk(vals)) <= _PROBE_SMALL
        if not full and not _clamp_safe(op):
            return None
    try:
        with warnings.catch_warnings():  # the probe's own warnings (degrees of freedom <= 0) are not the call's
            warnings.simplefilter("ignore")
            return fn(*[_probe_arg(v, full) for v in vals])
    except Exception:
        if full:
            raise  # PyTorch's error for this call
        return None


def _dtypes_of(res) -> list:
    if isinstance(res, Tensor):
        return [res._dtype]
    if isinstance(res, (tuple, list)):
        return [r._dtype if isinstance(r, Tensor) else None for r in res]
    return []


# ---- families ------------------------------------------------------------------------------------------
def view_rule(op):
    """A view kernel computes metadata only: run it on stand-ins of the meta inputs."""
    cpu = op.impls["cpu"]

    def rule(*vals):
        check_devices(vals)
        src = next(_walk(vals))
        ins = []
        for v in vals:
            if isinstance(v, Tensor) and v._device.type == "meta":
                t = _make(standin(v._data), v._dtype, Tensor, vc=v._vc)
                ins.append(t)
            else:
                ins.append(v)
        stand = ins[vals.index(src)]._data
        return _back(cpu(*ins), stand, src)

    return rule


def _back(r, stand, src):
    if isinstance(r, Tensor):
        if r._device.type == "meta":
            return r
        t = _make(from_standin(r._data, stand, src._data), r._dtype, type(r), META, vc=r._vc)
        if r._base is not None:
            t._base = src if src._base is None else src._base
        return t
    if isinstance(r, (list, tuple)):
        vals = [_back(x, stand, src) for x in r]
        return vals if isinstance(r, list) else type(r)(vals) if type(r) is tuple else type(r)(*vals)
    return r


def shape_rule(op, shapes_fn):
    """A family rule: ``shapes_fn(args)`` gives the output shapes (args by schema name); the
    dtypes come from the probe. Outputs are contiguous."""
    names = [a.name for a in op._schema.arguments]
    nret = len(op._schema.returns)

    def rule(*vals):
        args = dict(zip(names, vals))
        dev = args.get("device")
        if dev is not None and getattr(dev, "type", str(dev)) != "meta":
            # empty_like(meta, device="cpu"): the device argument wins; the kernel reads metadata only
            ins = [_make(standin(v._data), v._dtype) if isinstance(v, Tensor) else v for v in vals]
            return op.impls["cpu"](*ins)
        check_devices(vals)
        shapes = shapes_fn(args)
        single = not isinstance(shapes, list)
        shapes = [shapes] if single else shapes
        dts = _dtypes_of(probe(op, vals))
        if not dts:
            first = next(_walk(vals), None)
            dts = [first._dtype if first is not None else D.get_default_dtype()] * len(shapes)
        strided = op._schema.name in ("empty_strided", "new_empty_strided")
        strides = [args["stride"]] if strided else [None] * len(shapes)
        outs = [empty_meta(s, dt, st) for s, dt, st in zip(shapes, dts, strides)]
        if single and nret == 1:
            return outs[0]
        return _wrap_like(op, outs)

    return rule


def typed_rule(op, fn):
    """A rule giving (shape, dtype) per result (Note [Linalg meta rules]): contiguous outputs."""
    names = [a.name for a in op._schema.arguments]
    single = len(op._schema.returns) == 1

    def rule(*vals):
        check_devices(vals)
        outs = [empty_meta(s, dt) for s, dt in fn(dict(zip(names, vals)))]
        return outs[0] if single else _wrap_like(op, outs)

    return rule


def _wrap_like(op, outs):
    ret = op._schema.returns
    if len(ret) == 1 and ret[0].type.startswith("Tensor["):
        return outs
    from .. import return_types

    cls = getattr(return_types, op._schema.name, None)
    return cls(*outs) if cls is not None else tuple(outs)


def sibling_rule(op, sibling, fn=None):
    """``out=`` and in-place overloads: the functional sibling's metadata, written to out/self."""
    fn = sibling.impls.get("meta") if fn is None else fn
    sib = [a.name for a in sibling._schema.arguments]
    names = [a.name for a in op._schema.arguments]
    outs = [n for n, a in zip(names, op._schema.arguments) if a.is_out]

    def rule(*vals):
        check_devices(vals)
        args = dict(zip(names, vals))
        res = fn(*[args[n] for n in sib])
        if not outs:  # in-place: the result must keep self's shape
            self = vals[op.self_idx]
            r = res[0] if isinstance(res, (tuple, list)) else res
            if r._data.shape != self._data.shape:
                raise RuntimeError(
                    f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                    f"{list(r._data.shape)}"
                )
            self._vc[0] += 1
            return self
        got = list(res) if isinstance(res, (tuple, list)) else [res]
        dest = [args[n] for n in outs]
        for d, r in zip(dest, got):
            if d._data.shape != r._data.shape:
                d._data = MetaArray(r._data.shape, d._dtype.np)
            d._vc[0] += 1
        return dest[0] if len(dest) == 1 else tuple(dest)

    return rule


# in-place ops that write values only (random fills, copies): self keeps its metadata
KEEPS_SELF = frozenset({"uniform_", "normal_", "random_", "exponential_", "geometric_", "log_normal_",
                        "cauchy_", "bernoulli_", "zero_", "fill_", "copy_", "embedding_renorm_"})  # fmt: skip


def keeps_self_rule(op):
    def rule(*vals):
        self = vals[0]
        if op._schema.name == "copy_":  # any device may be copied into meta (nothing is read)
            if broadcast([self._data.shape, vals[1]._data.shape]) != self._data.shape:
                raise RuntimeError(
                    f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                    f"{list(broadcast([self._data.shape, vals[1]._data.shape]))}"
                )
        else:
            check_devices(vals)
        self._vc[0] += 1
        return self

    return rule


def pointwise_meta(pw, operands, params, out=None, inplace=False):
    """The elementwise engine's meta kernel: promotion and checks as on CPU, broadcasting."""
    check_devices(operands)
    if hasattr(pw, "pick"):  # Routed: the rounding mode / bounds choose the Elementwise
        pw, operands, params = pw.pick(list(operands), list(params))
    if hasattr(pw, "_dtypes"):
        operands = [x.item() if isinstance(x, np.generic) else x for x in operands]
        common, _compute, result = pw._dtypes(operands)
        shape = broadcast([x._data.shape for x in operands if isinstance(x, Tensor)])
        pw.check(common)
    else:
        _compute, result = pw.dtypes(operands)
        shape = broadcast([x._data.shape for x in operands if isinstance(x, Tensor)])
    if inplace:
        out = operands[0]
        if shape != out._data.shape:
            raise RuntimeError(
                f"output with shape {list(out._data.shape)} doesn't match the broadcast shape {list(shape)}"
            )
    if out is None:
        return empty_meta(shape, result)
    if not D.can_cast(result, out._dtype):
        raise RuntimeError(
            f"result type {_cname(result)} can't be cast to the desired output type {_cname(out._dtype)}"
        )
    if out._data.shape != shape:
        out._data = MetaArray(shape, out._dtype.np)
    out._vc[0] += 1
    return out


def _cname(d) -> str:
    return repr(d).removeprefix("torch.").capitalize().replace("Bfloat", "BFloat")


# ---- installation -------------------------------------------------------------------------------------
def _functional_sibling(op):
    s = op._schema
    base = s.name.rstrip("_") if op.kind == "inplace" else s.name
    names = [a.name for a in s.arguments if not a.is_out]
    want = s.overload_name
    for suffix in ("_out", "out"):
        want = want.removesuffix(suffix)
    want = want.rstrip("_")
    cands = [o for n, o in OPS.items() if o._schema.name == base and o.kind in ("functional", "view")
             and o is not op and [a.name for a in o._schema.arguments] == names]  # fmt: skip
    for o in cands:
        if o._schema.overload_name == want:
            return o
    return cands[0] if cands else None


def _to_copy_rule(op):
    base = shape_rule(op, lambda a: tuple(a["self"]._data.shape))

    def rule(self, dtype=None, layout=None, device=None, *rest):
        if device is not None and getattr(device, "type", str(device)) != "meta":
            raise NotImplementedError(NO_DATA)
        return base(self, dtype, layout, None, *rest)

    return rule


def _composite_meta(op):
    # a composite's metadata for its out= sibling (matmul.out, outer.out): the family shape
    # rule; the dtype is the out tensor's (sibling_rule keeps it)
    names = [a.name for a in op._schema.arguments]
    fn = SHAPE_RULES[op._schema.name]

    def rule(*vals):
        check_devices(vals)
        return empty_meta(fn(dict(zip(names, vals))), next(_walk(vals))._dtype)

    return rule


def copy_to_meta(t, dt, dev):
    """``.to("meta")`` of a CPU tensor (numtorch.ops.factory.conversion.DEVICE_COPY)."""
    return empty_meta(t._data.shape, dt)


def install() -> dict:
    """Attach a meta kernel to every op with a CPU kernel that has none; returns counts."""
    OPS["aten::_to_copy"].impls["meta"] = _to_copy_rule(OPS["aten::_to_copy"])

    counts = {"view": 0, "shape": 0, "sibling": 0, "data_dependent": 0}
    pending = []
    for op in OPS.values():
        if "meta" in op.impls or "composite" in op.impls or not op.impls:
            continue
        name = op._schema.name
        impl = op.impls.get("cpu")
        owner = getattr(impl, "__self__", None)
        if hasattr(owner, "dtypes") and impl.__name__ in ("unary", "binary"):  # an engine's entry
            k = 1 if impl.__name__ == "unary" else 2
            op.impls["meta"] = lambda *v, pw=owner, k=k: pointwise_meta(pw, v[:k], v[k:])
            counts["pointwise"] = counts.get("pointwise", 0) + 1
        elif name in DATA_DEPENDENT:
            op.impls["meta"] = data_dependent(op)
            counts["data_dependent"] += 1
        elif (op.kind == "view" or name == "_unsafe_view") and "cpu" in op.impls:
            op.impls["meta"] = view_rule(op)
            counts["view"] += 1
        elif op.kind in ("out", "inplace"):
            pending.append(op)
        elif name in TYPED_RULES:
            op.impls["meta"] = typed_rule(op, TYPED_RULES[name])
            counts["shape"] += 1
        elif name in SHAPE_RULES or (name, op._schema.overload_name) in SHAPE_RULES:
            fn = SHAPE_RULES.get((name, op._schema.overload_name)) or SHAPE_RULES[name]
            op.impls["meta"] = shape_rule(op, fn)
            counts["shape"] += 1
    for op in pending:
        sib = _functional_sibling(op)
        if sib is not None and "meta" in sib.impls:
            op.impls["meta"] = sibling_rule(op, sib)
            counts["sibling"] += 1
        elif sib is not None and "composite" in sib.impls and sib._schema.name in SHAPE_RULES:
            op.impls["meta"] = sibling_rule(op, sib, _composite_meta(sib))
            counts["sibling"] += 1
        elif op.kind == "inplace" and op._schema.name in KEEPS_SELF:
            op.impls["meta"] = keeps_self_rule(op)
            counts["sibling"] += 1
    return counts


__all__ = ["install", "pointwise_meta", "copy_to_meta", "broadcast", "contiguous_strides", "no_meta_kernel"]
