"""Note [np.linalg without its wrappers]: the direct gufunc calls give np.linalg's arrays bit for
bit (values, dtype, shape, strides) and its errors, over dtypes, batches and layouts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import _np_lapack as NL

_DTS = [np.float32, np.float64, np.complex64, np.complex128]


def _mat(rng, shape, dt):
    a = rng.standard_normal(shape) + (
        1j * rng.standard_normal(shape) if np.dtype(dt).kind == "c" else 0
    )
    return a.astype(dt)


def _layouts(a):
    yield a
    yield np.swapaxes(np.swapaxes(a, -1, -2).copy(), -1, -2)


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
        return
    assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
    assert got.tobytes() == want.tobytes()


def _outcome(fn, *a, **k):
    with np.errstate(all="ignore"):
        try:
            r = fn(*a, **k)
        except np.linalg.LinAlgError as e:
            return str(e)
    return tuple(r) if isinstance(r, tuple) else r


def _compare(got, want):
    if isinstance(want, str):
        assert got == want
    else:
        _same(got, want)


@pytest.mark.parametrize("dt", _DTS)
def test_cholesky(dt):
    rng = np.random.default_rng(9)
    for shape in ((3, 3), (4, 2, 2), (1, 5, 5), (0, 2, 2)):
        m = _mat(rng, shape, dt)
        a = (m @ np.swapaxes(m.conj(), -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)
        for x in (*_layouts(a), -np.eye(3, dtype=dt), np.full((2, 2), np.nan, dt)):
            _compare(_outcome(NL.cholesky, x), _outcome(np.linalg.cholesky, x))


@pytest.mark.parametrize("dt", _DTS)
def test_qr(dt):
    rng = np.random.default_rng(10)
    for shape in ((3, 3), (2, 3, 2), (2, 4), (5, 2), (1, 1), (2, 1, 4, 3)):
        a = _mat(rng, shape, dt)
        if shape == (5, 2):
            a[0, 1] = np.nan
        for x in _layouts(a):
            for complete in (False, True):
                want = _outcome(np.linalg.qr, x, mode="complete" if complete else "reduced")
                _compare(_outcome(NL.qr, x, complete), want)


@pytest.mark.parametrize("dt", _DTS)
def test_svd(dt):
    rng = np.random.default_rng(11)
    for shape in ((3, 3), (2, 3, 2), (2, 4), (5, 2), (0, 3, 3)):
        a = _mat(rng, shape, dt)
        for x in (*_layouts(a), np.full((2, 2), np.inf, dt)):
            for full in (False, True):
                _compare(
                    _outcome(NL.svd, x, full_matrices=full),
                    _outcome(np.linalg.svd, x, full_matrices=full),
                )
            _compare(
                _outcome(NL.svd, x, compute_uv=False), _outcome(np.linalg.svd, x, compute_uv=False)
            )
    h = _mat(rng, (3, 3), dt)
    h = h + h.conj().T
    _compare(_outcome(NL.svd, h, hermitian=True), _outcome(np.linalg.svd, h, hermitian=True))


@pytest.mark.parametrize("dt", _DTS)
def test_eigh(dt):
    rng = np.random.default_rng(12)
    for shape in ((3, 3), (2, 4, 4), (1, 1)):
        a = _mat(rng, shape, dt)
        for x in (*_layouts(a), np.full((2, 2), np.nan, dt)):
            for uplo in ("L", "U"):
                _compare(_outcome(NL.eigh, x, uplo), _outcome(np.linalg.eigh, x, UPLO=uplo))


def test_ops_keep_their_errors():
    with pytest.raises(
        torch.linalg.LinAlgError, match="leading minor of order 1 is not positive-definite"
    ):
        torch.linalg.cholesky(-torch.eye(3))
    with pytest.raises(
        torch.linalg.LinAlgError, match="linalg.svd: The algorithm failed to converge"
    ):
        torch.linalg.svd(torch.full((2, 2), float("nan")))


def test_ops_take_the_direct_calls(monkeypatch):
    def spy(*a, **k):
        raise AssertionError("np.linalg ran")

    for name in ("cholesky", "qr", "svd", "eigh", "solve"):
        monkeypatch.setattr(NL.np.linalg, name, spy)
    x = torch.tensor([[4.0, 1.0], [1.0, 3.0]])
    (
        torch.linalg.cholesky(x),
        torch.linalg.qr(x),
        torch.linalg.svd(x),
        torch.linalg.eigh(x),
        torch.linalg.svdvals(x),
    )
    (
        torch.linalg.eigvalsh(x),
        torch.linalg.solve(x, torch.ones(2)),
        torch.linalg.solve(x.expand(3, 2, 2), torch.ones(2, 1)),
    )


@pytest.mark.parametrize("dt", _DTS)
def test_solve(dt):
    rng = np.random.default_rng(13)
    for sa, sb in (
        ((3, 3), (3, 2)),
        ((2, 3, 3), (2, 3, 1)),
        ((2, 1, 2, 2), (3, 2, 4)),
        ((4, 4), (2, 4, 3)),
    ):
        a, b = _mat(rng, sa, dt), _mat(rng, sb, dt)
        for x in _layouts(a):
            _compare(_outcome(NL.solve, x, b), _outcome(np.linalg.solve, x, b))
    z = np.zeros((2, 2), dt)
    _compare(
        _outcome(NL.solve, z, np.ones((2, 1), dt)),
        _outcome(np.linalg.solve, z, np.ones((2, 1), dt)),
    )
    with pytest.raises(
        torch.linalg.LinAlgError, match="The solver failed because the input matrix is singular"
    ):
        torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))


def test_lstsq_takes_the_state_once(monkeypatch):
    calls = []
    real = NL.lstsq_batch
    monkeypatch.setattr(NL, "lstsq_batch", lambda *a: calls.append(a) or real(*a))
    a = np.random.default_rng(14).standard_normal((2, 4, 3))
    b = np.random.default_rng(15).standard_normal((2, 4, 2))
    x = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b)).solution
    assert len(calls) == 1
    for i in range(2):
        assert x[i].numpy().tobytes() == np.linalg.lstsq(a[i], b[i], rcond=None)[0].tobytes()
