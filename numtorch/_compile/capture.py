"""Capture: run the function once under a recording dispatch mode (Note [Captured graph]).

# Note [Capture runs the real call]
# The tracer is a TorchDispatchMode that records each aten call and then runs it on the real
# tensors, so the capturing call's own result is the eager result (autograd above the mode
# records as usual) and nothing needs a meta kernel. What the mode cannot see is Python reading
# tensor data: ``.item()``, ``bool(t)``, ``.tolist()``, ``.numpy()``, printing. While a capture
# runs, those methods of Tensor are wrapped to report the read (only when called outside an
# aten call: a kernel reading a 0-d parameter is not the user's Python). A read marks the
# capture broken: with fullgraph=True it raises ``Unsupported`` naming the user's line;
# otherwise the call finishes eagerly (it already is eager) and that guard set runs eagerly
# from then on. numtorch has no bytecode-level graph breaks: the whole call is eager.
"""

from __future__ import annotations

import os
import sys

from .._state import STATE
from .._tensor import Tensor
from ..utils._python_dispatch import TorchDispatchMode
from ..utils._pytree import tree_flatten
from .graph import Graph, Node

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Unsupported(RuntimeError):
    """Raised by a ``fullgraph=True`` capture that meets Python it cannot put in a graph
    (numtorch's ``torch._dynamo.exc.Unsupported``)."""


class _State:
    tracer = None  # the active Tracer, if any


CURRENT = _State()


class Tracer(TorchDispatchMode):
    """Records aten calls into a Graph while running them (Note [Capture runs the real call])."""

    def __init__(self, fullgraph: bool):
        super().__init__()
        self.fullgraph = fullgraph
        self.slot_of: dict = {}  # id(tensor) -> slot
        self.pinned: list = []  # keeps traced tensors alive so ids stay unique
        self.consts: list = []
        self.nodes: list = []
        self.n_slots = 0
        self.depth = 0
        self.broken: str | None = None  # why the call cannot be a graph
        self.values: dict = {}  # slot -> the capture's tensor (dtypes and shapes for fusion)
        self.size_reads = False  # user code read a tensor's sizes (Note [Dynamic shapes])

    def add_inputs(self, tensors: list) -> None:
        for t in tensors:
            if id(t) not in self.slot_of:
                self._new_slot(t)
            else:  # the same tensor twice: later uses read the first slot; keep numbering dense
                self.n_slots += 1

    def _new_slot(self, t) -> int:
        s = self.n_slots
        self.n_slots += 1
        self.slot_of[id(t)] = s
        self.pinned.append(t)
        self.values[s] = t
        return s

    def slot(self, t) -> int:
        s = self.slot_of.get(id(t))
        if s is None:  # a tensor no recorded op made: a constant held by reference
            s = self._new_slot(t)
            self.consts.append((s, t))
        return s

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from .._schema import bind

        kwargs = kwargs or {}
        vals = bind(func._schema, args, kwargs)
        node = None
        if self.broken is None:
            node = self._record(func, vals)
        self.depth += 1
        try:
            r = func(*args, **kwargs)
        finally:
            self.depth -= 1
        if node is not None:
            self._outputs(node, func, r)
        return r

    def _record(self, func, vals):
        template, direct, lists = list(vals), [], []
        for i, v in enumerate(vals):
            if isinstance(v, Tensor):
                direct.append((i, self.slot(v)))
                template[i] = None
            elif v.__class__ in (list, tuple) and any(isinstance(x, Tensor) for x in v):
                items = [self.slot(x) if isinstance(x, Tensor) else (x,) for x in v]
                lists.append((i, items, v.__class__))
                template[i] = None
        node = Node(func, template, direct, lists, [], True, len(self.nodes))
        self.nodes.append(node)
        return node

    def _outputs(self, node, func, r) -> None:
        if isinstance(r, Tensor):
            node.outs = [self._out_slot(r)]
            return
        leaves, _ = tree_flatten(r)
        if not all(isinstance(x, Tensor) or x is None for x in leaves) or r.__class__ not in (tuple, list):
            # a Python number or bool out of an aten call is data the graph cannot carry
            self.report(f"{func} returned a non-tensor value")
            return
        node.single = False
        node.outs = [self._out_slot(x) for x in leaves]  # None (convolution_backward's mask) too

    def _out_slot(self, t) -> int:
        s = self.n_slots
        self.n_slots += 1
        if t is None:
            return s
        if id(t) not in self.slot_of:
            self.pinned.append(t)
        self.values[s] = t
        self.slot_of[id(t)] = s  # an in-place op's result: later reads see the new slot
        return s

    def report(self, what: str) -> None:
        """A data-dependent read (or another uncapturable step) happened in user code."""
        if self.broken is not None:
            return
        where = _user_frame()
        self.broken = f"{what}{where}"
        if self.fullgraph:
            raise Unsupported(f"{what}\n\nfrom user code:{where}")

    def graph(self, n_inputs: int, result) -> Graph:
        leaves, spec = tree_flatten(result)
        out = [self.slot(x) if isinstance(x, Tensor) else (x,) for x in leaves]
        return Graph(n_inputs, self.consts, self.nodes, self.n_slots, out, spec)


def _user_frame() -> str:
    f = sys._getframe(1)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_PKG + os.sep) and not f.f_code.co_filename.startswith("<numtorch"):
            import linecache

            line = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
            return f'\n   File "{f.f_code.co_filename}", line {f.f_lineno}, in {f.f_code.co_name}\n    {line}'
        f = f.f_back
    return ""


# ---- data-dependent reads (Note [Capture runs the real call]) ----------------------------------
_WATCHED = {
    "item": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    "tolist": "Unsupported Tensor.tolist() call: data-dependent Python value",
    "numpy": "Unsupported Tensor.numpy() call: data-dependent Python value",
    "__bool__": "Data-dependent branching: bool(tensor) reads the tensor's value",
    "__repr__": "Unsupported: printing a tensor reads its values",
    "__array__": "Unsupported: converting a tensor to a NumPy array reads its values",
    # Note [Training steps are not captured]: backward() stores gradients in ``.grad`` and
    # optimizers update ``.data`` / ``._data`` outside the dispatcher, which a replay would miss
    "backward": "Unsupported: Tensor.backward() inside a compiled function (compile the model, not the training step)",
}
_WATCHED_PROPS = {
    "grad": "Unsupported: reading Tensor.grad inside a compiled function",
    "data": "Unsupported: Tensor.data inside a compiled function (it aliases the tensor outside the graph)",
}


def _watch(name: str, orig):
    what = _WATCHED[name]

    def watched(self, *args, **kwargs):
        tr = CURRENT.tracer
        if tr is not None and tr.depth == 0:
            tr.report(what)
        return orig(self, *args, **kwargs)

    watched.__wrapped__ = orig
    return watched


def _watch_prop(name: str, prop: property) -> property:
    what = _WATCHED_PROPS[name]
    get = prop.fget

    def watched(self):
        tr = CURRENT.tracer
        if tr is not None and tr.depth == 0:
            tr.report(what)
        return get(self)

    return property(watched, prop.fset, prop.fdel, prop.__doc__)


# sizes read by user code (not numtorch's own Python): Python may branch on them, so such a
# capture is made dynamic only when the user asked (dynamic=True), Note [Dynamic shapes]
_SIZES = ("size", "numel", "nelement", "__len__")


def _watch_size(orig):
    def watched(self, *args, **kwargs):
        tr = CURRENT.tracer
        if tr is not None and tr.depth == 0 and not tr.size_reads and _from_user():
            tr.size_reads = True
        return orig(self, *args, **kwargs)

    watched.__wrapped__ = orig
    return watched


def _from_user() -> bool:
    f = sys._getframe(2)
    return not os.path.abspath(f.f_code.co_filename).startswith(_PKG + os.sep)


def _watch_shape(prop: property) -> property:
    get = prop.fget

    def watched(self):
        tr = CURRENT.tracer
        if tr is not None and tr.depth == 0 and not tr.size_reads and _from_user():
            tr.size_reads = True
        return get(self)

    return property(watched, prop.fset, prop.fdel, prop.__doc__)


class capturing:
    """Context: install the tracer and the data-read watchers for one capture."""

    def __init__(self, tracer: Tracer):
        self.tracer = tracer
        self.saved: dict = {}

    def __enter__(self):
        if CURRENT.tracer is None:
            for name in _WATCHED:
                orig = Tensor.__dict__[name]
                self.saved[name] = orig
                setattr(Tensor, name, _watch(name, orig))
            for name in _WATCHED_PROPS:
                orig = Tensor.__dict__[name]
                self.saved[name] = orig
                setattr(Tensor, name, _watch_prop(name, orig))
            for name in _SIZES:
                orig = Tensor.__dict__[name]
                self.saved[name] = orig
                setattr(Tensor, name, _watch_size(orig))
            self.saved["shape"] = Tensor.__dict__["shape"]
            Tensor.shape = _watch_shape(self.saved["shape"])
        self.prev = CURRENT.tracer
        CURRENT.tracer = self.tracer
        self.tracer.__enter__()
        return self.tracer

    def __exit__(self, *exc):
        self.tracer.__exit__(*exc)
        CURRENT.tracer = self.prev
        for name, orig in self.saved.items():
            setattr(Tensor, name, orig)


def is_capturing() -> bool:
    return CURRENT.tracer is not None


def grad_state() -> bool:
    return STATE.grad_enabled
