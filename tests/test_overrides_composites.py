"""Composite ops are below the Python API: a TorchFunctionMode (even one that re-enters itself)
and code that patches public functions see only the call the user made, never the ops a
composite or a derivative formula is written with (Note [Composite bodies are below the Python
API], Note [Derivative formulas are below the Python API]).
"""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch.ops._registry import OPS
from numtorch.overrides import TorchFunctionMode, resolve_name
from numtorch.testing._opinfo import op_db

from .ops._harness import to_nt

COMPOSITES = sorted((op for op in OPS.values() if "composite" in op.impls), key=str)


class Count(TorchFunctionMode):
    """Records every call it sees."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func)
        return func(*args, **(kwargs or {}))


def _names(seen):
    return [resolve_name(f) for f in seen]


def _first_sample(info):
    rng = np.random.default_rng(0)
    dtype = "float64" if "float64" in info.dtypes else info.dtypes[0]
    samples = info.sample_inputs(dtype, rng)
    return samples[0] if samples else None


def _reached_composites():
    """For each OpInfo's first sample: the first composite overload its public call reaches and
    the values it got (recorded by swapping each composite's op.fast)."""
    found, log = {}, []
    saved = {op: op.fast for op in COMPOSITES}

    def spy(op):
        inner = op.fast if op.fast is not op._first_call else None

        def fast(*vals):
            log.append((op, vals))
            return (inner or saved_fast(op))(*vals)

        return fast

    def saved_fast(op):
        from numtorch._dispatch import make_fast

        return make_fast(op)

    for op in COMPOSITES:
        op.fast = spy(op)
    try:
        for info in op_db:
            s = _first_sample(info)
            if s is None:
                continue
            log.clear()
            try:
                info.resolve()(to_nt(s.input), *to_nt(s.args), **to_nt(s.kwargs))
            except Exception:  # noqa: BLE001 (samples of error tests; not this test's concern)
                continue
            if log:
                found.setdefault(log[0][0], (info, log[0][1]))
    finally:
        for op, f in saved.items():
            op.fast = f
    return found


REACHED = _reached_composites()


def test_registry_has_composites_and_opinfos_reach_most():
    assert len(COMPOSITES) > 100
    # the bindings' fast calls compute some public calls without their composite (narrow,
    # swapaxes, conj, the adaptive pools, conv_transpose1d/2d, hinge_embedding_loss, selu,
    # scaled_dot_product_attention, linalg_eigvalsh, ...: Note [Binding fast call]); those go
    # unseen here (ldexp.Tensor has its own node now: no longer a composite's call)
    assert len(REACHED) > 35, sorted(map(str, set(COMPOSITES) - set(REACHED)))


_MODULES = ("numtorch", "numtorch.nn.functional", "numtorch.linalg", "numtorch.special")


@pytest.fixture
def patched_public(monkeypatch):
    """Every public function of the torch namespaces replaced by one that counts and forwards:
    a call made from inside another op's body shows up in ``calls``."""
    import sys

    from numtorch.overrides import get_overridable_functions

    calls = []
    for ns, fns in get_overridable_functions().items():
        if not (isinstance(ns, type(numtorch)) and ns.__name__ in _MODULES):
            continue
        for name, v in list(vars(ns).items()):
            if v in fns:
                def spy(*a, _v=v, _n=f"{ns.__name__}.{name}", **k):
                    calls.append(_n)
                    return _v(*a, **k)

                monkeypatch.setattr(sys.modules[ns.__name__], name, spy)
    return calls


@pytest.mark.parametrize("info", op_db, ids=lambda i: i.name)
def test_public_call_makes_no_other_public_call(info, patched_public):
    s = _first_sample(info)
    if s is None:
        pytest.skip("no sample")
    fn = _resolve_unpatched(info)
    args, kwargs = (to_nt(s.input), *to_nt(s.args)), to_nt(s.kwargs)
    try:
        with Count() as m:
            fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 (a sample this machine cannot run, e.g. Tensor.cuda)
        pytest.skip(f"sample raises {type(e).__name__}")
    assert [c for c in patched_public if c not in _PYTHON_LEVEL_IN_TORCH] == []
    assert m.seen == [fn], _names(m.seen)


# PyTorch's F.mse_loss / l1_loss / smooth_l1_loss / huber_loss are Python and call the public
# torch.broadcast_tensors (itself Python with a __torch_function__ check), so patching it changes
# them in torch too: numtorch's F keeps that call.
_PYTHON_LEVEL_IN_TORCH = {"numtorch.broadcast_tensors"}


_ORIGINAL = {info.name: info.resolve() for info in op_db}


def _resolve_unpatched(info):
    return _ORIGINAL[info.name]


@pytest.mark.parametrize("op", sorted(REACHED, key=str), ids=str)
def test_aten_composite_shows_only_itself(op):
    info, vals = REACHED[op]
    args, kwargs = [], {}
    for a, v in zip(op._schema.arguments, vals):
        if a.kwarg_only:
            kwargs[a.name] = v
        else:
            args.append(v)
    with Count() as m:
        op(*args, **kwargs)
    assert m.seen == [op], _names(m.seen)


def test_aten_calls_reach_modes_and_subclass_handlers_like_torch():
    x, w = numtorch.randn(3), numtorch.randn(2, 3)
    with Count() as m:
        numtorch.ops.aten.linear.default(x, w)
        numtorch.ops.aten.linear(x, w)
    assert _names(m.seen) == ["aten.linear.default", "aten.linear"]

    class Sub(numtorch.Tensor):
        pass

    out = numtorch.ops.aten.linear.default(x.as_subclass(Sub), w)
    assert type(out) is Sub


def test_cross_entropy_and_linear_do_not_leak_to_a_mode():
    x, w, b = numtorch.randn(4, 3), numtorch.randn(2, 3), numtorch.randn(2)
    t = numtorch.tensor([0, 1, 1, 0])
    with Count() as m:
        numtorch.ops.aten.cross_entropy_loss(F.linear(x, w, b), t)
    assert _names(m.seen) == ["torch.nn.functional.linear", "aten.cross_entropy_loss"]


def test_patching_public_functions_does_not_change_linear(monkeypatch):
    x, w, b = numtorch.randn(4, 3), numtorch.randn(2, 3), numtorch.randn(2)
    want = F.linear(x, w, b)
    calls = []

    def boom(*a, **k):
        calls.append(1)
        raise AssertionError("F.linear reached the public function")

    for name in ("matmul", "addmm", "add"):
        monkeypatch.setattr(numtorch, name, boom)
    got = F.linear(x, w, b)
    got3 = F.linear(x.reshape(2, 2, 3), w, b)
    assert not calls
    np.testing.assert_allclose(got.numpy(), want.numpy())
    assert got3.shape == (2, 2, 2)


@pytest.mark.parametrize(
    "name, make",
    [
        ("mul", lambda x, w: (x * x).sum()),
        ("add", lambda x, w: (x + x).sum()),
        ("sum", lambda x, w: x.sum()),
        ("linear", lambda x, w: F.linear(x, w).sum()),
    ],
)
def test_backward_shows_a_mode_only_the_entry_point(name, make):
    # as torch 2.13: Tensor.backward, torch.autograd.grad / backward, never the formulas
    x = numtorch.randn(3, requires_grad=True)
    w = numtorch.randn(2, 3, requires_grad=True)
    for call, want in [
        (lambda y: y.backward(), numtorch.Tensor.backward),
        (lambda y: numtorch.autograd.grad(y, x), numtorch.autograd.grad),
        (lambda y: numtorch.autograd.grad(y, x, create_graph=True), numtorch.autograd.grad),
        (lambda y: numtorch.autograd.backward(y), numtorch.autograd.backward),
    ]:
        y = make(x, w)
        with Count() as m:
            call(y)
        assert m.seen == [want], (name, _names(m.seen))


# Tensor methods that are metadata in PyTorch (no op runs): composites may read these
_METADATA = {"dim", "numel", "size", "stride", "is_contiguous", "element_size", "__len__"}


def _patch_tensor_ops(monkeypatch, calls):
    """Swap every op-running Tensor method and operator for one that records its name."""
    keep = _METADATA | {"__repr__", "__hash__", "__bool__", "__iter__", "__getattr__", "__setattr__",
                        "__new__", "__init__", "__init_subclass__", "__torch_function__",
                        "__torch_dispatch__", "__reduce_ex__", "__format__", "__index__"}  # fmt: skip
    for name, fn in list(vars(numtorch.Tensor).items()):
        if name in keep or not callable(fn) or isinstance(fn, (type, staticmethod, classmethod)):
            continue

        def patched(*args, _name=name, _fn=fn, **kwargs):
            calls.append(_name)
            return _fn(*args, **kwargs)

        monkeypatch.setattr(numtorch.Tensor, name, patched)


def test_patching_tensor_methods_never_changes_the_main_composites(monkeypatch):
    # ATen's composites are C++: replacing Tensor.t or Tensor.__add__ in Python changes nothing
    g = np.random.default_rng(0)
    x, w, b = (numtorch.tensor(g.standard_normal(s)) for s in ((4, 5), (3, 5), (3,)))
    x3, q, k, v = (numtorch.tensor(g.standard_normal(s)) for s in ((2, 4, 5), *[(2, 3, 4)] * 3))
    target = numtorch.tensor([0, 2, 1, 0])
    probs = numtorch.tensor(g.dirichlet(np.ones(5), 4))
    cw = numtorch.tensor(g.random(5))
    mask = numtorch.tensor(g.random((3, 3)) > 0.3)
    q4, k2, v2 = (numtorch.tensor(g.standard_normal(s)) for s in ((1, 4, 3, 4), *[(1, 2, 3, 4)] * 2))
    calls = {
        "linear": lambda: F.linear(x, w, b),
        "linear 3-d": lambda: F.linear(x3, w, b),
        "linear no bias": lambda: F.linear(x, w),
        "cross_entropy": lambda: F.cross_entropy(x, target),
        "cross_entropy probs": lambda: F.cross_entropy(x, probs, weight=cw, label_smoothing=0.2),
        "cross_entropy probs none": lambda: F.cross_entropy(x, probs, reduction="none"),
        "cross_entropy smoothing": lambda: F.cross_entropy(x, target, label_smoothing=0.1),
        "cross_entropy smoothing weight": lambda: F.cross_entropy(
            x, target, weight=cw, label_smoothing=0.1
        ),
        "layer_norm": lambda: F.layer_norm(x, (5,), cw, cw),
        "softmax": lambda: F.softmax(x, 1),
        "log_softmax": lambda: F.log_softmax(x, 1),
        "sdpa": lambda: F.scaled_dot_product_attention(q, k, v),
        "sdpa causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "sdpa bool mask": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
        "sdpa gqa": lambda: F.scaled_dot_product_attention(q4, k2, v2, enable_gqa=True),
    }
    expected = {name: fn().numpy().copy() for name, fn in calls.items()}
    seen = []
    _patch_tensor_ops(monkeypatch, seen)
    for name, fn in calls.items():
        seen.clear()
        r = fn()
        assert seen == [], (name, seen)
        np.testing.assert_array_equal(r.numpy(), expected[name], err_msg=name)
