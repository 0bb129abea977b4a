"""numtorch.utils.checkpoint: trade compute for memory by recomputing a segment in backward.

# Note [Checkpoint by recomputation]
# Both variants run ``function`` under no_grad in forward (no intermediate is kept) and run it
# again with grad enabled during backward, restoring the RNG state first so dropout draws the
# same masks. ``use_reentrant=True`` follows PyTorch's reentrant rule: only inputs that require
# grad make the output differentiable (with PyTorch's warning otherwise). ``use_reentrant=False``
# threads a dummy leaf through the op so parameters used inside get gradients even when no input
# requires grad, as PyTorch's non-reentrant variant does; it is implemented by the same
# recomputation rather than saved-tensor hooks, so nested ``autograd.grad`` inside the function
# is not supported.
"""

from __future__ import annotations

import warnings

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "check_backward_validity",
           "detach_variable", "noop_context_fn"]  # fmt: skip


class CheckpointError(RuntimeError):
    """Raised when a recomputation does not match the original forward."""


def _nt():
    import numtorch

    return numtorch


def noop_context_fn():
    """The default ``context_fn``: two no-op context managers."""
    import contextlib

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


def _function():
    nt = _nt()

    class CheckpointFunction(nt.autograd.Function):
        @staticmethod
        def forward(ctx, run_function, preserve_rng_state, kwargs, dummy, *args):
            ctx.run_function, ctx.kwargs = run_function, kwargs
            ctx.rng_state = nt.get_rng_state() if preserve_rng_state else None
            ctx.tensor_idx = [i for i, a in enumerate(args) if isinstance(a, nt.Tensor)]
            ctx.others = [None if isinstance(a, nt.Tensor) else a for a in args]
            ctx.save_for_backward(*[args[i] for i in ctx.tensor_idx])
            with nt.no_grad():
                outputs = run_function(*args, **kwargs)
            return outputs

        @staticmethod
        def backward(ctx, *grads):
            saved = ctx.saved_tensors
            args = list(ctx.others)
            for i, t in zip(ctx.tensor_idx, saved):
                d = t.detach()
                d.requires_grad = t.requires_grad
                args[i] = d
            state = nt.get_rng_state()
            if ctx.rng_state is not None:
                nt.set_rng_state(ctx.rng_state)
            try:
                with nt.enable_grad():
                    outputs = ctx.run_function(*args, **ctx.kwargs)
            finally:
                nt.set_rng_state(state)
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, nt.Tensor) and o.requires_grad and g is not None]
            if not pairs:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
            nt.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
            arg_grads = tuple(a.grad if isinstance(a, nt.Tensor) else None for a in args)
            return (None, None, None, None) + arg_grads

    return CheckpointFunction


_FN: list = []


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
    if not _FN:
        _FN.append(_function())
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if nt.is_grad_enabled():
            check_backward_validity(args)
        dummy = None
    else:
        dummy = nt.empty(0, requires_grad=True)  # makes the output differentiable for parameters inside
    if not nt.is_grad_enabled():
        return function(*args, **kwargs)
    return _FN[0].apply(function, preserve_rng_state, kwargs, dummy, *args)


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
                           preserve_rng_state=kwargs.get("preserve", True))  # fmt: skip
    return run_function(end + 1, len(functions) - 1, functions)(input)
