"""The fast calls of Note [Part view fast calls] (ops/shape/fast_parts.py) against their bodies:
the same views (sizes, strides, storage offset, storage, base, version counter, values, no
other state), the same errors; the fast route is taken for plain calls; a gradient to record,
a dispatch mode, a forward-AD level, autocast and __torch_function__ subclasses take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import fast_parts
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome
from .test_fast_views import _inputs as _view_inputs

CALLS = [
    ("transpose", [(0, 1), (-1, 0), (2, 2), (0, 3), (-4, 0), (0.0, 1), (True, 0)]),
    ("swapaxes", [(0, 2), (-1, -2), (3, 0)]),
    ("swapdims", [(0, 2), (1, -3), (0, -4)]),
    ("adjoint", [()]),
    ("select", [(0, 1), (1, -1), (-1, 3), (1, 3), (0, -3), (2, 4), (3, 0), (0, 1.0), (False, 0)]),
    ("narrow", [(0, 0, 1), (1, 1, 2), (-1, -2, 2), (2, 0, 0), (1, 2, 2), (1, -4, 1), (1, 4, 0),
                (0, 0, -1), (3, 0, 1), (0, 0.0, 1), (1, 3, 1)]),
    ("unbind", [(0,), (1,), (-1,), (3,), (-4,), (1.0,)]),
    ("chunk", [(2, 0), (2, 1), (3, -1), (5, 2), (1, 0), (0, 0), (-1, 1), (2, 3), (2.0, 0)]),
    ("split_with_sizes", [([1, 1], 0), ((1, 2), 1), ([0, 4], -1), ([2, 2], 2), ([1, 2], 0), ([-1, 3], 0),
                          ([1.0, 1], 0), ([2], 0), ([1, 1], 3)]),
    ("conj", [()]),
    ("resolve_conj", [()]),
    ("real", [()]),
]  # fmt: skip
MODULES = {n: (("torch",) if n == "real" else ("torch", "Tensor")) for n, _ in CALLS}


def _inputs():
    yield from _view_inputs()  # contiguous, non-contiguous, offset, int64, empty, 0-d
    yield torch.arange(6).reshape(3, 2).to(torch.uint32)
    yield torch.arange(4.0)
    z = torch.complex(torch.arange(6.0), -torch.arange(6.0)).reshape(2, 3)
    yield z
    yield z.conj()


def _fresh(x):
    return (
        x.clone()
        if x._base is None
        else x._base.clone().as_strided(x.shape, x.stride(), x.storage_offset())
    )


def _same_view(r, want, base):
    if isinstance(want, tuple) and want and isinstance(want[0], type):  # an error
        assert r == want
        return
    if isinstance(want, tuple):
        assert isinstance(r, tuple) and len(r) == len(want)
        for u, v in zip(r, want, strict=True):
            _same_view(u, v, base)
        return
    assert type(r) is type(want)
    assert r.shape == want.shape and r.stride() == want.stride() and r.dtype == want.dtype
    assert r.storage_offset() == want.storage_offset() and r.is_conj() == want.is_conj()
    assert vars(r) == vars(want)  # no other state (hooks, output number, ...)
    if want is base:
        assert r is base
        return
    assert r._base is want._base and r._vc is want._vc
    assert r.untyped_storage().data_ptr() == want.untyped_storage().data_ptr()
    assert r._data.tobytes() == want._data.tobytes()


def _fn(module, name):
    return getattr(torch, name) if module == "torch" else (lambda t, *a: getattr(t, name)(*a))


@pytest.mark.parametrize("name,argsets", CALLS, ids=[c[0] for c in CALLS])
def test_fast_call_matches_body(name, argsets):
    for module in MODULES[name]:
        body = binding(name, module).body
        fn = _fn(module, name)
        for x in _inputs():
            for args in argsets:
                base = _fresh(x)
                _same_view(outcome(fn, base, *args), outcome(body, base, *args), base)


TAKEN = [  # (name, args, expected shape of the result or of each piece) on a (2, 3, 4) float32
    ("transpose", (0, 2), (4, 3, 2)), ("swapaxes", (0, 1), (3, 2, 4)), ("swapdims", (1, 2), (2, 4, 3)),
    ("adjoint", (), (2, 4, 3)), ("select", (1, -1), (2, 4)), ("narrow", (2, 1, 2), (2, 3, 2)),
    ("unbind", (1,), [(2, 4)] * 3), ("chunk", (2, 2), [(2, 3, 2)] * 2),
    ("split_with_sizes", ([1, 2], 1), [(2, 1, 4), (2, 2, 4)]),
]  # fmt: skip


@pytest.mark.parametrize("name,args,shape", TAKEN, ids=[c[0] for c in TAKEN])
def test_plain_calls_take_the_fast_route(name, args, shape, monkeypatch):
    def spy(*a):
        raise AssertionError("the body ran")

    x = torch.from_numpy(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))
    for module in ("torch", "Tensor"):
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        # the generated wrapper calls its _body where no fast call is installed
        monkeypatch.setitem(fn.__globals__, "_body", spy)
        r = fn(x, *args)
        assert [t.shape for t in r] == shape if isinstance(shape, list) else r.shape == shape
        for t in r if isinstance(r, tuple) else (r,):
            assert t._base is x and t._vc is x._vc
    for fn in (
        torch.conj,
        torch.resolve_conj,
        torch.real,
        torch.Tensor.conj,
        torch.Tensor.resolve_conj,
    ):
        monkeypatch.setitem(fn.__globals__, "_body", spy)
        assert fn(x) is x


def _recorded():
    return [
        lambda t: torch.transpose(t, 0, 2), lambda t: torch.swapaxes(t, 1, 2), lambda t: t.swapdims(0, 1),
        lambda t: torch.adjoint(t), lambda t: t.select(1, -1), lambda t: torch.narrow(t, 2, 1, 2),
        lambda t: torch.unbind(t, 1)[2], lambda t: torch.cat(t.chunk(2, 2), 0),
        lambda t: torch.cat(torch.split_with_sizes(t, [1, 2], 1), 1), lambda t: torch.conj(t),
        lambda t: torch.resolve_conj(t), lambda t: torch.real(t),
    ]  # fmt: skip


def test_grad_modes_forward_ad_and_subclasses_take_the_body():
    w = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_(True)
    for f in _recorded()[:9]:
        assert f(w).grad_fn is not None
        assert torch.autograd.gradcheck(f, (w,)) and torch.autograd.gradgradcheck(f, (w,))
    for f in _recorded()[9:]:
        assert f(w) is w
    x = torch.arange(24.0).reshape(2, 3, 4)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.transpose(x, 0, 1), torch.swapaxes(x, 0, 1), torch.adjoint(x), x.select(0, 1)
        x.narrow(1, 0, 2), x.unbind(0), x.chunk(2, 0), x.split_with_sizes([1, 2], 1)
    seen = " ".join(logs)
    for op in ("transpose", "select", "slice", "unbind", "split", "split_with_sizes"):
        assert f"aten.{op}." in seen, op
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x.double(), torch.ones(2, 3, 4, dtype=torch.float64))
        for f in _recorded():
            t = fwAD.unpack_dual(f(d)).tangent
            assert t is not None and float(t.sum()) == f(torch.ones(2, 3, 4)).sum().item()

    class Sub(torch.Tensor):
        seen: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = x.as_subclass(Sub)
    assert type(torch.transpose(s, 0, 1)) is Sub and all(type(p) is Sub for p in s.unbind(0))
    assert type(torch.narrow(s, 0, 0, 1)) is Sub and type(torch.conj(s)) is Sub
    assert {"transpose", "unbind", "narrow", "conj"} <= set(Sub.seen)


def test_autocast_region_takes_the_body():
    def spy(*a):
        return "body"

    x = torch.arange(24.0).reshape(2, 3, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert fast_parts._make_swap(spy)(x, 0, 1) == "body"
        assert fast_parts._make_unbind(spy)(x, 0) == "body"
        assert fast_parts._make_itself(spy, fast_parts._real_dtype)(x) == "body"
    assert fast_parts._make_swap(spy)(x, 0, 1).shape == (3, 2, 4)


def test_inference_mode_and_version_counter():
    x = torch.arange(24.0).reshape(2, 3, 4)
    with torch.inference_mode():
        i = torch.arange(6.0).reshape(2, 3)
        assert torch.select(i, 0, 1).is_inference()
    p = torch.narrow(x, 1, 1, 1)
    v = x._version
    p.fill_(-1.0)
    assert x._version > v and np.all(x.numpy()[:, 1] == -1.0)
    pieces = x.unbind(2)
    pieces[3].zero_()
    assert np.all(x.numpy()[..., 3] == 0.0) and x._version > v + 1


def test_diagonal_as_strided_and_expand_geometry_match_body():
    # the written-out geometry of the diagonal, as_strided and expand fast calls (fast_views.py,
    # fast_expand.py) on 2-d, 3-d and 4-d inputs, against their bodies
    x4 = torch.arange(120.0).reshape(2, 3, 4, 5)
    for x in (torch.arange(12.0).reshape(3, 4), torch.arange(24.0).reshape(2, 3, 4), x4):
        n = x.dim()
        for offset in (-3, -1, 0, 1, 2, 4):
            for d1 in range(-n, n):
                for d2 in range(-n, n):
                    base = _fresh(x)
                    args = (offset, d1, d2)
                    _same_view(
                        outcome(torch.diagonal, base, *args),
                        outcome(binding("diagonal").body, base, *args),
                        base,
                    )
    for size, stride, off in [((2, 2), (1, 2), None), (torch.Size([3, 2]), [4, 1], 5), ([2, 3], (0, 1), 0),
                              ((119,), (1,), 1), ((120,), (1,), 1), ((2, 2), (1, 2), -1), ((2, 0), (1, 1), 3)]:  # fmt: skip
        base = _fresh(x4)
        want = outcome(binding("as_strided").body, base, size, stride, off)
        _same_view(outcome(torch.as_strided, base, size, stride, off), want, base)
    y = torch.arange(3.0).reshape(3, 1)
    for size in [
        (3, 4),
        [3, 1],
        (3, -1),
        (-1, 4),
        (2, 3, 4),
        (1, 3, 5),
        (3, 0),
        (4, 4),
        (3, 4.0),
        torch.Size([3, 2]),
    ]:
        base = _fresh(y)
        _same_view(
            outcome(torch.Tensor.expand, base, size),
            outcome(binding("expand", "Tensor").body, base, size),
            base,
        )


def test_cpu_of_a_cpu_tensor_is_itself(monkeypatch):
    x = torch.arange(6.0).reshape(2, 3)
    b = binding("cpu", "Tensor")
    assert b.body(x, None) is x
    assert b.fast[0](x.requires_grad_(True), None) is x
    x.requires_grad_(False)

    def spy(*a):
        raise AssertionError("the body ran")

    monkeypatch.setitem(torch.Tensor.cpu.__globals__, "_body", spy)
    assert x.cpu() is x and torch.zeros(2, dtype=torch.bfloat16).cpu().dtype == torch.bfloat16
    with LoggingTensorMode():
        assert x.cpu() is x
    monkeypatch.undo()
    assert x.cpu(memory_format=torch.contiguous_format) is x  # the body's to_will_alias
    t = x.t()
    assert t.cpu(memory_format=torch.contiguous_format) is b.body(t, torch.contiguous_format)
