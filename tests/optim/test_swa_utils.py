"""swa_utils: AveragedModel (running mean, EMA, use_buffers), SWALR's annealing values, update_bn."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.optim import swa_utils as S


def _snapshots(k):
    return [numtorch.full((2, 2), float(i), dtype=numtorch.float64) for i in range(k)]


def test_averaged_model_is_the_running_mean():
    net = nn.Linear(2, 2, bias=False, dtype=numtorch.float64)
    swa = S.AveragedModel(net)
    for w in _snapshots(5):
        with numtorch.no_grad():
            net.weight.copy_(w)
        swa.update_parameters(net)
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), np.full((2, 2), 2.0))
    assert int(swa.n_averaged) == 5
    assert swa(numtorch.ones(1, 2, dtype=numtorch.float64)).tolist() == [[4.0, 4.0]]


@pytest.mark.parametrize("use_multi", [True, False])
def test_ema_matches_the_recurrence(use_multi):
    net = nn.Linear(2, 2, bias=False, dtype=numtorch.float64)
    kw = {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8)} if use_multi else {"avg_fn": S.get_ema_avg_fn(0.8)}
    ema = S.AveragedModel(net, **kw)
    want = None
    for w in _snapshots(4):
        with numtorch.no_grad():
            net.weight.copy_(w)
        ema.update_parameters(net)
        want = w.numpy() if want is None else 0.8 * want + 0.2 * w.numpy()
    np.testing.assert_allclose(ema.module.weight.detach().numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="Invalid decay value 1.5"):
        S.get_ema_avg_fn(1.5)


def test_buffers_are_copied_or_averaged():
    net = nn.BatchNorm1d(2, dtype=numtorch.float64)
    plain, averaged = S.AveragedModel(net), S.AveragedModel(net, use_buffers=True)
    for mean in (1.0, 3.0):
        net.running_mean.fill_(mean)
        plain.update_parameters(net), averaged.update_parameters(net)
    assert plain.module.running_mean.tolist() == [3.0, 3.0]
    assert averaged.module.running_mean.tolist() == [2.0, 2.0]


def test_swalr_cosine_annealing_values():
    p = nn.Parameter(numtorch.ones(1))
    opt = numtorch.optim.SGD([p], lr=1.0)
    sched = S.SWALR(opt, swa_lr=0.1, anneal_epochs=4)
    got = []
    for _ in range(6):
        opt.step()
        sched.step()
        got.append(opt.param_groups[0]["lr"])
    # lr_t = swa_lr * a(t) + lr_0 * (1 - a(t)) with a the cosine ramp, reached after 4 steps
    alpha = [(1 - math.cos(math.pi * min(1, t / 4))) / 2 for t in range(1, 7)]
    np.testing.assert_allclose(got, [0.1 * a + 1.0 * (1 - a) for a in alpha], rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        S.SWALR(opt, 0.1, anneal_strategy="exp")


def test_update_bn_recomputes_statistics():
    net = nn.Sequential(nn.Linear(2, 2, dtype=numtorch.float64), nn.BatchNorm1d(2, dtype=numtorch.float64))
    data = [numtorch.randn(8, 2, dtype=numtorch.float64) for _ in range(3)]
    net.eval()
    S.update_bn(((x, 0) for x in data), net)
    h = numtorch.cat([net[0](x) for x in data]).detach().numpy()
    np.testing.assert_allclose(net[1].running_mean.numpy(), h.mean(0), rtol=1e-10)
    assert not net.training and net[1].momentum == 0.1
