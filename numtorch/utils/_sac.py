"""Selective activation checkpointing: a policy says which ops' outputs the forward keeps, so the
recomputation in backward reuses them instead of running those ops again.

# Note [Selective checkpoint caches by op and call index]
# As PyTorch's: the forward runs under _CachingTorchDispatchMode, which asks the policy after
# each op (with the output in ``ctx.op_output``) and stores the detached output, or a
# _RECOMPUTE marker, under (op, n-th call of that op). The recomputation runs under
# _CachedTorchDispatchMode, which hands back stored outputs once each and runs the others.
# Both modes sit below autograd, so the recomputed graph still records every op.
"""

from __future__ import annotations

import enum
from collections import defaultdict

from .._ops import OpOverload, OpOverloadPacket
from .._tensor import Tensor
from ..ops import aten
from ._python_dispatch import TorchDispatchMode
from ._pytree import tree_map

SAC_IGNORED_OPS = {aten.detach.default}


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: keep it or recompute it.

    >>> numtorch.utils.checkpoint.CheckpointPolicy.MUST_SAVE.value
    0
    """

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


def _policy_from_bool(b: bool) -> CheckpointPolicy:
    return CheckpointPolicy.MUST_SAVE if b else CheckpointPolicy.PREFER_RECOMPUTE


class SelectiveCheckpointContext:
    """What a selective-checkpoint policy is told about the op it decides on.

    >>> numtorch.utils.checkpoint.SelectiveCheckpointContext(is_recompute=False).is_recompute
    False
    """

    def __init__(self, *, is_recompute, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class _VersionWrapper:
    # a cached output mutated after the forward would silently change the gradient
    def __init__(self, val) -> None:
        self.val = val
        self.version = val._version if isinstance(val, Tensor) else None

    def get_val(self, allow_cache_entry_mutation: bool):
        if self.version is not None and not allow_cache_entry_mutation and self.val._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        return self.val


_RECOMPUTE = object()
_CONSUMED = object()
_SAC_MISMATCH_MSG = (
    "This can happen if the operations in the checkpointed region are nondeterministic or depend on "
    "global state that changed between forward and backward."
)


class _CachingTorchDispatchMode(TorchDispatchMode):
    def __init__(self, policy_fn, storage) -> None:
        self.policy_fn = policy_fn
        self.storage = storage
        self.func_counter: dict = defaultdict(int)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func in SAC_IGNORED_OPS:
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        idx = self.func_counter[func]
        self.func_counter[func] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out), func, *args, **kwargs)
        if isinstance(policy, bool):
            policy = _policy_from_bool(policy)
        if policy in (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE):
            self.storage[func][idx] = tree_map(lambda x: _VersionWrapper(x.detach() if isinstance(x, Tensor) else x), out)
        else:
            self.storage[func][idx] = _RECOMPUTE
        return out


class _CachedTorchDispatchMode(TorchDispatchMode):
    def __init__(self, policy_fn, storage, allow_cache_entry_mutation: bool = False) -> None:
        self.storage = storage
        self.allow_cache_entry_mutation = allow_cache_entry_mutation
        self.func_counter: dict = defaultdict(int)

    def __enter__(self):
        self.func_counter.clear()  # a second backward then reports "extra time", not a missing index
        return super().__enter__()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func in SAC_IGNORED_OPS:
            return func(*args, **kwargs)
        idx = self.func_counter[func]
        self.func_counter[func] += 1
        func_storage = self.storage.get(func)
        if func_storage is None:
            raise RuntimeError(f"{func} encountered during backward but not found in storage. {_SAC_MISMATCH_MSG}")
        entry = func_storage.get(idx)
        if entry is None:
            raise RuntimeError(
                f"{func} invocation index {idx} encountered during backward but not found in storage. {_SAC_MISMATCH_MSG}"
            )
        if entry is _CONSUMED:
            raise RuntimeError(
                "Trying to backward an extra time. You are only allowed to backward once on any region "
                "computed under selective activation checkpoint."
            )
        if entry is _RECOMPUTE:
            return func(*args, **kwargs)
        func_storage[idx] = _CONSUMED
        return tree_map(lambda x: x.get_val(self.allow_cache_entry_mutation), entry)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation: bool = False):
    """The ``context_fn`` pair for ``checkpoint(..., use_reentrant=False, context_fn=...)``: ops the
    policy saves are not recomputed in backward (Note [Selective checkpoint caches by op and call index]).

    >>> import functools
    >>> aten = numtorch.ops.aten
    >>> ctx_fn = functools.partial(numtorch.utils.checkpoint.create_selective_checkpoint_contexts, [aten.mm.default])
    >>> x = numtorch.ones(2, 2, requires_grad=True)
    >>> y = numtorch.utils.checkpoint.checkpoint(lambda a: (a @ a).sin(), x, use_reentrant=False, context_fn=ctx_fn)
    >>> y.sum().backward()
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                extra = (
                    "Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                    "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                    if isinstance(op, OpOverloadPacket) else ""
                )  # fmt: skip
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. {extra}")
        ops = policy_fn_or_list

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE

    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: dict = defaultdict(dict)
    return (
        _CachingTorchDispatchMode(policy_fn, storage),
        _CachedTorchDispatchMode(None, storage, allow_cache_entry_mutation),
    )
