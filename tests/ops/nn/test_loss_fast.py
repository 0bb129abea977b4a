"""F.nll_loss / F.cross_entropy binding fast calls (Note [Loss binding fast calls]) against
their bodies: the same bits, dtype and shape, or the same error; weights, label smoothing, legacy
reduction arguments, other ranks and dtypes, gradients and modes take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import loss_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _case(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    tshape = (shape[0],) + shape[2:]
    t = rng.integers(0, shape[1], tshape)
    return torch.from_numpy(x), torch.from_numpy(t)


CASES = [
    ((2, 3, 2, 2), "mean", -100),
    ((2, 3, 2, 2), "sum", -100),
    ((2, 3, 2, 2), "none", -100),
    ((4, 5), "mean", -100),
    ((4, 5), "none", 1),
    ((4, 5), "sum", 2),
    ((3, 4, 1, 5), "mean", 0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("shape,reduction,ignore", CASES)
def test_fast_calls_match_the_bodies(dtype, name, shape, reduction, ignore):
    x, t = _case(shape, dtype)
    fn = getattr(F, name)
    body = binding(name, "torch.nn.functional").body
    tail = (0.0,) if name == "cross_entropy" else ()
    for tt in (t, t.clone().fill_(ignore) if ignore >= 0 else t.masked_fill(t == 0, ignore)):
        n = loss_fast.COUNT[0]
        r = fn(x, tt, reduction=reduction, ignore_index=ignore)
        assert loss_fast.COUNT[0] == n + 1
        same(r, body(x, tt, None, None, ignore, None, reduction, *tail))


@pytest.mark.parametrize(
    "call",
    [
        lambda x, t: F.nll_loss(x, t + 3),
        lambda x, t: F.nll_loss(x, t - 1),
        lambda x, t: F.cross_entropy(x, t * 5),
        lambda x, t: F.nll_loss(x, t[:1]),
        lambda x, t: F.nll_loss(x, t.to(torch.uint8)),
        lambda x, t: F.nll_loss(x[0], t[0]),
        lambda x, t: F.nll_loss(x.to(torch.int64), t),
        lambda x, t: F.cross_entropy(x, t, reduction="avg"),
        lambda x, t: F.nll_loss(x, t, ignore_index=1 << 70),
        lambda x, t: F.nll_loss(x, t.transpose(1, 2)),
        lambda x, t: F.cross_entropy(x.transpose(2, 3), t),
        lambda x, t: F.nll_loss(x[:0], t[:0]),
    ],
)
def test_errors_and_other_inputs_are_the_bodies(call):
    x, t = _case((2, 3, 2, 2), np.float32)
    r = outcome(call, x, t)
    with LoggingTensorMode():  # the bodies alone: the fast calls decline under a mode
        want = outcome(call, x, t)
    if isinstance(r, tuple):
        assert r == want
    else:
        same(r, want)


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
def test_other_arguments_grad_and_modes_take_the_body():
    x, t = _case((2, 3, 2, 2), np.float32)
    w = torch.ones(3)
    n = loss_fast.COUNT[0]
    F.nll_loss(x, t, w), F.cross_entropy(x, t, label_smoothing=0.1), F.nll_loss(x, t, size_average=False)
    F.cross_entropy(x, t, reduce=False), F.cross_entropy(x, x.softmax(1)), F.nll_loss(x[:, :, 0], t[:, 0])
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        F.nll_loss(x, t), F.cross_entropy(x, t)
    assert "nll_loss2d_forward" in " ".join(logs) and "_log_softmax" in " ".join(logs)
    xg = x.double().requires_grad_(True)
    assert F.nll_loss(xg, t).grad_fn is not None and F.cross_entropy(xg, t).grad_fn is not None
    assert torch.autograd.gradcheck(lambda v: F.cross_entropy(v, t), (xg,))
    assert loss_fast.COUNT[0] == n
    with torch.inference_mode():
        assert F.nll_loss(x, t).is_inference()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_bce_range_check_is_numpys(dtype, monkeypatch):
    from numtorch.ops.nn import loss_pointwise as LP

    seen = []
    real = LP.call
    monkeypatch.setattr(LP, "call", lambda m, n, a: seen.append(n) or real(m, n, a))
    rng = np.random.default_rng(3)
    base = rng.random((3, 4)).astype(dtype)
    for bad in (None, -1e-7, 1.0000001, np.nan, -0.0, 1.0, 0.0, np.inf):
        a = base.copy()
        if bad is not None:
            a[2, 3] = bad
        want = bool(np.all(a >= 0) and np.all(a <= 1))
        assert LP._unit(a) is want
        assert LP._unit(a.T) is want  # strided: NumPy's comparisons
        x, t = torch.from_numpy(a), torch.from_numpy(base)
        r = outcome(F.binary_cross_entropy, x, t)
        if want:
            assert not isinstance(r, tuple)
        else:
            assert r == (RuntimeError, "all elements of input should be between 0 and 1")
            assert outcome(F.binary_cross_entropy, t, x) == (RuntimeError, "all elements of target should be between 0 and 1")
    assert ("in_unit_range" in seen) is (dtype is not np.float16)
    assert LP._unit(base[:0])
