"""functional_call and stack_module_state (``torch.func``)."""

from __future__ import annotations

import contextlib


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors.

    >>> m = numtorch.nn.Linear(2, 1)
    >>> p = {"weight": numtorch.ones(1, 2), "bias": numtorch.zeros(1)}
    >>> numtorch.func.functional_call(m, p, (numtorch.ones(2),))
    tensor([2.])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    else:
        values = {}
        for d in parameter_and_buffer_dicts:
            dup = set(values) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            values.update(d)
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(names - set(values)), sorted(set(values) - names)
        if missing or unexpected:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + (f"Unexpected key(s): {', '.join(map(repr, unexpected))}." if unexpected else "")
                + (f"Missing key(s): {', '.join(map(repr, missing))}." if missing else "")
            )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values):
        return module(*args, **(kwargs or {}))


@contextlib.contextmanager
def _reparametrize(module, values):
    saved = []
    try:
        for name, t in values.items():
            owner, _, attr = name.rpartition(".")
            mod = module.get_submodule(owner) if owner else module
            for store in ("_parameters", "_buffers"):
                d = mod.__dict__.get(store)
                if d is not None and attr in d:
                    saved.append((d, attr, d[attr]))
                    d[attr] = t
                    break
            else:
                saved.append((mod.__dict__, attr, mod.__dict__.get(attr, _MISSING)))
                mod.__dict__[attr] = t
        yield
    finally:
        for d, attr, old in reversed(saved):
            if old is _MISSING:
                d.pop(attr, None)
            else:
                d[attr] = old


_MISSING = object()


def stack_module_state(models):
    """Stack the parameters and buffers of same-structured modules (for ``vmap`` ensembling)."""
    from .. import stack

    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    params = {n: stack([dict(m.named_parameters())[n].detach() for m in models]).requires_grad_(p.requires_grad)
              for n, p in models[0].named_parameters()}  # fmt: skip
    buffers = {n: stack([dict(m.named_buffers())[n] for m in models]) for n, _ in models[0].named_buffers()}
    return params, buffers
