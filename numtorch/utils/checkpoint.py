"""numtorch.utils.checkpoint: trade compute for memory by recomputing a segment in backward.

# Note [Checkpoint by recomputation]
# ``use_reentrant=True`` is PyTorch's CheckpointFunction: the forward runs under no_grad and the
# backward reruns it with grad enabled (RNG state restored, so dropout draws the same masks) and
# backpropagates through the rerun; only inputs that require grad make the output differentiable.
# ``use_reentrant=False`` is PyTorch's saved-tensor-hook variant: the forward runs with grad
# enabled under saved_tensors_hooks whose pack hook keeps a small holder instead of each saved
# tensor; the first unpack in a backward reruns the function under hooks that fill the holders
# (stopping early once all are filled), so parameters used inside get gradients, nested
# autograd.grad works, and a selective-checkpoint policy (context_fn) can keep some outputs.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from typing import TYPE_CHECKING, AnyStr, Text  # noqa: F401  (re-exported, as PyTorch's module has them)

from ..autograd.function import Function
from ..autograd.graph import SavedTensor, saved_tensors_hooks  # noqa: F401
from ..testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from ._python_dispatch import TorchDispatchMode  # noqa: F401
from ._pytree import tree_map
from ._sac import (SAC_IGNORED_OPS, CheckpointPolicy, SelectiveCheckpointContext,  # noqa: F401
                   create_selective_checkpoint_contexts)  # fmt: skip

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "get_device_states", "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS", "GraphExecGroup"]  # fmt: skip


class CheckpointError(RuntimeError):
    """Raised when a recomputation does not match the original forward."""


def _nt():
    import numtorch

    return numtorch


def noop_context_fn():
    """The default ``context_fn``: two no-op context managers."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs) -> None:
    nt = _nt()
    if not any(isinstance(i, nt.Tensor) and i.requires_grad for i in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


def detach_variable(inputs):
    """Detached copies of the tensors in ``inputs`` that keep their ``requires_grad`` flags."""
    nt = _nt()
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, nt.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


# ---- device RNG states and global settings ---------------------------------------------------
class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves when no input is on an accelerator.

    >>> numtorch.utils.checkpoint.DefaultDeviceType.get_device_type()
    'cpu'
    """

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            acc = _nt().accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = acc.type if acc else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """(device ids, RNG states) of the accelerator devices the tensors in ``args`` live on; CPU and
    meta tensors have none (the CPU generator is saved separately).

    >>> numtorch.utils.checkpoint.get_device_states(numtorch.ones(1))
    ([], [])
    """
    nt = _nt()
    ids = []

    def add(a):
        if isinstance(a, nt.Tensor) and a.device.type not in ("cpu", "meta"):
            ids.append(a.get_device())
        return a

    tree_map(add, args)
    mod = getattr(nt, DefaultDeviceType.get_device_type(), None)
    return ids, [mod.get_rng_state(i) for i in ids]


def set_device_states(devices, states, *, device_type=None) -> None:
    """Restore the RNG states ``get_device_states`` returned.

    >>> numtorch.utils.checkpoint.set_device_states([], [])
    """
    device_type = device_type or DefaultDeviceType.get_device_type()
    if device_type == "meta" or not devices:
        return
    mod = getattr(_nt(), device_type)
    for device, state in zip(devices, states):
        mod.set_rng_state(state, device)


_SETTINGS = {"early_stop": True, "debug": None}


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether non-reentrant recomputation stops once every saved tensor is recomputed (default True).

    >>> with numtorch.utils.checkpoint.set_checkpoint_early_stop(False):
    ...     pass
    """
    prev, _SETTINGS["early_stop"] = _SETTINGS["early_stop"], enable
    try:
        yield
    finally:
        _SETTINGS["early_stop"] = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Force checkpoint's ``debug`` flag on or off (None: each call's own flag).

    >>> with numtorch.utils.checkpoint.set_checkpoint_debug_enabled(True):
    ...     pass
    """
    prev, _SETTINGS["debug"] = _SETTINGS["debug"], enabled
    try:
        yield
    finally:
        _SETTINGS["debug"] = prev


class GraphExecGroup:
    """Backward calls under one instance recompute each non-reentrant checkpointed region at most once.

    >>> with numtorch.utils.checkpoint.GraphExecGroup():
    ...     pass
    """

    _current = None

    def __enter__(self):
        if GraphExecGroup._current is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args) -> None:
        GraphExecGroup._current = None


# ---- use_reentrant=True ----------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint (Note [Checkpoint by recomputation])."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        nt = _nt()
        ctx.run_function = run_function
        ctx.rng_state = nt.get_rng_state() if preserve_rng_state else None
        ctx.tensor_idx = [i for i, a in enumerate(args) if isinstance(a, nt.Tensor)]
        ctx.others = [None if isinstance(a, nt.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_idx])
        with nt.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        nt = _nt()
        from ..autograd.graph import GRAPH_TASK

        task = GRAPH_TASK[0]
        if task is not None and task[3] is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument."
            )
        args = list(ctx.others)
        for i, t in zip(ctx.tensor_idx, ctx.saved_tensors):
            d = t.detach()
            d.requires_grad = t.requires_grad
            args[i] = d
        with _rng_restored(ctx.rng_state), nt.enable_grad():
            outputs = ctx.run_function(*args)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, nt.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        nt.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, nt.Tensor) else None for a in args)


@contextlib.contextmanager
def _rng_restored(state):
    nt = _nt()
    if state is None:
        yield
        return
    current = nt.get_rng_state()
    nt.set_rng_state(state)
    try:
        yield
    finally:
        nt.set_rng_state(current)


# ---- use_reentrant=False ---------------------------------------------------------------------
class _StopRecomputationError(Exception):
    pass


class _Holder:
    __slots__ = ("idx", "__weakref__")


def _meta(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM = {"default": _meta, "none": lambda _: None}
_DEBUG_TIP = ("Tip: To see a more detailed error message, either pass `debug=True` to torch.utils.checkpoint.checkpoint(...) "
              "or wrap the code block with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to "
              "enable checkpoint-debug mode globally.")  # fmt: skip


class _Frame:
    """One non-reentrant checkpointed call: holders in save order and, per backward, what the
    recomputation produced for them."""

    def __init__(self, recompute_fn, early_stop: bool, metadata_fn, on_error) -> None:
        self.recompute_fn, self.early_stop, self.metadata_fn, self.on_error = recompute_fn, early_stop, metadata_fn, on_error
        self.holders: list = []  # weak references: a holder dies with the graph node that saved it
        self.metas: list = []
        self.recomputed: dict = {}  # graph task id -> {holder index: tensor}

    def pack(self, t):
        h = _Holder()
        h.idx = i = len(self.holders)
        self.holders.append(weakref.ref(h, lambda _: self._drop(i)))
        self.metas.append(self.metadata_fn(t))
        return h

    def unpack(self, h):
        from ..autograd.graph import GRAPH_TASK

        task = GRAPH_TASK[0]
        gid = GraphExecGroup._current or (task[0] if task is not None else None)
        if gid not in self.recomputed:
            self._recompute(gid)
        # kept, not popped: numtorch unpacks a saved tensor once per formula that reads it; the
        # entry goes when the node that saved it frees its saved tensors (the holder dies)
        return self.recomputed[gid][h.idx]

    def _drop(self, i) -> None:
        for store in self.recomputed.values():
            store.pop(i, None)

    def _recompute(self, gid) -> None:
        store = self.recomputed[gid] = {}
        count = [0]
        alive = sum(1 for w in self.holders if w() is not None)

        def rpack(t):
            i = count[0]
            count[0] += 1
            if i >= len(self.holders):
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{_DEBUG_TIP}")  # fmt: skip
            if self.holders[i]() is not None:
                store[i] = t.detach()
                if self.early_stop and len(store) == alive:
                    raise _StopRecomputationError
            return None

        try:
            with saved_tensors_hooks(rpack, _never_unpacked):
                self.recompute_fn()
        except _StopRecomputationError:
            pass
        except CheckpointError as e:
            self.on_error(e)
        self._check(store, count[0])

    def _check(self, store, n) -> None:
        if not self.early_stop and n != len(self.holders):
            self.on_error(CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\nNumber of tensors "
                f"saved during recomputation: {n}.\n{_DEBUG_TIP}"))  # fmt: skip
        bad = ""
        for i, w in enumerate(self.holders):
            if w() is None:
                continue
            if i not in store:
                self.on_error(CheckpointError("torch.utils.checkpoint: Recomputed fewer tensors than the original "
                                              f"forward saved (stopped at {n}).\n{_DEBUG_TIP}"))  # fmt: skip
            m = self.metadata_fn(store[i])
            if m != self.metas[i]:
                bad += f"tensor at position {i}:\nsaved metadata: {self.metas[i]}\nrecomputed metadata: {m}\n"
        if bad:
            self.on_error(CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                          f"different metadata than during the forward pass.\n{bad}.\n{_DEBUG_TIP}"))  # fmt: skip


def _never_unpacked(x):  # the recomputed graph is never backpropagated
    raise AssertionError("checkpoint recomputation graph should not be differentiated")


def _raise(e):
    raise e


def _debug_context():
    # debug mode: both runs under LoggingTensorMode, and a mismatch error lists the two op sequences
    fwd: list = []
    rec: list = []

    @contextlib.contextmanager
    def logging(into):
        with capture_logs(is_mode=True) as logs, LoggingTensorMode():
            try:
                yield
            finally:
                into[:] = logs

    def on_error(e):
        raise CheckpointError(
            f"{e}\n\nOperations executed during the original forward:\n" + "\n".join(fwd)
            + "\n\nOperations executed during recomputation:\n" + "\n".join(rec)
        ) from e

    return (lambda: (logging(fwd), logging(rec))), on_error


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, debug, *args, **kwargs):
    nt = _nt()
    if determinism_check not in _DETERMINISM:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM)}, but got {determinism_check}")
    on_error = _raise
    if _SETTINGS["debug"] if _SETTINGS["debug"] is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, on_error = _debug_context()
    forward_context, recompute_context = context_fn()
    rng_state = nt.get_rng_state() if preserve_rng_state else None

    def recompute_fn():
        with _rng_restored(rng_state), nt.enable_grad(), recompute_context:
            function(*args, **kwargs)

    frame = _Frame(recompute_fn, _SETTINGS["early_stop"], _DETERMINISM[determinism_check], on_error)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):  # fmt: skip
    """Run ``function(*args, **kwargs)`` without keeping its intermediates; recompute them in backward
    (Note [Checkpoint by recomputation]).

    >>> lin = numtorch.nn.Linear(3, 3)
    >>> y = numtorch.utils.checkpoint.checkpoint(lin, numtorch.ones(2, 3), use_reentrant=False)
    >>> y.sum().backward(); lin.weight.grad.shape
    torch.Size([3, 3])
    """
    nt = _nt()
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. "
            "Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    if use_reentrant and (context_fn is not noop_context_fn or debug):
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if not use_reentrant:
        return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, debug,
                                             *args, **kwargs)  # fmt: skip
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not nt.is_grad_enabled():
        return function(*args)
    check_backward_validity(args)
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a ``Sequential`` (or list of modules) in ``segments`` chunks; the last chunk runs normally.

    >>> net = numtorch.nn.Sequential(numtorch.nn.Linear(2, 2), numtorch.nn.ReLU(), numtorch.nn.Linear(2, 1))
    >>> numtorch.utils.checkpoint.checkpoint_sequential(net, 2, numtorch.ones(1, 2), use_reentrant=False).shape
    torch.Size([1, 1])
    """
    nt = _nt()
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. "
            "Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if isinstance(functions, nt.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)  # fmt: skip
    return run_function(end + 1, len(functions) - 1, functions)(input)
