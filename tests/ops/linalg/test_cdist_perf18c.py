"""Note [Short-row cdist]: points with one or two coordinates take one kernel for the 2-norm and
the 1-norm, bit for bit the body's (sub, then the norm fold), at any size and in both the serial
and the threaded kernel; other shapes, p and batches take the two steps or the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.kernels import PARALLEL_THRESHOLD
from numtorch.ops.linalg import _fast_cdist as FC

from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same

_SPECIAL = [0.0, -0.0, 1e-30, -1e-30, 3e38, -3e38, np.inf, -np.inf, np.nan, 1.5, -2.25]


def _pts(rng, shape, dtype, special=False):
    a = rng.standard_normal(shape) * 3
    if special:
        flat = a.reshape(-1)
        flat[: len(_SPECIAL)] = _SPECIAL[: flat.size]
        rng.shuffle(flat)
    return torch.tensor(a.astype(dtype))


def _cases(rng, dtype):
    for m in (1, 2):
        yield _pts(rng, (5, m), dtype), _pts(rng, (4, m), dtype)
        yield (
            _pts(rng, (2, 3, m), dtype),
            _pts(rng, (1, 2, m), dtype),
        )  # the sweep's batch broadcast
        yield _pts(rng, (1, 3, m), dtype), _pts(rng, (4, 2, m), dtype)
        yield _pts(rng, (2, 3, 3, m), dtype), _pts(rng, (2, 3, 2, m), dtype)
        yield (
            _pts(rng, (3, 1, 4, m), dtype),
            _pts(rng, (1, 2, m), dtype),
        )  # a batch of one broadcast to (3, 1)
        yield _pts(rng, (7, m), dtype, True), _pts(rng, (6, m), dtype, True)  # inf, nan, -0, tiny
        yield _pts(rng, (m, 6), dtype).t(), _pts(rng, (3, m), dtype)  # non-contiguous
        yield _pts(rng, (1, m), dtype), _pts(rng, (1, m), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("p", [2.0, 1.0, 2, 1])
def test_short_rows_take_the_kernel_and_give_the_bodys_bits(dtype, p):
    b = _binding("cdist")
    rng = np.random.default_rng(18)
    for x1, x2 in _cases(rng, dtype):
        want = b.body(x1, x2, p, "use_mm_for_euclid_dist_if_necessary")
        before = FC.COUNT[0]
        got = torch.cdist(x1, x2, p)
        assert FC.COUNT[0] == before + 1
        _same(got, want)
        with torch.enable_grad():  # the recorded route computes the same forward values
            r = torch.cdist(x1.clone().requires_grad_(True), x2, p)
        assert r.grad_fn is not None
        _same(r.detach(), want)


def test_one_coordinate_is_the_magnitude_not_a_rounded_root():
    x1 = torch.tensor([[1e-30], [0.0]])
    x2 = torch.tensor([[0.0], [-3e38]])
    got = torch.cdist(x1, x2)
    assert got.numpy().tolist() == np.abs(x1.numpy() - x2.numpy().T).tolist()
    assert got[0, 0].item() == np.float32(1e-30)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threaded_kernel_past_the_threshold_is_the_bodys(dtype):
    b = _binding("cdist")
    rng = np.random.default_rng(3)
    n = PARALLEL_THRESHOLD // 6 + 5  # (n, 3) against (1, 2): 6n results, past the threshold
    x1, x2 = _pts(rng, (n, 3, 2), dtype), _pts(rng, (1, 2, 2), dtype)
    before = FC.COUNT[0]
    got = torch.cdist(x1, x2)
    assert FC.COUNT[0] == before + 1
    _same(got, b.body(x1, x2, 2.0, None))
    serial = np.empty((n, 3, 2), dtype)
    FC._K.short_rows(x1.numpy(), x2.numpy(), serial, False)
    assert serial.tobytes() == got.numpy().tobytes()


def test_other_rows_p_and_batches_take_the_two_steps_or_the_body():
    b = _binding("cdist")
    rng = np.random.default_rng(5)
    cases = [
        (_pts(rng, (4, 3), np.float32), _pts(rng, (5, 3), np.float32), 2.0),  # three coordinates
        (_pts(rng, (4, 2), np.float32), _pts(rng, (5, 2), np.float32), 3.0),
        (_pts(rng, (4, 2), np.float64), _pts(rng, (5, 2), np.float64), 0.0),
        (_pts(rng, (4, 2), np.float64), _pts(rng, (5, 2), np.float64), float("inf")),
        (
            _pts(rng, (2, 1, 4, 2), np.float32),
            _pts(rng, (1, 3, 5, 2), np.float32),
            2.0,
        ),  # both broadcast
        (
            _pts(rng, (3, 4, 2), np.float32),
            _pts(rng, (2, 5, 2), np.float32),
            2.0,
        ),  # no broadcast: error
        (_pts(rng, (4, 2), np.float32), _pts(rng, (5, 2), np.float64), 2.0),  # mixed dtypes: error
        (_pts(rng, (0, 2), np.float32), _pts(rng, (5, 2), np.float32), 2.0),
    ]
    for x1, x2, p in cases:
        before = FC.COUNT[0]
        _same(_outcome(torch.cdist, x1, x2, p), _outcome(b.body, x1, x2, p, None))
        assert FC.COUNT[0] == before
    half = torch.ones(2, 2, dtype=torch.float16)
    _same(_outcome(torch.cdist, half, half), _outcome(b.body, half, half, 2.0, None))


def test_kernel_values_agree_with_numpy():
    rng = np.random.default_rng(7)
    for m in (1, 2):
        a = rng.standard_normal((3, 6, m))
        c = rng.standard_normal((1, 4, m))
        d = a[:, :, None, :] - c[:, None, :, :]
        for p in (1.0, 2.0):
            got = torch.cdist(torch.tensor(a), torch.tensor(c), p).numpy()
            np.testing.assert_allclose(got, np.linalg.norm(d, ord=p, axis=-1), rtol=1e-14)


def test_no_kernel_route_while_a_kernel_is_registered_over_an_aten_op():
    # Note [Fast calls under kernel overrides]: the binding runs its body while any is live
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("linalg_vector_norm", lambda *a, **k: seen.append(1) or torch.zeros(3, 4), "CPU")
        before = FC.COUNT[0]
        r = torch.cdist(torch.ones(3, 2), torch.zeros(4, 2))
        assert FC.COUNT[0] == before
    finally:
        lib._destroy()
    assert r.shape == (3, 4)
    before = FC.COUNT[0]
    assert torch.cdist(torch.zeros(1, 2), torch.tensor([[3.0, 4.0]])).item() == 5.0
    assert FC.COUNT[0] == before + 1
