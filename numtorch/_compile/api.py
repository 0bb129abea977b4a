"""numtorch.compile: guarded cache of captured graphs, run fused or replayed (Note [Compiled calls]).

# Note [Compiled calls]
# A compiled callable keeps one entry per guard key (Note [Guards]). A miss captures the call
# (Note [Capture runs the real call]) and returns that call's own result; the entry then holds
# the graph and, for backend="numba", its fusion plan (Note [Fusion regions]); when the call
# needs autograd (grad mode on and a tensor that requires grad), its captured backward instead
# (Note [Captured backward]). A hit runs the plan, or replays the graph through the dispatcher
# (autograd recording it as in eager mode) for backend="eager" or a backward that could not be
# captured. A miss that differs from a shape-generic entry's key only in its dynamic dims gets
# a plan of that graph for its sizes, made from one replay (Note [Dynamic shapes]). A capture
# that met a data-dependent read is an "eager" entry: the call runs as written.
# After ``RECOMPILE_LIMIT`` captures of one callable (shape-only recaptures not counted unless
# dynamic=False) new keys run eagerly, with PyTorch's kind of warning.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from pathlib import Path

from .._state import STATE
from .. import _logging
from . import aot, fusion
from . import dynamic as dyn
from .capture import CURRENT, Tracer, Unsupported, capturing
from ..nn.modules.module import MUTATIONS
from .guards import call_key, const_meta, function_reads, module_key, shape_free

RECOMPILE_LIMIT = 8
_MAX_ENTRIES = 256  # cached shapes of one compiled callable
BACKENDS = ("numba", "inductor", "eager", "aot_eager")
_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_ALL: weakref.WeakSet = weakref.WeakSet()


class _Entry:
    __slots__ = ("graph", "steps", "consts", "grad", "eager", "free", "aot", "key", "sig")

    def __init__(self, graph=None, steps=None, grad=False, eager=None, free=None, aot=None):
        self.graph = graph
        self.aot = aot  # Note [Captured backward]
        self.steps = steps
        # (tensor, its array, requires_grad, meta): an unchanged array and flag keep the meta
        consts = graph.consts if graph is not None else []
        self.consts = [(t, t._data, t._rg, const_meta(t)) for _, t in consts]
        self.grad = grad
        self.eager = eager  # why this key runs eagerly, or None
        self.free = free
        self.key = self.sig = None  # the guard key, the graph's signature (Note [Dynamic shapes])

    def valid(self) -> bool:
        for t, a, rg, meta in self.consts:
            if (t._data is not a or t._rg is not rg) and const_meta(t) != meta:
                return False
        return True


class CompiledFunction:
    """What ``numtorch.compile(fn)`` returns: calls ``fn`` through captured, fused graphs."""

    def __init__(self, fn, *, fullgraph=False, dynamic=None, backend="numba", module=None):
        self._orig = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.backend = backend
        self.module = module
        self.cache: dict = {}
        self.captures = 0
        self.warned = False
        self.last_key = None
        self.mod_key = (-1, None)  # (MUTATIONS count, module_key) Note [Guards]
        self.generic: list = []  # [(dynamic dims, masked key, entry, formulas)]: Note [Dynamic shapes]
        roots = [type(m).forward for m in module.modules()] if module is not None else []
        reads, cells = function_reads(fn, roots)
        self.fn_reads = (reads, cells) if reads or cells else None
        functools.update_wrapper(self, fn)
        _ALL.add(self)

    @property
    def _torchdynamo_orig_callable(self):
        return self._orig

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        if CURRENT.tracer is not None:  # inside another capture: its tracer records this call
            return self._orig(*args, **kwargs)
        mk = None
        if self.module is not None:
            mk = self.mod_key
            if mk[0] != MUTATIONS[0]:
                mk = self.mod_key = (MUTATIONS[0], module_key(self.module))
            mk = mk[1]
        tensors, key = call_key(args, kwargs, mk, self.fn_reads)
        e = self.cache.get(key)
        if e is None and self.generic:
            found = self._generic_for(key)
            if found is not None:  # Note [Dynamic shapes]: a new shape of a shape-generic graph
                return self._instance(found, key, tensors)
        if e is None or not e.valid():
            return self._capture(key, tensors, args, kwargs, e is not None)
        if e.eager is not None:
            return self._orig(*args, **kwargs)
        if e.steps is None:
            if e.aot is not None:
                return e.aot.run(tensors)
            return e.graph.run_eager(tensors)
        g = e.graph
        env = g.new_env(tensors)
        for st in e.steps:
            st.run(env)
        return g.output(env)

    def _capture(self, key, tensors, args, kwargs, stale: bool):
        free = shape_free(key)
        counts = stale or self.dynamic is False or not any(e.free == free for e in self.cache.values())
        if counts and self.captures >= RECOMPILE_LIMIT:
            self._warn_limit(key)
            return self._orig(*args, **kwargs)
        if self.cache:
            _logging.emit("recompiles", f"Recompiling function {self.__name__}: {_reason(self.last_key, key, stale)}")
        self.captures += counts
        self.last_key = key
        tracer = Tracer(self.fullgraph)
        tracer.add_inputs(tensors)
        with capturing(tracer):
            result = self._orig(*args, **kwargs)
        if tracer.broken is not None:
            _logging.emit("graph_breaks", f"{self.__name__} runs eagerly: {tracer.broken}")
            self.cache[key] = _Entry(eager=tracer.broken, free=free)
            return result
        graph = tracer.graph(len(tensors), result)
        grad = STATE.grad_enabled and any(t._rg for t in tracer.values.values() if t is not None)
        if _logging.enabled("graph_code"):
            _logging.emit("graph_code", f"captured graph of {self.__name__}:\n{graph.format()}")
        sig = (dyn.signature(graph), list(graph.nodes), graph.n_slots) if self.dynamic is not False else None
        steps, plan = self._plan(graph, tracer.values, grad)
        e = self.cache[key] = _Entry(graph, steps, grad, free=free, aot=plan)
        e.key, e.sig = key, sig
        if tracer.size_reads and self.dynamic is None:
            e.sig = None  # Note [Dynamic shapes]: Python may branch on the sizes it read
        if sig is not None and not stale:
            self._generalize(e)
        return result

    def _plan(self, graph, values: dict, grad: bool):
        steps = plan = None
        try:
            if self.backend in ("numba", "inductor") and not grad:
                steps = fusion.plan(graph, [values.get(i) for i in range(graph.n_slots)],
                                    consts=[s for s, _ in graph.consts])  # fmt: skip
                _log_kernels(steps)
            elif self.backend in ("numba", "inductor"):
                plan = aot.build(graph, values)
                if plan is None:
                    _logging.emit("graph_breaks", f"{self.__name__}: backward not captured; calls needing grad replay eagerly")
                else:
                    if _logging.enabled("graph_code"):
                        _logging.emit("graph_code", f"captured backward graph of {self.__name__}:\n{plan.bwd.format()}")
                    _log_kernels(plan.fwd_steps + plan.bwd_steps)
        except Exception as e:  # planning is an optimization: the graph still replays eagerly
            _logging.emit("graph_breaks", f"{self.__name__}: fusion planning failed ({type(e).__name__}: {e})")
            steps = plan = None
        return steps, plan

    def _generalize(self, e) -> None:
        # Note [Dynamic shapes]: an equal graph captured at other sizes makes the changed dims dynamic
        for o in list(self.cache.values()):
            if o is e or o.sig is None or o.free != e.free or o.grad != e.grad or o.key is None:
                continue
            mask = dyn.changed_dims(o.key, e.key)
            if not mask:
                continue
            formulas = None
            if o.sig[0] != e.sig[0]:  # sizes recorded as arguments: one formula each, or no generic graph
                holes = dyn.unify(o.sig[0], e.sig[0])
                if holes is None or any(g is o for _, _, g, _ in self.generic):
                    continue
                formulas = dyn.fit(holes, o.key, e.key, mask)
                if formulas is None:
                    continue
            else:
                for m, _, g, f in self.generic:
                    if (g is o or g is e) and not f:
                        mask = dyn.merge(mask, m)
            self.generic = [x for x in self.generic if x[2] is not o and x[2] is not e]
            self.generic.append((mask, dyn.masked(e.key, mask), e, formulas))
            _logging.emit("recompiles", f"{self.__name__}: dynamic dims {_dims(mask)}: later sizes reuse the graph")
            return

    def _generic_for(self, key):
        for mask, mkey, g, formulas in self.generic:
            sizes_ok = not formulas or dyn.same_sizes(key, formulas[1])
            if sizes_ok and dyn.masked(key, mask) == mkey and g.valid():
                return g, formulas and formulas[0]
        return None

    def _instance(self, found, key, tensors):
        """The call at a new shape of a generic entry: one replay gives its result and the
        values its plan is made from (Note [Dynamic shapes])."""
        g, formulas = found
        graph = dyn.instantiate(g.sig[1:], g.graph, formulas, key) if formulas else g.graph
        env = dyn.replay(graph, tensors)
        values = {i: t for i, t in enumerate(env) if t is not None}
        steps, plan = self._plan(graph, values, g.grad)
        e = _Entry(graph, steps, g.grad, free=g.free, aot=plan)
        e.key = key
        if len(self.cache) < _MAX_ENTRIES:
            self.cache[key] = e
        return graph.output(env)

    def _warn_limit(self, key) -> None:
        if self.warned:
            return
        self.warned = True
        try:
            code = self._orig.__code__
            where = f"{code.co_filename}:{code.co_firstlineno}"
        except AttributeError:
            where = "?"
        warnings.warn(
            f"numtorch.compile hit config.recompile_limit ({RECOMPILE_LIMIT})\n"
            f"   function: '{self.__name__}' ({where})\n"
            f"   last reason: {_reason(self.last_key, key, False)}\n"
            'To log all recompilation reasons, use NUMTORCH_LOGS="recompiles".',
            UserWarning,
            stacklevel=4,
        )

    def reset(self) -> None:
        self.cache.clear()
        self.generic = []
        self.mod_key = (-1, None)
        self.captures = 0
        self.warned = False
        self.last_key = None


def _log_kernels(steps) -> None:
    if _logging.enabled("output_code"):
        for st in steps:
            if isinstance(st, fusion.Region):
                src = Path(st.mod.__file__).read_text()
                _logging.emit("output_code", f"fused kernel ({len(st.nodes)} ops, {st.mod.__file__}):\n{src}")


def _reason(old, new, stale: bool) -> str:
    if stale:
        return "a parameter, buffer or constant tensor changed shape, dtype, device or requires_grad"
    if old is None:
        return "first call"
    if len(old) != len(new):
        return "the number or structure of the arguments changed"
    for i, (a, b) in enumerate(zip(old, new, strict=True)):
        if a == b:
            continue
        if a.__class__ is tuple and len(a) == 7 and b.__class__ is tuple and len(b) == 7:
            for name, x, y in zip(("class", "size", "dtype", "device", "requires_grad", "contiguity", "aliasing"),
                                  a, b, strict=True):  # fmt: skip
                if x != y:
                    return f"tensor argument {name} mismatch: expected {_show(x)}, actual {_show(y)}"
        if isinstance(a, bool):
            return "grad mode changed"
        if a.__class__ is tuple and len(a) == 2 and isinstance(a[0], type):
            return f"argument value changed: expected {_show(a)}, actual {_show(b)}"
        return "module parameters or attributes, or a global or closure value the function reads, changed"
    return "unknown"


def _dims(mask: dict) -> str:
    return ", ".join(f"arg {i} dims {[d for d, m in enumerate(dims) if m]}" for i, dims in sorted(mask.items()))


def _show(x):
    if x.__class__ is tuple and len(x) == 2 and isinstance(x[0], type):
        return repr(x[1])
    return list(x) if x.__class__ is tuple and all(type(v) is int for v in x) else str(x)


def check_options(backend, mode, options) -> None:
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}, see numtorch.compiler.list_backends() for available backends.")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="numba", mode=None, options=None, disable=False):  # noqa: A001
    """Capture ``model`` (a function or ``nn.Module``) at the aten level and run chains of
    pointwise ops as one generated Numba kernel (PyTorch's ``torch.compile`` signature).

    Python that reads tensor data (``.item()``, ``bool(t)``, ``.tolist()``, printing) cannot be
    captured: with ``fullgraph=True`` it raises ``numtorch.compiler.Unsupported``; otherwise that
    call runs eagerly (numtorch has no bytecode-level graph breaks). ``backend="eager"`` replays
    the captured graph without fusion.

    >>> f = numtorch.compile(lambda x: (x * 2 + 1).relu())
    >>> f(numtorch.tensor([-1.0, 1.0]))
    tensor([0., 3.])
    """
    check_options(backend, mode, options)
    if model is None:

        def deco(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)  # fmt: skip

        return deco
    if disable:
        return model
    if not callable(model):
        raise RuntimeError("compile() argument 'model' must be callable")
    from ..nn.modules.module import Module

    if isinstance(model, Module):
        from .module import OptimizedModule

        return OptimizedModule(model, CompiledFunction(model.__call__, fullgraph=fullgraph, dynamic=dynamic,
                                                       backend=backend, module=model))  # fmt: skip
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend)


def compile_method(mod, args, kwargs):
    """``Module.compile(...)``: the module's forward, compiled with the module's guards."""
    fwd = type(mod).forward.__get__(mod)
    opts = dict(kwargs)
    for name, v in zip(("fullgraph", "dynamic", "backend", "mode", "options", "disable"), args, strict=False):
        opts[name] = v
    check_options(opts.get("backend", "numba"), opts.get("mode"), opts.get("options"))
    if opts.get("disable"):
        return None
    return CompiledFunction(fwd, fullgraph=opts.get("fullgraph", False), dynamic=opts.get("dynamic"),
                            backend=opts.get("backend", "numba"), module=mod)  # fmt: skip


def reset_all() -> None:
    for cf in list(_ALL):
        cf.reset()


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """Run ``fn`` without compiling: a capture that reaches it runs its call eagerly
    (with ``fullgraph=True``, raises ``Unsupported``).

    >>> @numtorch.compiler.disable
    ... def log_stats(x):
    ...     return x.mean().item()
    """
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    orig = getattr(fn, "_torchdynamo_orig_callable", fn)

    @functools.wraps(orig)
    def disabled(*args, **kwargs):
        tr = CURRENT.tracer
        if tr is not None and tr.depth == 0:
            tr.report("Skip calling `numtorch.compiler.disable()`d function" + (f" ({reason})" if reason else ""))
        return orig(*args, **kwargs)

    disabled._numtorch_disabled = True
    return disabled


__all__ = ["compile", "CompiledFunction", "Unsupported", "disable", "reset_all", "RECOMPILE_LIMIT"]
