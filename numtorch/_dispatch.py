"""The dispatcher: Autograd -> Python -> Backend, in PyTorch's order.

``dispatch(op, vals)`` takes an OpOverload and its argument values in schema order (defaults
filled). Each key either handles the call or passes it down:

- Autograd: when grad mode is on and a Tensor argument requires grad (or a forward-AD level
  is active), record a graph node around the call below (numtorch.autograd._engine).
- Python: when a TorchDispatchMode is active or an argument's class defines
  ``__torch_dispatch__`` (numtorch.utils._python_dispatch).
- Backend: the kernel table ``op.impls`` keyed by device type.

Composite ops (``op.impls["composite"]``) run above all keys: they decompose into other ops,
which dispatch themselves, as CompositeImplicitAutograd ops do in PyTorch.
"""

from __future__ import annotations

from . import _C, overrides
from . import _bfloat16 as _bf16
from ._device import CPU, cuda_not_compiled
from ._state import STATE
from ._functorch._levels import CALL_GRAD, VMAP_LEVELS
from ._tensor import PLAIN_SUBCLASSES, PY_DISPATCH_TYPES, Tensor
from ._dtype import bfloat16 as _BF

# Note [Per-op fast path]
# dispatch(op, vals) calls op.fast(*vals): a function generated once per op (on its first
# call) whose argument checks are unrolled: when every tensor argument is a plain CPU Tensor
# that needs no gradient, and no dispatch mode or forward-AD level is active, it calls the CPU
# kernel directly; otherwise it takes slow_dispatch, which runs the keys in order. Registering
# a kernel (numtorch.library) resets op.fast so the next call regenerates it.
_NON_TENSOR = (int, float, bool, complex, type(None))

_FAST_TEMPLATE = """
def fast({args}):
    if {cond}:{inline}
        return _impl({args})
    return _slow(_op, [{args}])
"""

# With a generated recorder (Note [Generated recording]): the same gate without the grad test,
# then the no-grad case as above, else the recording of plain CPU tensors, else slow_dispatch.
# An op gets it on its first call that leaves the no-grad case (``_upgrade``): compiling the
# recorder costs ~0.5 ms per op, which inference never pays.
_FAST_GRAD_TEMPLATE = """
def fast({args}):
    if {cond}:
        if {nograd}:{inline}
            return _impl({args})
        if {grad}:
{record}
    return _slow(_op, [{args}])
"""

_FORWARD = """_S.grad_enabled = False
try:
    _o = _fwd({args})
finally:
    _S.grad_enabled = True"""


def dispatch(op, vals):
    return op.fast(*vals)


def make_fast(op, grad: bool = False):
    """Generate op.fast (Note [Per-op fast path]); ``grad``: with its generated recorder."""
    composite = op.impls.get("composite")
    if composite is not None:
        return _composite_fast(op, composite)
    impl = op.impls.get("cpu") or op.impls.get("any")
    args = [f"x{i}" for i in range(op.nargs)]
    if impl is not None and op.list_idx and not _random_gate(op) and not _bf16_gate(op):
        return _list_fast(op, impl)
    if impl is not None and not op.tensor_idx and not op.list_idx:
        return _factory_fast(op, impl, args)
    if impl is None or not op.tensor_idx or op.list_idx:
        return lambda *v: slow_dispatch(op, list(v))
    recordable = _engine.recordable(op)
    if grad and recordable:
        return _make_fast_grad(op, impl, args)
    conds = ["not _S.td_modes", "_S.fw_level < 0", *_random_gate(op), *_bf16_gate(op)]
    first = op.tensor_idx[0]
    check_rg = op.autograd is not None
    for i in op.tensor_idx:
        x = f"x{i}"
        rg = f" and (not {x}._rg or not _S.grad_enabled)" if check_rg else ""
        plain = f"({x}.__class__ is _T or {x}.__class__ in _PL)"  # Note [Plain subclasses]
        if i == first:
            conds.append(f"{plain}{rg} and {x}._device is _CPU")
        else:  # a meta operand after a cpu one takes the slow path to PyTorch's device error
            conds.append(f"(({plain}{rg} and {x}._device is _CPU) or {x}.__class__ in _NT)")
    inline, extra = _inline(op, impl, args)
    src = _FAST_TEMPLATE.format(args=", ".join(args), cond=" and ".join(conds), inline=inline)
    ns = {"_S": STATE, "_T": Tensor, "_CPU": CPU, "_NT": _NON_TENSOR, "_impl": impl,
          "_slow": _upgrade if recordable else slow_dispatch, "_op": op, "_PL": PLAIN_SUBCLASSES,
          "_V": VMAP_LEVELS, "_BF": _BF, **extra}  # fmt: skip
    exec(compile(src, f"<numtorch fast {op}>", "exec"), ns)
    return ns["fast"]


# Note [Factory fast path]
# An op with no tensor argument (zeros, full, arange, eye, rand, ...) took slow_dispatch on
# every call: the keys in order, then device_type_of's scan of the schema for ``device``
# (~1.3 us of a 3.5 us small zeros). With no dispatch mode and no vmap level, a ``device`` that
# is None or a CPU device and no bfloat16 ``dtype`` (the backend's bfloat16 route), nothing
# those keys decide can differ: the CPU kernel runs directly. Autograd has nothing to record
# without a tensor argument (a factory's requires_grad is set by its binding afterwards).
def _factory_fast(op, impl, args):
    dev = [f"(x{i} is None or x{i} is _CPU or x{i}.__class__ is _DEV and x{i}.type == 'cpu')"
           for i, a in enumerate(op._schema.arguments) if a.name == "device"]  # fmt: skip
    conds = ["not _S.td_modes", "not _V", *dev, *_bf16_gate(op)]
    src = f"""
def fast({", ".join(args)}):
    if {" and ".join(conds)}:
        return _impl({", ".join(args)})
    return _slow(_op, [{", ".join(args)}])
"""
    ns = {"_S": STATE, "_CPU": CPU, "_DEV": type(CPU), "_impl": impl, "_slow": slow_dispatch, "_op": op,
          "_V": VMAP_LEVELS, "_BF": _BF}  # fmt: skip
    exec(compile(src, f"<numtorch fast {op}>", "exec"), ns)
    return ns["fast"]


# Note [Tensor-list fast path]
# An op with a Tensor[] argument (cat, stack, hstack, block_diag, meshgrid, index_put's
# indices ...) took slow_dispatch on every call: the keys in order, device_type_of, the
# bfloat16 test, ~2 us of a 7 us small cat. When every tensor (listed or not; None where the
# schema allows it) is a plain CPU tensor that needs no gradient, and no mode or forward-AD
# level is active, nothing those keys decide can differ: the CPU kernel runs directly.
def _list_fast(op, impl):
    tix, lix, S, plain = op.tensor_idx, op.list_idx, STATE, PLAIN_SUBCLASSES
    rg = op.autograd is not None

    def bad(v) -> bool:  # not a plain CPU tensor that needs no gradient (None passes)
        if v is None:
            return False
        c = v.__class__
        return (c is not Tensor and c not in plain) or v._device is not CPU or (rg and v._rg and S.grad_enabled)

    def fast(*vals):
        if not S.td_modes and S.fw_level < 0:
            n = 0
            for i in lix:
                seq = vals[i]
                if seq.__class__ is not list and seq.__class__ is not tuple:
                    return slow_dispatch(op, list(vals))
                for v in seq:
                    if v.__class__ is Tensor and v._device is CPU and not (v._rg and rg and S.grad_enabled):
                        n += 1
                    elif bad(v):
                        return slow_dispatch(op, list(vals))
            if n:
                for i in tix:
                    if bad(vals[i]):
                        return slow_dispatch(op, list(vals))
                return impl(*vals)
        return slow_dispatch(op, list(vals))

    return fast


def _random_gate(op) -> list:
    # a random op inside vmap reaches the vmap key even on plain tensors: ``randomness`` decides
    # what rand_like(x) or bernoulli(p) of an unbatched tensor does, as PyTorch's vmap mode key
    if any(getattr(t, "name", t) == "nondeterministic_seeded" for t in op.tags):
        return ["not _V"]
    return []


def _bf16_gate(op) -> list:
    # dtype=torch.bfloat16 from non-bfloat16 operands (zeros_like, sum, to): the backend key's
    # bfloat16 route, as bfloat16 operands get through their device (Note [bfloat16])
    return [f"x{i} is not _BF" for i in _bf16.dtype_args(op)]


def _upgrade(op, vals):
    op.fast = make_fast(op, grad=True)
    return op.fast(*vals)


def _make_fast_grad(op, impl, args):
    first = op.tensor_idx[0]
    conds = ["not _S.td_modes", "_S.fw_level < 0", *_random_gate(op), *_bf16_gate(op)]
    nograd, cpu = [], []
    for i in op.tensor_idx:
        x = f"x{i}"
        plain = f"({x}.__class__ is _T or {x}.__class__ in _PL)"  # Note [Plain subclasses]
        if i == first:
            conds.append(f"{plain} and {x}._device is _CPU")
            nograd.append(f"not {x}._rg")
        else:  # tensor tests first: the tuple scan of _NT only for numbers / None; a meta
            # operand after a cpu one takes the slow path to PyTorch's device error
            conds.append(f"({plain} and {x}._device is _CPU or {x}.__class__ in _NT)")
            nograd.append(f"({plain} and not {x}._rg or {x}.__class__ in _NT)")
            cpu.append(f"({plain} and {x}._device is _CPU or {x}.__class__ in _NT)")
    inline, extra = _inline(op, impl, args)
    ns = {"_S": STATE, "_T": Tensor, "_CPU": CPU, "_NT": _NON_TENSOR, "_impl": impl,
          "_slow": slow_dispatch, "_op": op, "_PL": PLAIN_SUBCLASSES, "_V": VMAP_LEVELS,
          "_BF": _BF, **extra}  # fmt: skip
    lines = _engine.recorder_lines(op, args, first, ns)
    fwd = _FORWARD.format(args=", ".join(args)).split("\n")
    at = lines.index("{FORWARD}")
    lines[at : at + 1] = fwd
    ns["_fwd"] = _forward_fn(op, impl, args, inline, extra) if inline else impl
    src = _FAST_GRAD_TEMPLATE.format(
        args=", ".join(args),
        cond=" and ".join(conds),
        nograd=f"({' and '.join(nograd)}) or not _S.grad_enabled",
        grad=" and ".join(["not _S.anomaly", "_op.autograd is _D", *cpu]),
        inline=inline.replace("\n", "\n    "),  # one level deeper than in _FAST_TEMPLATE
        record="".join(f"            {x}\n" for x in lines).rstrip("\n"),
    )
    exec(compile(src, f"<numtorch fast {op}>", "exec"), ns)
    return ns["fast"]


def _forward_fn(op, impl, args, inline, extra):
    # the inlined pointwise case as a function of its own, for the recording path
    body = inline.replace("\n    ", "\n")  # one level less than in _FAST_TEMPLATE
    a = ", ".join(args)
    src = f"def fwd({a}):{body}\n    return _impl({a})\n"
    ns = {"_S": STATE, "_T": Tensor, "_CPU": CPU, "_NT": _NON_TENSOR, "_impl": impl,
          "_PL": PLAIN_SUBCLASSES, **extra}  # fmt: skip
    exec(compile(src, f"<numtorch forward {op}>", "exec"), ns)
    return ns["fwd"]


def _inline(op, impl, args):
    # A pointwise engine's unary/binary entry (operands first, then params, as the schema
    # orders them) inlines its plain-tensor case: one Python frame from op.fast to the kernel.
    owner = getattr(impl, "__self__", None)
    kind = getattr(getattr(impl, "__func__", None), "__name__", "")
    gen = getattr(owner, "inline_fast", None)
    if gen is None or kind not in ("unary", "binary") or op.tensor_idx[0] != 0:
        return "", {}
    return gen(kind, args)


# Note [Composite bodies are below the Python API]
# A composite's body is written with numtorch's tensor methods and operators, but in PyTorch it
# runs in C++ where neither modes nor __torch_function__ subclasses see its inside: a mode sees
# ``F.linear`` (or ``aten.linear``), never the ``t``/``matmul``/``add`` it is made of. So when a
# mode is on the stack or an argument's type has a handler, the body runs with torch-function
# disabled (its inner gates then fall through); plain calls pay three reads.
#
# The gate is generated per op with its tensor tests unrolled (plain Tensor first): the loop
# over ``tensor_idx`` in _has_tf_arg cost ~0.5 us of a 3.5 us small softmax.
_COMPOSITE_TEMPLATE = """
def fast({args}):
    if _S.tf_modes or (_TF[0] == _EN and ({tests})):
        return _disabled(_c, {args})
    return _c({args})
"""


def _composite_fast(op, composite):
    tix, lix = op.tensor_idx, op.list_idx
    args = [f"x{i}" for i in range(op.nargs)]
    tests = [f"({args[i]}.__class__ is not _T and _needs({args[i]}.__class__))" for i in tix]
    tests += [f"_list_tf({args[i]})" for i in lix]
    src = _COMPOSITE_TEMPLATE.format(args=", ".join(args), tests=" or ".join(tests) or "False")
    ns = {"_S": STATE, "_TF": _C.TF_STATE, "_EN": _C.ENABLED, "_T": Tensor, "_c": composite,
          "_needs": _needs_tf, "_list_tf": overrides.list_has_tf, "_disabled": _tf_disabled}  # fmt: skip
    exec(compile(src, f"<numtorch composite {op}>", "exec"), ns)
    fast = ns["fast"]
    fast.__wrapped__ = composite
    return fast


def _needs_tf(tp) -> bool:
    return tp not in overrides.NO_TF and overrides._needs_handler(tp)


def _tf_disabled(composite, *vals):
    TF = _C.TF_STATE
    old = TF[0]
    TF[0] = _C.ALL_DISABLED
    try:
        return composite(*vals)
    finally:
        TF[0] = old


def _has_tf_arg(vals, tix, lix) -> bool:
    no_tf = overrides.NO_TF
    for i in tix:
        if vals[i].__class__ not in no_tf and overrides._needs_handler(vals[i].__class__):
            return True
    for i in lix:
        if overrides.list_has_tf(vals[i]):
            return True
    return False


def slow_dispatch(op, vals):
    composite = op.impls.get("composite")
    if composite is not None:  # _composite_fast's gate, without generating it
        if STATE.tf_modes or (_C.TF_STATE[0] == _C.ENABLED and _has_tf_arg(vals, op.tensor_idx, op.list_idx)):
            return _tf_disabled(composite, *vals)
        return composite(*vals)
    st = STATE
    if VMAP_LEVELS:  # the grad mode the caller asked for (Note [vmap key])
        CALL_GRAD[0] = st.grad_enabled
    if op.autograd is not None and (st.grad_enabled or st.fw_level >= 0):
        if _needs_autograd(op, vals, st):
            return _engine.autograd_call(op, vals)
    return below_autograd(op, vals)


def _needs_autograd(op, vals, st) -> bool:
    if st.grad_enabled:
        for i in op.tensor_idx:
            v = vals[i]
            if v.__class__ is Tensor or isinstance(v, Tensor):
                if v._rg:
                    return True
        for i in op.list_idx:
            for v in vals[i]:
                if isinstance(v, Tensor) and v._rg:
                    return True
    if st.fw_level >= 0:
        for i in op.tensor_idx:
            v = vals[i]
            if isinstance(v, Tensor) and v._fw_grads:
                return True
        for i in op.list_idx:
            for v in vals[i]:
                if isinstance(v, Tensor) and v._fw_grads:
                    return True
    return False


def below_autograd(op, vals):
    if VMAP_LEVELS:  # Note [vmap key] (numtorch/_functorch/batched.py)
        return (_VMAP_KEY[0] or _load_vmap_key())(op, vals)
    # below_vmap's body, inlined: one frame less per call and per __torch_dispatch__ re-entry
    if STATE.td_modes or _has_python_key(op, vals):
        return _pd.python_key(op, vals)
    return backend(op, vals)


_VMAP_KEY = [None]  # filled on the first vmapped call: an import per call costs microseconds


def _load_vmap_key():
    from ._functorch.batched import vmap_key

    _VMAP_KEY[0] = vmap_key
    return vmap_key


def below_vmap(op, vals):
    if STATE.td_modes or _has_python_key(op, vals):
        return _pd.python_key(op, vals)
    return backend(op, vals)


def _has_python_key(op, vals) -> bool:
    for i in op.tensor_idx:
        v = vals[i]
        if v.__class__ in PY_DISPATCH_TYPES:
            return True
    for i in op.list_idx:
        for v in vals[i]:
            if v.__class__ in PY_DISPATCH_TYPES:
                return True
    return False


def backend(op, vals):
    impls = op.impls
    dev = device_type_of(op, vals)
    fn = impls.get(dev) or impls.get("any")
    if fn is None and dev == "cuda" and _cuda_kernel_for(op):
        fn = impls.get(dev) or impls.get("any")
    if fn is None or dev == "meta" and fn is not impls.get(dev) and op._schema.namespace != "aten":
        if dev == "meta":  # Note [Meta storage]; a custom op reaches meta through its fake only
            from .ops._meta_rules import no_meta_kernel

            raise no_meta_kernel(op.name())
        if dev == "cuda" and "cuda" not in _device_copy():
            raise cuda_not_compiled()  # no CUDA backend loaded at all, as a CPU-only PyTorch says
        raise NotImplementedError(
            f"Could not run '{op.name()}' with arguments from the '{dev.upper()}' backend. "
            f"'{op.name()}' is only available for these backends: "
            f"[{', '.join(k.upper() for k in impls) or 'none'}]."
        )
    if dev == "cpu" and _bf16.wants_bf16(op, vals):
        return _bf16.run(fn, op, vals)
    return fn(*vals)


def _cuda_kernel_for(op) -> bool:
    # the CUDA backend fills the kernel table on first use, and gives ops declared later (a
    # library elementwise op) their kernel on their first CUDA call (numtorch/cuda/_install.py)
    from .cuda import _kernel_for

    return _kernel_for(op)


def _device_copy() -> dict:
    from .ops.factory.conversion import DEVICE_COPY  # registered by a device backend when it loads

    return DEVICE_COPY


def device_type_of(op, vals) -> str:
    for i in op.tensor_idx:
        v = vals[i]
        if isinstance(v, Tensor):
            dev = v._device.type
            if dev == "cpu" and len(op.tensor_idx) > 1 and _meta_operand(op, vals):
                if v._data.ndim:
                    raise RuntimeError("Tensor on device meta is not on the expected device cpu!")
                return "meta"  # a 0-d cpu tensor stands for a scalar beside a meta one
            if len(op.tensor_idx) > 1:
                return _common_device(op, vals, v, dev)
            return dev
    for i in op.list_idx:
        for v in vals[i]:
            if isinstance(v, Tensor):
                return v._device.type
    # factories: the schema's device= argument decides
    return _device_kwarg(op, vals)


_MIXED = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def _common_device(op, vals, first, dev: str) -> str:
    # PyTorch's device check for cpu + cuda operands: a 0-d CPU tensor stands for a scalar (the
    # op then runs on CUDA even when it comes first); copy_ moves data between devices
    for j in op.tensor_idx:
        w = vals[j]
        if w.__class__ is not Tensor and not isinstance(w, Tensor):
            continue
        t = w._device.type
        if t == dev or t not in ("cpu", "cuda") or dev not in ("cpu", "cuda") or op._schema.name == "copy_":
            continue
        if (w if t == "cpu" else first)._data.ndim:
            raise RuntimeError(_MIXED)
        if t == "cuda":
            dev = "cuda"
    return dev


def _meta_operand(op, vals) -> bool:
    # PyTorch runs the Meta key for cpu + meta operands and its check expects the first device
    return any(isinstance(vals[i], Tensor) and vals[i]._device.type == "meta" for i in op.tensor_idx)


def _device_kwarg(op, vals) -> str:
    for a, v in zip(op._schema.arguments, vals):
        if a.name == "device" and v is not None:
            return v.type if hasattr(v, "type") else str(v).partition(":")[0]
    return "cpu"


# the Autograd key's module imports this one (below_autograd); either may be imported first;
# the Python key's module likewise (Note [Python key fast path])
from .autograd import _engine  # noqa: E402
from .utils import _python_dispatch as _pd  # noqa: E402
