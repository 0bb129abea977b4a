"""Autograd graph objects: Node (grad_fn), AccumulateGrad, saved tensors with version checks,
and the public graph API (saved-tensor hooks, gradient edges, multi-grad hooks)."""

from __future__ import annotations

import itertools
import logging
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple  # noqa: F401  (TYPE_CHECKING: a re-export, as PyTorch's)

from .._sparse_tensor import SparseCooTensor, make_sparse
from .._state import SAVED_HOOKS, STATE
from .._tensor import PY_DISPATCH_TYPES, Tensor, _make
from ..utils._python_dispatch import TorchDispatchMode  # noqa: F401  (re-exported, as in PyTorch)
from .variable import Variable  # noqa: F401

# Note [Graph task]
# run_backward publishes the running backward as (id, root nodes, deps, needed) here: what
# register_multi_grad_hook and checkpoint ask (PyTorch's _current_graph_task_id and
# _will_engine_execute_node). None outside backward.
GRAPH_TASK: list = [None]
TASK_IDS = itertools.count()

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling backward."
)


# Note [Only saved tensors are freed]
# As PyTorch's SavedVariable: backward frees the saved tensors of a node (a Python number in a
# Tensor argument counts: it is a wrapped-number tensor in PyTorch) and keeps sizes, dims and
# scalars, so a graph that saved no tensor can be walked again (``(x + 1).backward(g)`` twice)
# and the "second time" error comes from unpacking a freed tensor.
GONE = object()


class Node:
    """A backward function in the autograd graph (what ``tensor.grad_fn`` returns).

    ``next_functions`` holds one ``(node, output_nr)`` edge per differentiable input (``None``
    for inputs that need no gradient).
    """

    __slots__ = ("next_functions", "_input_meta", "__weakref__", "__dict__")

    # rarely set: class defaults, so creating a node (once per recorded op) writes two slots
    _pre_hooks = None  # {output_nr: [hook]} from Tensor.register_hook on outputs
    _nout = 1  # outputs: set per node only for multi-output ones
    _hooks = None
    _trace = None

    def __init__(self, next_functions=(), input_meta=()):
        self.next_functions = tuple(next_functions)
        self._input_meta = tuple(input_meta)  # (shape, dtype, device) per edge

    @property
    def metadata(self) -> dict:
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    def apply(self, *grads):  # pragma: no cover - overridden
        raise NotImplementedError

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._pre_hooks.setdefault("node", []).append(fn)
        return _RemovableHandle(self._pre_hooks["node"], fn)

    def _register_tensor_hook(self, output_nr: int, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        lst = self._pre_hooks.setdefault(output_nr, [])
        lst.append(fn)
        return _RemovableHandle(lst, fn)

    def _release(self) -> None:
        pass

    def __call__(self, *grads):
        return self.apply(*grads)


class _RemovableHandle:
    def __init__(self, lst, fn):
        self._lst, self._fn = lst, fn

    def remove(self) -> None:
        if self._fn in self._lst:
            self._lst.remove(self._fn)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink node of a leaf tensor: adds incoming gradients into ``leaf.grad``.

    As in PyTorch, the graph holds the leaf (through this node) and the leaf holds its
    accumulator weakly: a leaf the caller dropped still receives its gradient and runs its
    hooks, and no reference cycle keeps either alive.
    """

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        self.next_functions = ()
        self.variable = variable

    @property
    def _input_meta(self):  # read from the leaf: ``leaf.data = other`` may change its shape
        v = self.variable
        return ((v._data.shape, v._dtype, v._device),)


def grad_accumulator(leaf: Tensor) -> AccumulateGrad:
    d = leaf.__dict__
    ref = d.get("_acc_ref")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        d["_acc_ref"] = weakref.ref(acc)
    return acc


def gradient_edge(t: Tensor):
    """The edge a gradient for ``t`` flows into: its grad_fn output, or its leaf accumulator."""
    if t._grad_fn is not None:
        return (t._grad_fn, t._out_nr)
    if t._rg:
        return (grad_accumulator(t), 0)
    return None


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Outputs are saved as their storage fields only (no Tensor, no grad_fn, no node reference:
    no reference cycle) and rebuilt on unpack with the owning node as grad_fn, as PyTorch's
    SavedVariable does. ``unpack`` is always called by the node that saved them.
    """

    __slots__ = ("tensor", "version", "is_output", "out_nr", "rg", "tname", "fw_ref", "fw_grads",
                 "unpack_hook", "meta")  # fmt: skip

    def __init__(self, t: Tensor, node: Node | None = None, out_nr: int = 0, tname: str = ""):
        self.version = t._vc[0]
        self.is_output = node is not None
        self.tname = tname
        if self.is_output:
            self.rg = t._rg
            # forward-over-reverse: the output's tangent is attached after this is saved
            self.fw_ref = weakref.ref(t) if STATE.fw_level >= 0 else None
            # a custom Function's jvp ran before its outputs were saved: keep that tangent even
            # when the caller drops the output (MyCube's dx)
            self.fw_grads = t._fw_grads
            if t._grad_fn is not None and (STATE.td_modes or t.__class__ in PY_DISPATCH_TYPES):
                t = _detach(t)
            self.tensor = (t._data, t._dtype, t._device, t._vc)
            if t.__class__ is SparseCooTensor:  # its entries are not in _data: keep the (detached) alias
                self.tensor += (t,)
            elif t.__class__ is not Tensor and hasattr(t, "_level"):  # a vmap BatchedTensor keeps its batch
                self.tensor += (t._value, t._level)
            self.out_nr = out_nr
        else:
            self.tensor = t
        if STATE.anomaly & SAVED_HOOKS:  # Note [Slow recording gate]
            pack(self, t)

    def unpack(self, node: Node) -> Tensor:
        t = self.tensor
        if self.is_output:
            if self.is_output is _PACKED:
                return _unpack_hooked(self, node)
            data, dtype, device, vc = t[:4]
            if vc[0] != self.version:
                raise self._modified(data.shape, dtype, vc[0])
            if len(t) == 5:  # a sparse output: a new alias of its entries
                out = make_sparse(t[4]._sp_idx, t[4]._sp_val, data.shape, t[4]._sp_coal)
            elif len(t) > 4:
                from .._functorch.batched import make_batched

                out = make_batched(t[4], t[5])
            else:
                out = _make(data, dtype, Tensor, device, vc=vc)
                if self.rg and STATE.td_modes:
                    out = _detach(out)  # PyTorch's make_variable over the kept data: a shallow copy
            out._rg = self.rg
            out._grad_fn = node
            src = self.fw_ref() if getattr(self, "fw_ref", None) is not None else None
            fw = src._fw_grads if src is not None and src._fw_grads else getattr(self, "fw_grads", None)
            if fw:
                out.__dict__["_fw_grads"] = fw
            if self.out_nr:
                out._out_nr = self.out_nr
            return out
        if t._vc[0] != self.version:
            raise self._modified(t._data.shape, t._dtype, t._vc[0])
        return t

    def _modified(self, shape, dtype, version) -> RuntimeError:
        return RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{_type_name(dtype)} {list(shape)}]"
            f"{self.tname}, is at version {version}; expected version {self.version} instead. "
            "Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True)."
        )


def _detach(t: Tensor) -> Tensor:
    # PyTorch's SavedVariable keeps an output as ``tensor_data()``, a shallow copy that under
    # an active TorchDispatchMode (or for a Python-key tensor) is made by calling aten.detach:
    # a mode sees that detach right after the op whose backward needs its result.
    from .._dispatch import below_autograd
    from ..ops.autograd import detach

    d = below_autograd(detach, [t])
    return d if isinstance(d, Tensor) else t


def _type_name(dtype) -> str:
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
             "int64": "LongTensor", "int32": "IntTensor", "bool": "BoolTensor",
             "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}  # fmt: skip
    return "torch." + names.get(dtype.name, "Tensor")


# ---- saved-tensor hooks ----------------------------------------------------------------------
# Note [Saved-tensor hooks]
# As PyTorch's SavedVariable with default hooks: while a saved_tensors_hooks context is active,
# every tensor saved for backward (by built-in ops, custom Functions and custom ops alike) goes
# through ``pack_hook`` under no_grad and only its result is kept; backward calls ``unpack_hook``
# on it. The version check is skipped (the hook owns the data), and the unpacked tensor gets the
# original's autograd identity back (the node for an output; grad_fn or leaf accumulator for an
# input) so double backward still reaches the graph. The recording fast paths build SavedTensors
# inline, so pushing hooks sets the SAVED_HOOKS bit (Note [Slow recording gate]).
_HOOKS: list = []  # (pack_hook, unpack_hook), innermost last
_DISABLED: list = [None]  # disable_saved_tensors_hooks' error message
_PACKED = object()  # SavedTensor.is_output of a packed tensor (truthy: unpack's slow branch)


def _sync_gate() -> None:
    STATE.anomaly = (STATE.anomaly & ~SAVED_HOOKS) | (SAVED_HOOKS if _HOOKS else 0)


def pack(sv: SavedTensor, t: Tensor) -> None:
    """Replace ``sv``'s payload by the innermost pack hook's result (Note [Saved-tensor hooks])."""
    if not _HOOKS:
        return
    pack_hook, unpack_hook = _HOOKS[-1]
    if sv.is_output:
        sv.meta = None
    else:
        f = t._grad_fn
        sv.meta = (f, t._out_nr, t._rg, grad_accumulator(t) if f is None and t._rg else None)
    prev = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        sv.tensor = pack_hook(t)
    finally:
        STATE.grad_enabled = prev
    sv.unpack_hook = unpack_hook
    sv.is_output = _PACKED


def _unpack_hooked(sv: SavedTensor, node: Node) -> Tensor:
    prev = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        r = sv.unpack_hook(sv.tensor)
    finally:
        STATE.grad_enabled = prev
    if not isinstance(r, Tensor):
        raise TypeError(
            f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(r).__name__}"
        )
    out = _make(r._data, r._dtype, Tensor, r._device, vc=r._vc)
    if sv.meta is None:  # an output of ``node``
        out._rg, out._grad_fn = sv.rg, node
        if sv.out_nr:
            out._out_nr = sv.out_nr
        return out
    f, nr, rg, acc = sv.meta
    out._rg = rg
    if f is not None:
        out._grad_fn, out._out_nr = f, nr
    elif acc is not None:  # a leaf: gradients reach it through its accumulator
        out.__dict__["_acc_ref"] = weakref.ref(acc)
    return out


class saved_tensors_hooks:
    """Context manager setting pack / unpack hooks for the tensors autograd saves for backward.

    >>> x = numtorch.ones(3, requires_grad=True)
    >>> with numtorch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad
    tensor([2., 2., 2.])
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _DISABLED[0] is not None:
            raise RuntimeError(_DISABLED[0])
        _HOOKS.append((self.pack_hook, self.unpack_hook))
        _sync_gate()

    def __exit__(self, *args) -> None:
        _HOOKS.pop()
        _sync_gate()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward.

    >>> with numtorch.autograd.graph.save_on_cpu():
    ...     y = numtorch.ones(2, requires_grad=True).exp().sum()
    >>> y.backward()
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager under which setting saved-tensor hooks raises ``RuntimeError(error_message)``.

    >>> with numtorch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    ...     pass
    """

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if _HOOKS:  # as PyTorch: hooks already active cannot be disabled
            raise RuntimeError(self.error_message)
        self.prev = _DISABLED[0]
        _DISABLED[0] = self.error_message

    def __exit__(self, *args) -> None:
        _DISABLED[0] = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*a, **k)

        return wrapper


class allow_mutation_on_saved_tensors(saved_tensors_hooks):
    """Context under which tensors saved for backward may be modified in place afterwards.

    PyTorch clones a saved tensor lazily when it is first mutated; here the pack hook clones it
    when it is saved, which keeps the same values for backward at the cost of the copies.

    >>> x = numtorch.ones(2, requires_grad=True)
    >>> with numtorch.autograd.graph.allow_mutation_on_saved_tensors():
    ...     a = x * 1
    ...     y = (a * a).sum()
    ...     with numtorch.no_grad():
    ...         _ = a.add_(1)
    ...     y.backward()
    >>> x.grad
    tensor([2., 2.])
    """

    _active = False

    def __init__(self) -> None:
        super().__init__(lambda t: t.detach().clone(), lambda t: t)

    def __enter__(self):
        if allow_mutation_on_saved_tensors._active:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        super().__enter__()
        allow_mutation_on_saved_tensors._active = True
        return self

    def __exit__(self, *args) -> None:
        allow_mutation_on_saved_tensors._active = False
        super().__exit__(*args)


# ---- gradient edges and multi-grad hooks -----------------------------------------------------
class GradientEdge(NamedTuple):
    """A node of the autograd graph and which of its outputs a gradient flows through.

    >>> x = numtorch.ones(2, requires_grad=True)
    >>> numtorch.autograd.graph.get_gradient_edge(x).output_nr
    0
    """

    node: Node
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge gradients of ``tensor`` flow into (usable as ``autograd.grad``'s inputs).

    >>> y = numtorch.ones(2, requires_grad=True) * 2
    >>> numtorch.autograd.graph.get_gradient_edge(y).node.name()
    'MulBackward0'
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients"
        )
    node, nr = gradient_edge(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable), as an in-place
    write would: saved copies of it then fail the version check in backward.

    >>> t = numtorch.ones(2); numtorch.autograd.graph.increment_version(t); t._version
    1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._vc[0] += 1


def _will_execute(task, node) -> bool:
    _, roots, deps, needed = task
    return (node in roots or node in deps) and (needed is None or node in needed)


class _MultiHandle:
    def __init__(self, handles) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args) -> None:
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """Call ``fn`` once per backward: in ``"all"`` mode with the gradients of every tensor the
    backward reaches (None for the others), in ``"any"`` mode with the first one computed.

    >>> a = numtorch.ones(2, requires_grad=True); b = numtorch.ones(2, requires_grad=True)
    >>> h = numtorch.autograd.graph.register_multi_grad_hook(
    ...     (a, b), lambda gs: print([g is not None for g in gs]))
    >>> (a * 2).sum().backward()
    [True, False]
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = tuple(tensors)
    state: dict = {}  # graph task id -> [calls so far, expected calls, grads]; "any": -> True

    def current():
        task = GRAPH_TASK[0]
        if task is None:
            raise AssertionError("expected this hook to be called inside a backward call")
        return task

    if mode == "all":
        nodes = [gradient_edge(t)[0] if t.requires_grad else None for t in tensors]

        def inner(idx):
            def hook(grad):
                task = current()
                s = state.get(task[0])
                if s is None:
                    n = sum(_will_execute(task, node) for node in nodes if node is not None)
                    s = state[task[0]] = [0, n, [None] * len(tensors)]
                s[0] += 1
                s[2][idx] = grad
                if s[0] == s[1]:
                    del state[task[0]]
                    fn(s[2])

            return hook
    else:

        def inner(idx):
            def hook(grad):
                tid = current()[0]
                if tid not in state:
                    state[tid] = True
                    fn(grad)

            return hook

    return _MultiHandle([t.register_hook(inner(i)) for i, t in enumerate(tensors) if t.requires_grad])


# ---- flags of PyTorch's CUDA-stream and compiler paths ---------------------------------------
_STREAM_FLAGS = {"override_stale_capture_stream": False, "warn_on_accumulate_grad_stream_mismatch": True}


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """Whether AccumulateGrad warns on a CUDA-stream mismatch; CPU-only: the flag is recorded only.

    >>> numtorch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False)
    """
    _STREAM_FLAGS["warn_on_accumulate_grad_stream_mismatch"] = bool(enabled)


def set_override_stale_capture_stream(enabled: bool) -> None:
    """A CUDA-graph capture setting; CPU-only: the flag is recorded only.

    >>> numtorch.autograd.graph.set_override_stale_capture_stream(False)
    """
    _STREAM_FLAGS["override_stale_capture_stream"] = bool(enabled)


def region_activation_memory_budget(budget: float):
    """A memory budget for torch.compile's activation partitioner. numtorch has no compiled
    regions, so (as PyTorch does in eager mode) it raises after checking ``budget``.

    >>> numtorch.autograd.graph.region_activation_memory_budget(2.0)
    Traceback (most recent call last):
    ValueError: torch.autograd.graph.region_activation_memory_budget: must be in [0, 1], got 2.0
    """
    name = "torch.autograd.graph.region_activation_memory_budget"
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f"{name}: expects a float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"{name}: must be in [0, 1], got {budget}")
    raise RuntimeError(f"{name} can only be used inside a torch.compile region; it has no effect in eager mode.")


log = logging.getLogger(__name__)


def __getattr__(name: str):
    if name == "RemovableHandle":  # utils.hooks imports autograd: resolved on first use
        from ..utils.hooks import RemovableHandle

        return RemovableHandle
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {"RemovableHandle"})
