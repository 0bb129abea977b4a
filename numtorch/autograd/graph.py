"""Autograd graph objects: Node (grad_fn), AccumulateGrad, saved tensors with version checks."""

from __future__ import annotations

import weakref

from .._state import STATE
from .._tensor import PY_DISPATCH_TYPES, Tensor, _make

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


def saved_tensorish(name, v, tensor_args) -> bool:
    return name in tensor_args or name == "result" or v.__class__ is SavedTensor or (
        isinstance(v, (list, tuple)) and any(x.__class__ is SavedTensor for x in v))  # fmt: skip


class Node:
    """A backward function in the autograd graph (what ``tensor.grad_fn`` returns).

    ``next_functions`` holds one ``(node, output_nr)`` edge per differentiable input (``None``
    for inputs that need no gradient).
    """

    __slots__ = ("next_functions", "_input_meta", "__weakref__", "__dict__")

    # rarely set: class defaults, so creating a node (once per recorded op) writes two slots
    _pre_hooks = None  # {output_nr: [hook]} from Tensor.register_hook on outputs
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

    __slots__ = ("tensor", "version", "is_output", "out_nr", "rg", "tname", "fw_ref", "fw_grads")

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
            if t.__class__ is not Tensor and hasattr(t, "_level"):  # a vmap BatchedTensor keeps its batch
                self.tensor += (t._value, t._level)
            self.out_nr = out_nr
        else:
            self.tensor = t

    def unpack(self, node: Node) -> Tensor:
        t = self.tensor
        if self.is_output:
            data, dtype, device, vc = t[:4]
            if vc[0] != self.version:
                raise self._modified(data.shape, dtype, vc[0])
            if len(t) > 4:
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
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
             "int64": "LongTensor", "int32": "IntTensor", "bool": "BoolTensor",
             "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}  # fmt: skip
    return "torch." + names.get(dtype.name, "Tensor")
