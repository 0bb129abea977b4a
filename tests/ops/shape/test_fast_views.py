"""The fast calls of composite view ops (Note [Composite view fast calls]) against their
bodies: the same view (sizes, strides, storage offset, storage, base, version counter, values)
on contiguous, non-contiguous, empty and 0-d inputs; writes through the view reach the base;
a gradient to record or a dispatch mode takes the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _body(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    assert b.fast is not None, "no fast call installed"
    return b.body


def _inputs():
    x = torch.arange(24.0).reshape(2, 3, 4)
    yield x
    yield x.transpose(0, 2)  # non-contiguous
    yield x[:, 1:]  # offset view
    yield torch.arange(6, dtype=torch.int64).reshape(2, 3, 1)
    yield torch.zeros(2, 0, 3)
    yield torch.tensor(5.0)


CALLS = [
    (
        "diagonal",
        lambda t: (),
        [(0, 0, 1), (1, 0, 1), (-1, 1, 2), (0, 2, 0), (2, -1, -3), (0, 1, 1), (0, 5, 0)],
    ),
    ("movedim", None, [(0, -1), (-1, 0), (1, 1), (2, 1), (0, 3), ([0, 1], [1, 0])]),
    ("moveaxis", None, [(0, -1), (2, 0)]),
    ("flatten", None, [(0, -1), (1, 2), (0, 1), (1, 1), (-2, -1), (2, 0), (0, 7)]),
    (
        "unflatten",
        None,
        [(1, (3, 1)), (-1, [2, 2]), (0, (1, 2)), (1, (-1, 1)), (1, (2, 2)), (0, ())],
    ),
    (
        "broadcast_to",
        None,
        [((2, 3, 4),), ([2, 2, 3, 4],), ((-1, 3, 4),), ((4, 3),), (torch.Size([1, 2, 3, 4]),)],
    ),
]


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _same_view(r, want, base):
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.stride() == want.stride()
    assert r.storage_offset() == want.storage_offset() and r.dtype == want.dtype
    if want is base:  # flatten(d, d) returns its input
        assert r is base
        return
    if want._base is None:  # the body copied (flatten of a strided tensor)
        assert r._base is None and r is not base and np.array_equal(r.numpy(), want.numpy())
        return
    assert r.untyped_storage().data_ptr() == want.untyped_storage().data_ptr()
    assert r._base is want._base and r._is_view() == want._is_view()
    assert r._base is (base if base._base is None else base._base)
    assert np.array_equal(r.numpy(), want.numpy())
    v = base._version
    if r.numel():
        r[(0,) * r.dim()] = -7 if r.dim() else -7  # writes reach the base and bump its version
        assert base._version > v
        assert want[(0,) * want.dim()].item() == -7


@pytest.mark.parametrize("name,_,argsets", CALLS, ids=[c[0] for c in CALLS])
def test_fast_call_matches_body(name, _, argsets):
    for module in ("torch", "Tensor"):
        body = _body(module, name)
        fn = (
            getattr(torch, name) if module == "torch" else (lambda t, *a, n=name: getattr(t, n)(*a))
        )
        for x in _inputs():
            for args in argsets:
                base = (
                    x.clone()
                    if x._base is None
                    else x._base.clone().as_strided(x.shape, x.stride(), x.storage_offset())
                )
                r = _outcome(fn, base, *args)
                want = _outcome(body, base, *args)
                _same_view(r, want, base)


def test_expand_as_matches_body():
    body = _body("Tensor", "expand_as")
    for x, o in [
        (torch.zeros(3, 1), torch.zeros(2, 3, 4)),
        (torch.zeros(1), torch.zeros(5)),
        (torch.zeros(3, 1).t(), torch.zeros(2, 4, 3)),
        (torch.zeros(3, 2), torch.zeros(3, 4)),
    ]:
        r, want = _outcome(x.expand_as, o), _outcome(body, x, o)
        _same_view(r, want, x)
    z = torch.zeros(3)
    # a non-tensor: the public entry point's TypeError (Note [Non-tensor arguments]), whichever route
    assert _outcome(z.expand_as, [1, 2, 3]) == (
        TypeError, "expand_as(): argument 'other' (position 1) must be Tensor, not list")


def test_modes_and_grad_take_the_body():
    x = torch.arange(24.0).reshape(2, 3, 4)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        x.diagonal(0, 0, 1), x.movedim(0, -1), x.flatten(), x.unflatten(1, (3, 1))
        x[:, :1].broadcast_to((2, 3, 4))
    seen = " ".join(logs)
    assert all(f"aten.{op}" in seen for op in ("diagonal", "permute", "view", "expand"))
    w = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_(True)
    for f in (
        lambda t: t.diagonal(1, 2, 0),
        lambda t: t.movedim(0, -1),
        lambda t: t.flatten(1),
        lambda t: t.unflatten(2, (2, 2)),
        lambda t: t[:, :1].broadcast_to((2, 3, 4)),
        lambda t: t[:1].expand_as(w),
    ):
        assert f(w).grad_fn is not None
        assert torch.autograd.gradcheck(f, (w,))


def _complex_inputs():
    z = torch.complex(torch.arange(12.0).reshape(3, 4), -torch.arange(12.0).reshape(3, 4))
    yield z
    yield z.to(torch.complex128)
    yield z.t()  # non-contiguous: the kernel
    yield z[1:]  # offset view
    yield z.conj()
    yield torch.tensor(1 + 2j)
    yield torch.zeros(0, 2, dtype=torch.complex64)
    yield torch.arange(4.0)  # not complex: the body's error


KERNEL_CALLS = [
    ("as_strided", [((2, 2), (1, 2)), ([3], [4], 1), ((2, 2), (1, 2), 11), ((2,), (1, 1)), ((2, 2), (-1, 1)),
                    ((2, 0), (1, 1), 40), ((1,), (1,), -1), ((2, 2), (1, 2), 2.0), ((2.0, 2), (1, 2))]),
    ("unfold", [(0, 1, 1), (1, 2, 1), (-1, 3, 2), (2, 4, 3), (0, 3, 1), (1, 0, 1), (1, 2, 0), (3, 1, 1), (1, 2.0, 1)]),
]  # fmt: skip


@pytest.mark.parametrize("name,argsets", KERNEL_CALLS, ids=[c[0] for c in KERNEL_CALLS])
def test_kernel_view_fast_calls_match_body(name, argsets):
    from numtorch.ops.shape import fast_views

    ran = 0
    for module in ("torch", "Tensor"):
        if name == "unfold" and module == "torch":
            continue
        body = _body(module, name)
        fn = getattr(torch, name) if module == "torch" else (lambda t, *a, n=name: getattr(t, n)(*a))
        for x in _inputs():
            for args in argsets:
                base = x.clone() if x._base is None else x._base.clone().as_strided(x.shape, x.stride(),
                                                                                     x.storage_offset())  # fmt: skip
                full = args + (None,) if name == "as_strided" and len(args) == 2 else args
                _same_view(_outcome(fn, base, *args), _outcome(body, base, *full), base)
    # the own-storage route (no kernel call) is taken for a tensor whose array is its storage
    x = torch.from_numpy(np.arange(24.0).reshape(2, 3, 4).copy())

    def boom(*a):
        raise AssertionError("the kernel ran")

    if name == "as_strided":
        r = fast_views._make_as_strided(boom, boom)(x, (2, 2), (1, 2), 3)
        ran += r.stride() == (1, 2) and r.storage_offset() == 3
    else:
        r = fast_views._make_unfold(boom, boom)(x, 2, 2, 1)
        ran += r.shape == (2, 3, 3, 2)
    assert ran


def test_complex_view_fast_calls_match_body():
    from numtorch.ops.shape import fast_views

    for name in ("view_as_real", "imag"):
        body = _body("torch", name)
        for z in _complex_inputs():
            base = z.clone() if z._base is None else z
            r, want = _outcome(getattr(torch, name), base), _outcome(body, base)
            if isinstance(want, tuple) or want._base is None:
                assert (r == want) if isinstance(want, tuple) else np.array_equal(r.numpy(), want.numpy())
            else:
                _same_view(r, want, base if base._base is None else base._base)
        assert fast_views._make_view_as_real(None)(torch.zeros(2, 3, dtype=torch.complex64)).shape == (2, 3, 2)
    body = _body("torch", "view_as_complex")
    for x in [torch.arange(12.0).reshape(3, 2, 2), torch.arange(12.0, dtype=torch.float64).reshape(6, 2),
              torch.arange(12.0).reshape(2, 6)[:, :2], torch.arange(12.0).reshape(6, 2)[1:],
              torch.arange(12.0).reshape(6, 2)[2:], torch.arange(6.0), torch.zeros(3, 2, dtype=torch.float16),
              torch.arange(12).reshape(6, 2), torch.tensor(1.0)]:  # fmt: skip
        base = x.clone() if x._base is None else x
        _same_view(_outcome(torch.view_as_complex, base), _outcome(body, base), base if base._base is None else
                   base._base)  # fmt: skip
    r = fast_views._make_view_as_complex(None, None)(torch.zeros(3, 2))
    assert r.dtype == torch.complex64 and r.shape == (3,)


def test_kernel_view_fast_calls_record_and_modes():
    w = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_(True)
    for f in (lambda t: t.as_strided((2, 2), (1, 2), 1), lambda t: t.unfold(2, 2, 1),
              lambda t: torch.view_as_complex(t[..., :2].contiguous()), lambda t: torch.view_as_real(t * 1j),
              lambda t: torch.imag(t * 1j)):  # fmt: skip
        assert f(w).grad_fn is not None
        assert torch.autograd.gradcheck(lambda t, f=f: f(t).real if f(t).is_complex() else f(t), (w,))
    x = torch.arange(24.0).reshape(2, 3, 4)
    z = torch.zeros(3, dtype=torch.complex64)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        x.as_strided((2, 2), (1, 2)), x.unfold(1, 2, 1), torch.view_as_real(z), torch.imag(z)
        torch.view_as_complex(x[..., :2].contiguous())
    seen = " ".join(logs)
    assert all(f"aten.{op}" in seen for op in ("as_strided", "unfold", "view_as_real", "view_as_complex", "select"))


PLAIN_VIEW_CALLS = [
    ("reshape", "torch", [((4, 6),), ([24],), ((2, -1),), ((5, 5),), ((2, 3, 4),), ((24.0,),), ((),)]),
    ("ravel", "torch", [()]),
    ("ravel", "Tensor", [()]),
    ("squeeze", "torch", [(None,), (0,), (1,), (-1,), (3,), ((0, 1),)]),
    ("squeeze", "Tensor", [(None,), (2,), (-4,)]),
    ("unsqueeze", "torch", [(0,), (3,), (-1,), (-4,), (4,), (-5,), (1.0,)]),
    ("unsqueeze", "Tensor", [(1,), (-2,)]),
    ("permute", "torch", [((2, 0, 1),), ([0, 1, 2],), ((-1, 0, 1),), ((0, 0, 1),), ((0, 1),), ((0, 1, 3),)]),
]  # fmt: skip


@pytest.mark.parametrize("name,module,argsets", PLAIN_VIEW_CALLS, ids=[f"{c[1]}.{c[0]}" for c in PLAIN_VIEW_CALLS])
def test_plain_view_fast_calls_match_body(name, module, argsets):
    body = _body(module, name)
    fn = getattr(torch, name) if module == "torch" else (lambda t, *a, n=name: getattr(t, n)(*a))
    for x in list(_inputs()) + [torch.zeros(2, 1, 3, 1)]:
        for args in argsets:
            base = x.clone() if x._base is None else x._base.clone().as_strided(x.shape, x.stride(), x.storage_offset())
            r, want = _outcome(fn, base, *args), _outcome(body, base, *args)
            if name == "ravel" and not base.is_contiguous():  # a view of a fresh copy: each call its own
                assert r.shape == want.shape and r.stride() == want.stride()
                assert np.array_equal(r.numpy(), want.numpy())
                continue
            _same_view(r, want, base)


def test_view_as_reshape_as_match_body():
    for name in ("view_as", "reshape_as"):
        body = _body("Tensor", name)
        for x in _inputs():
            for o in (torch.zeros(4, 6), torch.zeros(24, dtype=torch.int64), torch.zeros(5), torch.zeros(2, 3, 4)):
                base = x.clone() if x._base is None else x._base.clone().as_strided(x.shape, x.stride(),
                                                                                     x.storage_offset())  # fmt: skip
                _same_view(_outcome(getattr(base, name), o), _outcome(body, base, o), base)


def test_plain_view_fast_calls_take_their_route_and_record():
    from numtorch.ops.shape import fast_views as fv

    def boom(*a):
        raise AssertionError("the body ran")

    x = torch.zeros(2, 1, 3)
    assert fv._make_reshape(boom)(x, (3, 2)).shape == (3, 2)
    assert fv._make_shape_as(boom)(x, torch.zeros(6)).shape == (6,)
    assert fv._make_ravel(boom)(x).shape == (6,)
    assert fv._make_squeeze(boom)(x, None).shape == (2, 3)
    assert fv._make_unsqueeze(boom)(x, 0).shape == (1, 2, 1, 3)
    assert fv._make_permute(boom)(x, (2, 0, 1)).shape == (3, 2, 1)
    w = torch.arange(6.0, dtype=torch.float64).reshape(2, 1, 3).requires_grad_(True)
    for f in (lambda t: torch.reshape(t, (3, 2)), lambda t: t.view_as(torch.zeros(6)), lambda t: torch.ravel(t),
              lambda t: torch.squeeze(t), lambda t: torch.unsqueeze(t, 1), lambda t: torch.permute(t, (2, 0, 1)),
              lambda t: t.reshape_as(torch.zeros(3, 2))):  # fmt: skip
        assert f(w).grad_fn is not None
        assert torch.autograd.gradcheck(f, (w,))
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.reshape(x, (3, 2)), torch.squeeze(x), torch.unsqueeze(x, 0), torch.permute(x, (2, 0, 1))
    seen = " ".join(logs)
    assert all(f"aten.{op}" in seen for op in ("view", "squeeze", "unsqueeze", "permute"))


SPLITS = [("tensor_split", [(3, 0), (2, 1), (4, -1), (1, 0), (5, 0), (0, 0), (2, 3), ((1, 2), 0), (2.0, 0), (True, 0)]),
          ("vsplit", [(2,), (1,), (3,), (0,), ([1],)]), ("hsplit", [(3,), (2,), (1,), (4,), ([1, 2],)]),
          ("dsplit", [(2,), (4,), (3,), ([1],)])]  # fmt: skip


@pytest.mark.parametrize("name,argsets", SPLITS, ids=[c[0] for c in SPLITS])
def test_split_fast_calls_match_body(name, argsets):
    from numtorch.ops.shape import fast_views as fv

    for module in ("torch", "Tensor"):
        body = _body(module, name)
        fn = getattr(torch, name) if module == "torch" else (lambda t, *a, n=name: getattr(t, n)(*a))
        for x in list(_inputs()) + [torch.arange(6.0)]:
            for args in argsets:
                base = x.clone() if x._base is None else x._base.clone().as_strided(x.shape, x.stride(),
                                                                                     x.storage_offset())  # fmt: skip
                r, want = _outcome(fn, base, *args), _outcome(body, base, *args)
                if isinstance(want, tuple) and want and isinstance(want[0], type):
                    assert r == want
                    continue
                assert isinstance(r, tuple) and len(r) == len(want)
                for u, v in zip(r, want, strict=True):
                    _same_view(u, v, base)

    def boom(*a):
        raise AssertionError("the body ran")

    x = torch.zeros(4, 4, 4)
    make = fv._make_tensor_split(boom) if name == "tensor_split" else fv._make_directional_split(boom, *fv._DIRECTIONAL[name])
    assert len(make(x, 2, 0) if name == "tensor_split" else make(x, 2)) == 2
    w = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_(True)
    f = (lambda t: torch.cat(getattr(torch, name)(t, 2, 0) if name == "tensor_split" else getattr(torch, name)(t, 2),
                              -1))  # fmt: skip
    if name != "hsplit":  # hsplit(2) of 3 rows does not divide
        assert torch.autograd.gradcheck(f, (w,))
