"""Note [Loss binding fast calls], session 17: a reduced F.nll_loss / F.cross_entropy fast call
makes nll_loss_checked and total in one kernel call (nll_total), and cross_entropy takes the
log_softmax of Note [Softmax plans]; the bits are the body's, all-ignored targets (NaN mean)
and out-of-range targets (the body's error) included."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import loss_fast, softmax_fast


def _body(name):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == name]
    extra = (0.0,) if name == "cross_entropy" else ()
    return lambda x, t, reduction: b.body(x, t, None, None, -100, None, reduction, *extra)


def _outcome(fn, *a, **k):
    try:
        r = fn(*a, **k)
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return r.dtype, r.shape, r.stride(), r.numpy().tobytes()


@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_one_kernel_call_gives_the_bodys_bits(name, dtype, reduction, monkeypatch):
    names, plans = [], []
    real, real_plan = loss_fast.call, softmax_fast.softmax_plain
    monkeypatch.setattr(loss_fast, "call", lambda mod, n, args: names.append(n) or real(mod, n, args))
    monkeypatch.setattr(softmax_fast, "softmax_plain", lambda *a: plans.append(real_plan(*a)) or plans[-1])
    rng = np.random.default_rng(2)
    fn, body = getattr(F, name), _body(name)
    # 3 * 700 positions: total's blocks of 256 and its vectorised loop
    for shape, tshape in (((2, 3, 2, 2), (2, 2, 2)), ((5, 4), (5,)), ((3, 5, 700, 1), (3, 700, 1))):
        x = torch.from_numpy(rng.standard_normal(shape) * 3).to(dtype)
        for t in (rng.integers(0, shape[1], tshape), np.full(tshape, -100), rng.integers(-1, shape[1] + 1, tshape)):
            t = torch.from_numpy(t.astype(np.int64))
            for _ in range(3):  # the first calls plan
                names.clear()
                plans.clear()
                got = _outcome(fn, x, t, reduction=reduction)
                assert got == _outcome(body, x, t, reduction=reduction)
            if isinstance(got[0], type):
                continue
            want = ["nll_loss_checked"] if reduction == "none" else ["nll_loss_checked_total"]
            assert names == want
            if name == "cross_entropy" and x.numel() <= 128:  # the tiny route of Note [Softmax plans]
                assert plans and plans[-1] is not None
