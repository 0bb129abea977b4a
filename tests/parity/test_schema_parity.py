"""Schema parsing checked against torch's own FunctionSchema objects and dispatch conventions."""

from __future__ import annotations

import math

import pytest

from numtorch._schema import NO_DEFAULT, bind, normalize_for_dispatch, parse_schema

torch = pytest.importorskip("torch")


def _aten_schemas() -> list:
    out = []
    for schema in torch._C._jit_get_all_schemas():
        text = str(schema)
        if not text.startswith("aten::"):
            continue
        # TorchScript's variadic builtins (`format(str self, ...)`, `has_torch_function(...)`)
        # have no numtorch counterpart; parse_schema rejects `...` on purpose.
        if "..." in text:
            continue
        out.append(schema)
    return out


ATEN = _aten_schemas()


def _failures(check) -> list[str]:
    bad = []
    for schema in ATEN:
        try:
            problem = check(schema, parse_schema(str(schema)))
        except ValueError as exc:
            problem = f"ValueError: {exc}"
        if problem:
            bad.append(f"{schema}: {problem}")
    return bad


def test_enough_aten_schemas_are_checked():
    total = sum(1 for s in torch._C._jit_get_all_schemas() if str(s).startswith("aten::"))
    assert len(ATEN) >= 300
    assert len(ATEN) >= 0.99 * total


def test_text_round_trips_exactly():
    def check(ref, ours):
        text = str(ref)  # the namespace prints, as torch._C.parse_schema prints it
        if str(ours) != text:
            return f"printed {ours}"
        if parse_schema(str(ours)) != ours:
            return "reparse differs"
        return None

    bad = _failures(check)
    assert not bad, f"{len(bad)}/{len(ATEN)} fail, e.g. {bad[:5]}"


def test_names_kwarg_only_and_returns_agree():
    def check(ref, ours):
        name = ref.name.removeprefix("aten::")
        if (ours.namespace, ours.name, ours.overload_name) != ("aten", name, ref.overload_name):
            return "name"
        if [a.name for a in ours.arguments] != [a.name for a in ref.arguments]:
            return "argument names"
        if [a.kwarg_only for a in ours.arguments] != [a.kwarg_only for a in ref.arguments]:
            return "kwarg_only"
        if len(ours.returns) != len(ref.returns):
            return "number of returns"
        if [r.name or "" for r in ours.returns] != [r.name for r in ref.returns]:
            return "return names"
        return None

    bad = _failures(check)
    assert not bad, f"{len(bad)}/{len(ATEN)} fail, e.g. {bad[:5]}"


def test_alias_and_mutability_agree():
    def check(ref, ours):
        for a, r in zip(ours.arguments, ref.arguments, strict=True):
            write = r.alias_info is not None and r.alias_info.is_write
            if a.is_write != write:
                return f"is_write of {a.name}"
            if (a.alias is None) != (r.alias_info is None):
                return f"alias presence of {a.name}"
        if ours.is_mutable != ref.is_mutable:
            return "is_mutable"
        return None

    bad = _failures(check)
    assert not bad, f"{len(bad)}/{len(ATEN)} fail, e.g. {bad[:5]}"


def _same_default(ours, theirs) -> bool:
    if isinstance(theirs, float) and math.isnan(theirs):
        return isinstance(ours, float) and math.isnan(ours)
    if type(ours) is not type(theirs):
        return False
    if isinstance(theirs, list):
        return len(ours) == len(theirs) and all(map(_same_default, ours, theirs))
    return ours == theirs


def test_default_values_agree():
    def check(ref, ours):
        for a, r in zip(ours.arguments, ref.arguments, strict=True):
            if not r.has_default_value():
                if a.has_default:
                    return f"{a.name} should have no default"
                continue
            theirs = r.default_value
            # torch keeps the scalar of an optional sized list (`int[2]? x=1`); numtorch expands it.
            if a.is_optional and a.list_size is not None and not isinstance(theirs, list):
                theirs = [theirs] * a.list_size if theirs is not None else None
            if a.default is NO_DEFAULT or not _same_default(a.default, theirs):
                return f"default of {a.name}: {a.default!r} vs {theirs!r}"
        return None

    bad = _failures(check)
    assert not bad, f"{len(bad)}/{len(ATEN)} fail, e.g. {bad[:5]}"


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return a is b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _dispatch_calls() -> list:
    from torch.utils._python_dispatch import TorchDispatchMode

    calls = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            calls.append((func, args, kwargs))
            return func(*args, **kwargs)

    x = torch.ones(2, 3)
    f = torch.nn.functional
    with Recorder():
        torch.rand(2, 3, device="cpu")
        torch.clamp(x, max=1.0)
        torch.sum(x, 0)
        torch.sum(x, 0, keepdim=True)
        torch.sum(x, 0, dtype=torch.float64)
        torch.add(x, x)
        torch.add(x, x, alpha=2)
        torch.add(x, x, out=torch.empty(2, 3))
        torch.std(x, 0)
        torch.split(x, 1)
        torch.ones_like(x)
        torch.nan_to_num(x)
        torch.div(x, x, rounding_mode="floor")
        torch.max(x, 0)
        torch.full((2,), 3.0)
        torch.cat([x, x])
        torch.amax(x)
        torch.empty(2, memory_format=torch.contiguous_format)
        f.layer_norm(x, (3,))
        f.max_pool2d(x[None, None], 2)
        f.max_pool2d(x[None, None], 2, stride=1, padding=1)
    return calls


def test_normalize_for_dispatch_matches_torch_dispatch_convention():
    calls = _dispatch_calls()
    assert len(calls) >= 20
    for func, args, kwargs in calls:
        schema = parse_schema(str(func._schema))
        assert schema.name == func._schema.name.removeprefix("aten::")
        values = bind(schema, args, kwargs)
        assert len(values) == len(schema.arguments)
        got_args, got_kwargs = normalize_for_dispatch(schema, values)
        assert _same(got_args, args), (str(func), got_args, args)
        assert list(got_kwargs) == list(kwargs), (str(func), got_kwargs, kwargs)
        assert all(_same(got_kwargs[k], kwargs[k]) for k in kwargs), str(func)
