"""Note [QR's arrays in one pass]: a real float32/float64 linalg.qr gives the arrays of
np.linalg.qr's gufuncs, triangle and casts as before (bit for bit, C-ordered), in every mode,
batched and not, for non-contiguous and non-finite input; complex and empty inputs keep the old
route."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import _np_lapack as NL
from numtorch.ops.linalg import qr as QR


def _old(a, mode):
    # the route before: np.linalg.qr's arrays (triu's where, casts back), C-ordered copies
    q, r = NL.qr(a, mode == "complete")
    if mode == "r":
        q = np.empty((0,), a.dtype)
    return np.ascontiguousarray(q, a.dtype), np.ascontiguousarray(r, a.dtype)


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e))


def _shapes():
    return [(3, 2), (2, 3), (3, 3), (1, 1), (2, 3, 2), (2, 2, 4), (4, 1, 5, 3), (6, 1), (1, 6)]


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = QR._qr_real

    def counted(a, mode):
        calls.append(mode)
        return real(a, mode)

    monkeypatch.setattr(QR, "_qr_real", counted)
    return calls


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_real_qr_is_the_old_routes_arrays_bit_for_bit(dt, mode, spy):
    rng = np.random.default_rng(18)
    for shape in _shapes():
        a = (rng.standard_normal(shape) * 10).astype(dt)
        for x in (
            a,
            np.swapaxes(np.swapaxes(a, -1, -2).copy(), -1, -2),
        ):  # C and transposed layouts
            n = len(spy)
            t = (
                torch.tensor(x)
                if x.flags.c_contiguous
                else torch.tensor(np.swapaxes(x, -1, -2).copy()).mT
            )
            q, r = torch.linalg.qr(t, mode)
            assert len(spy) == n + 1
            wq, wr = _old(x, mode)
            for got, want in ((q, wq), (r, wr)):
                g = got.numpy()
                assert g.dtype == want.dtype and g.shape == want.shape and g.flags.c_contiguous
                assert g.tobytes() == want.tobytes()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_non_finite_and_special_inputs_match_the_old_route(dt, spy):
    cases = [
        np.array([[np.nan, 1.0], [2.0, 3.0]]),
        np.array([[np.inf, 1.0], [2.0, -np.inf], [0.0, 1.0]]),
        np.array([[0.0, -0.0], [-0.0, 0.0]]),
        np.array([[1e300, 1.0], [1.0, 1e-300]]),
        np.zeros((3, 2)),
    ]
    for c in cases:
        with np.errstate(over="ignore"):
            a = c.astype(dt)
        for mode in ("reduced", "complete", "r"):
            got = _outcome(
                lambda a=a, mode=mode: tuple(
                    t.numpy() for t in torch.linalg.qr(torch.tensor(a), mode)
                )
            )
            want = _outcome(lambda a=a, mode=mode: _old(a, mode))
            if isinstance(want, tuple) and isinstance(want[0], type):
                assert isinstance(got[0], type) and got[1] == want[1]
            else:
                assert all(
                    g.tobytes() == w.tobytes() and g.shape == w.shape
                    for g, w in zip(got, want, strict=True)
                )
    assert spy


def test_complex_and_empty_keep_the_old_route(spy):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    q, r = torch.linalg.qr(torch.tensor(a))
    wq, wr = _old(a, "reduced")
    assert q.numpy().tobytes() == wq.tobytes() and r.numpy().tobytes() == wr.tobytes()
    q, r = torch.linalg.qr(torch.zeros(0, 3))
    assert q.shape == (0, 0) and r.shape == (0, 3)
    assert spy == []


def test_qr_under_grad_and_values():
    a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    q, r = torch.linalg.qr(a)
    np.testing.assert_allclose((q @ r).detach().numpy(), a.detach().numpy(), atol=1e-12)
    assert torch.autograd.gradcheck(lambda x: torch.linalg.qr(x), (a,))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        torch.linalg.qr(torch.ones(3))
    with pytest.raises(RuntimeError, match="unrecognized mode 'x'"):
        torch.linalg.qr(torch.ones(3, 3), "x")
