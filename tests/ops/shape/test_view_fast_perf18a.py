"""perf18a's shorter steps in the unsqueeze and view_as_real fast calls: the first/last dim's
shape as one tuple and _contig written out (unsqueeze), the complex pairs made once and
_complex_plain written out (view_as_real). Both routes give the body's view (shape, strides,
offset, storage, base, version counter, values) or its error, for every dtype; the fast route
is taken where it should be and not under a gradient to record."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import fast_views as fv

from .._fastcall import binding
from .._fastcall import outcome as _outcome
from .._fastcall import same_view as _same


def _body(module, name):
    return binding(name, module).body


DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.bool,
    torch.int8,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.uint32,
    torch.complex64,
    torch.complex128,
]


def _inputs(dt):
    yield torch.zeros(2, 3, 4, dtype=dt)
    yield torch.zeros(2, 3, 4, dtype=dt).transpose(0, 2)  # not contiguous: the kernel's strides
    yield torch.zeros(4, 3, dtype=dt)[1:]  # an offset view
    yield torch.zeros(2, 1, 3, dtype=dt)
    yield torch.zeros((), dtype=dt)
    yield torch.zeros(0, 3, dtype=dt)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_unsqueeze_matches_body(dt):
    body = _body("torch", "unsqueeze")
    for x in _inputs(dt):
        for d in range(-x.dim() - 2, x.dim() + 2):
            _same(_outcome(torch.unsqueeze, x, d), _outcome(body, x, d), x)
            _same(_outcome(x.unsqueeze, d), _outcome(body, x, d), x)


def test_unsqueeze_fast_route_at_every_dim():
    def boom(*a):
        raise AssertionError("the body ran")

    fast = fv._make_unsqueeze(boom)
    x = torch.arange(6.0).reshape(2, 3)
    for d, stride in [
        (0, (6, 3, 1)),
        (-3, (6, 3, 1)),
        (1, (3, 3, 1)),
        (-2, (3, 3, 1)),
        (2, (3, 1, 1)),
        (-1, (3, 1, 1)),
    ]:
        r = fast(x, d)
        assert (
            r.stride() == stride
            and r._base is x._base
            and np.array_equal(r.numpy().squeeze(d), x.numpy())
        )
    assert fast(torch.tensor(2.0), 0).stride() == (1,) and fast(torch.tensor(2.0), -1).shape == (1,)
    w = x.detach().requires_grad_(True)
    assert w.unsqueeze(0).grad_fn is not None  # a gradient to record: the body


def _complex_inputs():
    for dt in (torch.complex64, torch.complex128):
        z = torch.complex(torch.arange(12.0).reshape(3, 4), -torch.arange(12.0).reshape(3, 4)).to(
            dt
        )
        yield z
        yield z.clone()
        yield z[1:]  # offset
        yield z.t()  # not contiguous: the kernel's error
        yield z.conj()  # a conjugate view: the body's error
        yield z[0, 0].clone()  # 0-d: the body's error
        yield torch.zeros(0, 2, dtype=dt)
    yield torch.zeros(3)  # real: the body's error
    yield torch.zeros(3, dtype=torch.int64)


def test_view_as_real_matches_body():
    body = _body("torch", "view_as_real")
    for z in _complex_inputs():
        r, want = _outcome(torch.view_as_real, z), _outcome(body, z)
        if isinstance(want, tuple) or want._base is None:
            assert r == want if isinstance(want, tuple) else np.array_equal(r.numpy(), want.numpy())
        else:
            _same(r, want, z)


def test_view_as_real_fast_route():
    def boom(*a):
        raise AssertionError("the body ran")

    fast = fv._make_view_as_real(boom)
    for dt, rt in ((torch.complex64, torch.float32), (torch.complex128, torch.float64)):
        z = torch.tensor([[1 + 2j, 3 - 4j]], dtype=dt)
        r = fast(z)
        assert r.dtype == rt and r.shape == (1, 2, 2) and r.stride() == (4, 2, 1) and r._base is z
        assert r.tolist() == [[[1.0, 2.0], [3.0, -4.0]]]
        r[0, 0, 0] = 7.0  # writes reach the complex storage and bump its version
        assert z[0, 0].item() == 7 + 2j and z._version == 1
    w = torch.zeros(2, dtype=torch.complex128, requires_grad=True)
    assert torch.view_as_real(w).grad_fn is not None
