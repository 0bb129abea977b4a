"""Note [Declining fast call inline] (numtorch/_api.py): a binding whose fast call is or_body's
(or sampler_fast.with_body's) pair of fast function and its own body calls the fast function
from the generated wrapper itself, and the body after it where it declines."""

from __future__ import annotations

import pytest

import numtorch
from numtorch.ops._registry import BINDINGS


def _wrapper(b):
    root = numtorch.Tensor if b.module == "Tensor" else numtorch
    for part in ([] if b.module in ("Tensor", "torch") else b.module.split(".")[1:]):
        root = getattr(root, part)
    return getattr(root, b.name)


def _paired():
    out = []
    for b in BINDINGS:
        dec = getattr(b.fast[0], "declines", None) if b.fast else None
        if dec is not None and dec[1] is b.body and b.relevant:
            out.append(b)
    return out


def test_paired_bindings_call_the_fast_function_itself():
    found = _paired()
    names = {(b.module, b.name) for b in found}
    # or_body's (factories, conversions, samplers of tensors) and with_body's (in-place samplers)
    for want in [("torch", "empty_like"), ("torch", "rand_like"), ("Tensor", "new_empty_strided"),
                 ("torch", "bernoulli"), ("Tensor", "exponential_"), ("Tensor", "random_")]:  # fmt: skip
        assert want in names
    for b in found:
        fn = _wrapper(b)
        if fn.__code__.co_filename != f"<numtorch.{b.module}.{b.name}>":
            continue  # an alias bound to another binding's wrapper
        assert fn.__globals__["_fop"] is b.fast[0].declines[0], (b.module, b.name)


def test_a_declining_fast_function_runs_the_body_with_its_arguments(monkeypatch):
    fn = numtorch.empty_like
    seen = []
    monkeypatch.setitem(fn.__globals__, "_fop", lambda *a: seen.append(("fast", a)))
    monkeypatch.setitem(fn.__globals__, "_body", lambda *a: seen.append(("body", a)) or "body")
    x = numtorch.zeros(2, 3)
    assert fn(x) == "body"
    assert [k for k, _ in seen] == ["fast", "body"] and seen[0][1] == seen[1][1]
    assert seen[1][1][0] is x


def test_with_body_passes_the_generator_none(monkeypatch):
    fn = numtorch.Tensor.exponential_
    seen = []
    monkeypatch.setitem(fn.__globals__, "_fop", lambda *a: None)
    monkeypatch.setitem(fn.__globals__, "_body", lambda *a: seen.append(a) or "body")
    x = numtorch.zeros(3)
    assert x.exponential_(2.0) == "body"
    assert seen == [(x, 2.0, None)]


@pytest.mark.parametrize("case", ["exponential", "uniform", "random", "empty_like", "rand_like"])
def test_the_inline_route_gives_the_closures_results(case):
    """Both the wrapper and the or_body/with_body closure, from one generator state."""
    from numtorch.ops._registry import BINDINGS as B

    mod, name, args = {
        "exponential": ("Tensor", "exponential_", (2.0,)),
        "uniform": ("Tensor", "uniform_", (-1, 1)),
        "random": ("Tensor", "random_", ((3, 9), None)),
        "empty_like": ("torch", "empty_like", (None, None, None, False, None)),
        "rand_like": ("torch", "rand_like", (None, None, None, None, False, None)),
    }[case]
    (b,) = [b for b in B if b.module == mod and b.name == name and b.fast]
    closure = b.fast[0]
    x = numtorch.zeros(2, 3)
    y = numtorch.zeros(2, 3)
    numtorch.manual_seed(7)
    if name == "random_":
        r1 = x.random_(3, 9)
    elif mod == "Tensor":
        r1 = getattr(x, name)(*args)
    else:
        r1 = getattr(numtorch, name)(x)
    state = numtorch.get_rng_state()
    numtorch.manual_seed(7)
    r2 = closure(y, *args)
    assert numtorch.equal(numtorch.get_rng_state(), state)
    assert r1.shape == r2.shape and r1.dtype == r2.dtype and r1.stride() == r2.stride()
    if name != "empty_like":
        assert r1._data.tobytes() == r2._data.tobytes()
