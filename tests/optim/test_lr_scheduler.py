"""optim.lr_scheduler: per-step learning rates against closed forms, state dicts, warnings."""

from __future__ import annotations

import math
import warnings

import pytest

import numtorch
from numtorch import nn
from numtorch.optim import lr_scheduler as S


def _opt(lr=1.0, cls=numtorch.optim.SGD, **kw):
    p = nn.Parameter(numtorch.ones(1))
    p.grad = numtorch.zeros(1)
    return cls([p], lr=lr, **kw)


def _lrs(sched, steps, metric=None):
    out = [sched.get_last_lr()[0]]
    for i in range(steps):
        sched.optimizer.step()
        sched.step() if metric is None else sched.step(metric(i))
        out.append(sched.get_last_lr()[0])
    return out


def test_step_lr():
    assert _lrs(S.StepLR(_opt(), step_size=2, gamma=0.5), 5) == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]


def test_multistep_lr():
    got = _lrs(S.MultiStepLR(_opt(), milestones=[1, 3, 3], gamma=0.1), 4)
    assert got == pytest.approx([1.0, 0.1, 0.1, 0.001, 0.001])


def test_exponential_lr():
    assert _lrs(S.ExponentialLR(_opt(2.0), gamma=0.5), 3) == [2.0, 1.0, 0.5, 0.25]


def test_cosine_annealing_matches_closed_form():
    got = _lrs(S.CosineAnnealingLR(_opt(), T_max=4, eta_min=0.1), 8)
    want = [0.1 + 0.9 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(9)]
    assert got == pytest.approx(want, abs=1e-12)


def test_lambda_and_multiplicative_lr():
    assert _lrs(S.LambdaLR(_opt(), lambda e: 1.0 / (e + 1)), 3) == pytest.approx(
        [1, 1 / 2, 1 / 3, 1 / 4]
    )
    assert _lrs(S.MultiplicativeLR(_opt(), lambda e: 0.5), 2) == [1.0, 0.5, 0.25]
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        S.LambdaLR(_opt(), [lambda e: 1, lambda e: 1])


def test_linear_constant_and_polynomial_lr():
    assert _lrs(S.LinearLR(_opt(), start_factor=0.5, total_iters=2), 3) == pytest.approx(
        [0.5, 0.75, 1.0, 1.0]
    )
    assert _lrs(S.ConstantLR(_opt(), factor=0.5, total_iters=2), 3) == pytest.approx(
        [0.5, 0.5, 1.0, 1.0]
    )
    assert _lrs(S.PolynomialLR(_opt(), total_iters=4, power=1.0), 5) == pytest.approx(
        [1, 0.75, 0.5, 0.25, 0, 0]
    )
    with pytest.raises(
        ValueError, match="Constant multiplicative factor expected to be between 0 and 1."
    ):
        S.ConstantLR(_opt(), factor=2.0)


def test_sequential_lr():
    opt = _opt()
    sched = S.SequentialLR(
        opt,
        [S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, gamma=0.5)],
        milestones=[2],
    )
    assert _lrs(sched, 4) == pytest.approx([0.1, 0.1, 1.0, 0.5, 0.25])
    with pytest.raises(
        ValueError,
        match="Sequential Schedulers expects number of schedulers provided to be one more",
    ):
        S.SequentialLR(opt, [S.ExponentialLR(opt, gamma=0.5)], milestones=[1])


def test_chained_scheduler():
    opt = _opt()
    sched = S.ChainedScheduler(
        [S.ExponentialLR(opt, gamma=0.5), S.StepLR(opt, step_size=2, gamma=0.1)]
    )
    assert _lrs(sched, 2)[1:] == pytest.approx([0.5, 0.025])


def test_one_cycle_lr_phases_and_momentum():
    opt = _opt(cls=numtorch.optim.SGD, momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3)
    lrs = _lrs(sched, 9)
    assert lrs[0] == pytest.approx(1.0 / 25)
    assert max(lrs) == pytest.approx(1.0) and lrs.index(max(lrs)) == 2
    assert lrs[-1] == pytest.approx(1.0 / 25 / 1e4)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)
    with pytest.raises(
        ValueError, match="^Tried to step 11 times. The specified number of total steps is 10$"
    ):
        sched.step()
        sched.step()
    adam = _opt(cls=numtorch.optim.Adam)
    S.OneCycleLR(adam, max_lr=0.1, total_steps=4)
    assert adam.param_groups[0]["betas"] == (0.95, 0.999)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        S.OneCycleLR(_opt(), max_lr=1.0)


def test_reduce_lr_on_plateau():
    opt = _opt()
    sched = S.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1)
    metrics = [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5]
    got = _lrs(sched, len(metrics), metric=lambda i: metrics[i])
    assert got == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="^mode maxi is unknown!$"):
        S.ReduceLROnPlateau(opt, mode="maxi")


def test_cosine_warm_restarts():
    got = _lrs(S.CosineAnnealingWarmRestarts(_opt(), T_0=2, T_mult=2), 6)
    want = [
        1.0,
        0.5,
        1.0,
        0.5 + 0.5 * math.cos(math.pi / 4),
        0.5,
        0.5 + 0.5 * math.cos(3 * math.pi / 4),
        1.0,
    ]
    assert got == pytest.approx(want)


def test_state_dict_round_trip():
    s1 = S.StepLR(_opt(), step_size=2, gamma=0.5)
    _lrs(s1, 3)
    s2 = S.StepLR(_opt(), step_size=5)
    s2.load_state_dict(s1.state_dict())
    assert "optimizer" not in s1.state_dict()
    assert s2.last_epoch == 3 and s2.step_size == 2 and s2.get_last_lr() == s1.get_last_lr()


def test_base_lrs_and_initial_lr():
    opt = _opt(0.3)
    sched = S.ExponentialLR(opt, gamma=0.9)
    assert sched.base_lrs == [0.3] and opt.param_groups[0]["initial_lr"] == 0.3
    assert sched.last_epoch == 0
    with pytest.raises(
        KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"
    ):
        S.ExponentialLR(_opt(), gamma=0.9, last_epoch=3)
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        S.StepLR([], step_size=1)


def test_warns_when_stepped_before_optimizer():
    sched = S.StepLR(_opt(), step_size=1)
    with pytest.warns(
        UserWarning,
        match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`",
    ):
        sched.step()
    ok = S.StepLR(_opt(), step_size=1)
    ok.optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok.step()


def test_get_lr_outside_step_warns():
    sched = S.StepLR(_opt(), step_size=1)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_cyclic_lr_triangular_values_and_momentum():
    p = numtorch.nn.Parameter(numtorch.ones(1))
    opt = numtorch.optim.SGD([p], lr=1.0, momentum=0.9)
    sched = numtorch.optim.lr_scheduler.CyclicLR(opt, 0.0, 1.0, step_size_up=2, step_size_down=2, mode="triangular2")
    lrs, moms = [], []
    for _ in range(8):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    assert lrs == [0.0, 0.5, 1.0, 0.5, 0.0, 0.25, 0.5, 0.25]
    # momentum runs opposite to lr, between base_momentum 0.8 and max_momentum 0.9
    assert [round(m, 6) for m in moms] == [0.9, 0.85, 0.8, 0.85, 0.9, 0.875, 0.85, 0.875]


def test_cyclic_lr_refuses_optimizers_without_momentum_and_bad_modes():
    p = numtorch.nn.Parameter(numtorch.ones(1))
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        numtorch.optim.lr_scheduler.CyclicLR(numtorch.optim.Adagrad([p]), 0.1, 1.0)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        numtorch.optim.lr_scheduler.CyclicLR(numtorch.optim.SGD([p], momentum=0.9), 0.1, 1.0, mode="x")
