"""``opcheck``: the schema, autograd registration and fake kernel of an op against what its
real kernel does, as ``torch.library.opcheck``.

# Note [Fake check on the meta device]
# test_faketensor calls the op on meta copies of the inputs, which dispatches to the registered
# fake function (the op's meta kernel), and compares its outputs' metadata (shape, dtype,
# strides) with the real kernel's; every fake output must be a meta tensor.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """Raised by ``opcheck`` when one of its tests fails."""


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True, atol=None, rtol=None):
    """Check a custom op's registrations; returns ``{test: "SUCCESS" | error}``.

    >>> @numtorch.library.custom_op("mylib_doc::twice", mutates_args=())
    ... def twice(x: numtorch.Tensor) -> numtorch.Tensor:
    ...     return x * 2
    >>> twice.register_fake(lambda x: numtorch.empty_like(x))  # doctest: +ELLIPSIS
    <function <lambda> at ...>
    >>> numtorch.library.opcheck(twice, (numtorch.ones(2),))["test_schema"]
    'SUCCESS'
    """
    kwargs = kwargs or {}
    ov = getattr(op, "_opoverload", None) or getattr(op, "default", op)  # CustomOpDef, scalar-route ops
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    results = {}
    for name in test_utils:
        test = _TESTS.get(name)
        if test is None:
            raise ValueError(f"test_utils={name!r} is not a known test; choose from {tuple(_TESTS)}")
        try:
            test(ov, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as e:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {e} (scroll up for stack trace)") from e
            results[name] = e
    return results


def _clone(v):
    if isinstance(v, Tensor):
        c = v.detach().clone()
        c.requires_grad_(v.requires_grad)
        return c
    if isinstance(v, (list, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def _flat(args, kwargs):
    out = []
    for v in (*args, *kwargs.values()):
        out.extend(x for x in (v if isinstance(v, (list, tuple)) else (v,)) if isinstance(x, Tensor))
    return out


def _test_schema(op, args, kwargs):
    # run on copies; compare each input before/after against the schema's mutation marks, and
    # outputs against inputs for aliasing the schema does not declare
    a2, k2 = _clone(args), _clone(kwargs)
    from ..autograd.grad_mode import no_grad

    before = [t._data.copy() for t in _flat(a2, k2)]
    with no_grad():
        out = op(*a2, **k2)
    s = op._schema
    names = [a.name for a in s.arguments]
    vals = list(a2) + [k2.get(n) for n in names[len(a2):]]
    writes = {i for i, a in enumerate(s.arguments) if a.is_write}
    flat_i = 0
    for i, v in enumerate(vals):
        for t in v if isinstance(v, (list, tuple)) else (v,):
            if not isinstance(t, Tensor):
                continue
            changed = not np.array_equal(before[flat_i], t._data, equal_nan=True)
            flat_i += 1
            if changed and i not in writes:
                raise RuntimeError(
                    f"{op}: argument '{names[i]}' is not defined as mutable but was mutated "
                    f"(schema: {s}); add it to mutates_args"
                )
    outs = out if isinstance(out, (list, tuple)) else (out,)
    aliased_ok = {i for i, a in enumerate(s.arguments) if a.alias}
    for o in outs:
        if not isinstance(o, Tensor):
            continue
        for i, v in enumerate(vals):
            for t in v if isinstance(v, (list, tuple)) else (v,):
                if isinstance(t, Tensor) and i not in aliased_ok and np.shares_memory(o._data, t._data):
                    raise RuntimeError(
                        f"{op}: the output aliases argument '{names[i]}', which the schema does not "
                        f"declare (schema: {s}). The output of a custom operator should be a fresh Tensor."
                    )


def _test_autograd_registration(op, args, kwargs):
    from ..autograd.gradcheck import gradcheck

    tensors = [t for t in _flat(args, kwargs) if t.requires_grad]
    if not tensors:
        return
    if not _has_autograd(op.autograd):
        raise RuntimeError(
            f"{op} has inputs that require grad but no autograd formula was registered. "
            "Please use register_autograd to add one."
        )
    a2, k2 = _clone(args), _clone(kwargs)
    leaves = [t for t in _flat(a2, k2) if t.requires_grad]
    if all(t.dtype.name == "float64" for t in leaves):

        def fn(*ts):
            it = iter(ts)
            sub = lambda v: next(it) if isinstance(v, Tensor) and v.requires_grad else v  # noqa: E731
            aa = [sub(v) if not isinstance(v, (list, tuple)) else type(v)(sub(x) for x in v) for v in a2]
            kk = {n: sub(v) for n, v in k2.items()}
            return op(*aa, **kk)

        gradcheck(fn, tuple(leaves), raise_exception=True)
    else:  # the backward must at least run and give gradients of the inputs' shapes
        out = op(*a2, **k2)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, Tensor) and o.requires_grad]
        total = sum(o.sum() for o in outs)
        total.backward()
        for t in leaves:
            if t.grad is not None and tuple(t.grad.shape) != tuple(t.shape):
                raise RuntimeError(f"{op}: backward gave a gradient of shape {tuple(t.grad.shape)} for an input of shape {tuple(t.shape)}")


def _has_autograd(k) -> bool:
    # register_autograd's kernel, a Library "Autograd" impl, or a formula table (the scalar
    # routes') with at least one formula that is not a placeholder raising at backward
    from ..ops._registry import Derivative
    from .elementwise import _NoFormula

    if k.__class__ is Derivative:
        return any(not isinstance(f, _NoFormula) for f in k.formulas.values())
    return k is not None and getattr(k, "backward", True) is not None


def _meta(t):
    return (tuple(t.shape), t.dtype, tuple(t.stride()))


def _test_faketensor(op, args, kwargs):
    fake = op.impls.get("meta")
    if fake is None:
        d = getattr(op, "_custom_def", None)
        shown = d if d is not None else op
        name = getattr(getattr(d, "_init_fn", None), "__name__", op._schema.name)
        raise RuntimeError(
            f"There was no fake impl registered for {shown}. This is necessary for torch.compile/export/fx "
            f"tracing to work. Please use `{name}.register_fake` to add an fake impl."
        )
    from ..autograd.grad_mode import no_grad

    with no_grad():
        real = op(*_clone(args), **_clone(kwargs))
        f = op(*_to_meta(args), **_to_meta(kwargs))
    reals = real if isinstance(real, (tuple, list)) else (real,)
    fakes = f if isinstance(f, (tuple, list)) else (f,)
    if len(reals) != len(fakes):
        raise RuntimeError(f"{op}: the fake function returned {len(fakes)} outputs, the kernel {len(reals)}")
    for k, (r, g) in enumerate(zip(reals, fakes)):
        if isinstance(r, Tensor) != isinstance(g, Tensor):
            raise RuntimeError(f"{op}: output {k} is a {type(r).__name__} from the kernel but a {type(g).__name__} from the fake function")
        if isinstance(g, Tensor) and not g.is_meta:
            raise RuntimeError(f"{op}: the fake function's output {k} is on {g.device}, not on the meta device")
        if isinstance(r, Tensor) and _meta(r) != _meta(g):
            raise RuntimeError(
                f"{op}: the fake function's output {k} has (shape, dtype, strides) {_meta(g)} but the "
                f"real kernel's has {_meta(r)}"
            )


def _to_meta(x):
    if isinstance(x, Tensor):
        return x.detach().to("meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_to_meta(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_meta(v) for k, v in x.items()}
    return x


def _test_aot_dispatch_dynamic(op, args, kwargs):
    # no tracing compiler yet: the op must at least give the same values twice
    with _no_grad():
        a = op(*_clone(args), **_clone(kwargs))
        b = op(*_clone(args), **_clone(kwargs))
    for x, y in zip(a if isinstance(a, (tuple, list)) else (a,), b if isinstance(b, (tuple, list)) else (b,)):
        if isinstance(x, Tensor) and not np.array_equal(x._data, y._data, equal_nan=True):
            raise RuntimeError(f"{op}: two calls with the same inputs gave different outputs")


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


_TESTS = {
    "test_schema": _test_schema,
    "test_autograd_registration": _test_autograd_registration,
    "test_faketensor": _test_faketensor,
    "test_aot_dispatch_dynamic": _test_aot_dispatch_dynamic,
}
