"""Optimizers and LR schedulers against PyTorch: same initial parameters and gradients, five
steps, parameters within 1e-6; identical state_dict layouts, reprs, errors and LR sequences."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

SHAPES = [(5, 4), (4,), (3, 2, 2)]
CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.8), "maximize": True, "eps": 1e-6}),
    ("Adam", {"lr": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.2}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01, "maximize": True}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1, "maximize": True, "eps": 1e-3}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 2, "lambd": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.02), "maximize": True}),
    ("Adafactor", {"lr": 0.01}),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-8, 1e-2), "d": 2.0, "weight_decay": 0.1, "maximize": True}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


def _problem(dtype, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(5)]
    return init, grads


def _run(lib, name, kw, init, grads):
    params = [lib.nn.Parameter(lib.from_numpy(a.copy())) for a in init]
    opt = getattr(lib.optim, name)(params, **kw)
    for step in grads:
        for p, g in zip(params, step, strict=True):
            p.grad = lib.from_numpy(g.copy())
        opt.step()
    return params, opt


@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_five_steps_match_torch(name, kw, dtype):
    init, grads = _problem(dtype)
    tp, topt = _run(torch, name, kw, init, grads)
    npar, nopt = _run(numtorch, name, kw, init, grads)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    for a, b in zip(npar, tp, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    ts, ns = topt.state_dict(), nopt.state_dict()
    assert ns["param_groups"] == ts["param_groups"]
    assert list(ns["state"]) == list(ts["state"])
    for k in ts["state"]:
        assert list(ns["state"][k]) == list(ts["state"][k])
        for key, tv in ts["state"][k].items():
            nv = ns["state"][k][key]
            assert str(nv.dtype) == str(tv.dtype) and tuple(nv.shape) == tuple(tv.shape), key
            np.testing.assert_allclose(nv.numpy(), tv.numpy(), rtol=max(tol, 1e-5), atol=tol)


@pytest.mark.parametrize(("name", "kw"), CONFIGS[::3], ids=IDS[::3])
def test_repr_matches(name, kw):
    mk = lambda lib: getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(1))], **kw)  # noqa: E731
    assert repr(mk(numtorch)) == repr(mk(torch))


def test_torch_optimizer_state_resumes_in_numtorch():
    init, grads = _problem(np.float32, seed=3)
    tp, topt = _run(torch, "Adam", {"lr": 0.01, "amsgrad": True}, init, grads[:3])
    buf = io.BytesIO()
    torch.save({"params": [p.detach() for p in tp], "opt": topt.state_dict()}, buf)
    buf.seek(0)
    ck = numtorch.load(buf)
    npar = [numtorch.nn.Parameter(t.clone()) for t in ck["params"]]
    nopt = numtorch.optim.Adam(npar, lr=0.5, amsgrad=True)
    nopt.load_state_dict(ck["opt"])
    for step in grads[3:]:
        for p, q, g in zip(tp, npar, step, strict=True):
            p.grad = torch.from_numpy(g.copy())
            q.grad = numtorch.from_numpy(g.copy())
        topt.step()
        nopt.step()
    for a, b in zip(npar, tp, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def _err(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.optim.SGD(lib.ones(2), lr=0.1),
        lambda lib: lib.optim.SGD([], lr=0.1),
        lambda lib: lib.optim.SGD([1.0], lr=0.1),
        lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, nesterov=True),
        lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(0.9, 1.5)),
        lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(0.9, 1)),
        lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.ones(1))], momentum=-1),
        lambda lib: lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))], eps=-1),
        lambda lib: (
            p := lib.nn.Parameter(lib.ones(1)),
            lib.optim.SGD([p], lr=1).add_param_group({"params": p}),
        ),
        lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1).load_state_dict(
            lib.optim.SGD([lib.nn.Parameter(lib.ones(1))] * 2, lr=1).state_dict()
        ),
        lambda lib: lib.optim.lr_scheduler.StepLR(object(), 1),
        lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(
            lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1), factor=2
        ),
    ],
)
def test_errors_match(case):
    t = _err(case, torch)
    assert t is not None
    assert _err(case, numtorch) == t


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}),
    ("CosineAnnealingLR", {"T_max": 4}),
    ("LambdaLR", {"lr_lambda": lambda e: 0.95**e}),
    ("MultiplicativeLR", {"lr_lambda": lambda e: 0.9}),
    ("LinearLR", {"start_factor": 0.25, "end_factor": 0.75, "total_iters": 6}),
    ("ConstantLR", {"factor": 0.2, "total_iters": 4}),
    ("PolynomialLR", {"total_iters": 8, "power": 2.0}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 21}),
    (
        "OneCycleLR",
        {
            "max_lr": [0.5, 0.2],
            "epochs": 3,
            "steps_per_epoch": 7,
            "anneal_strategy": "linear",
            "three_phase": True,
        },
    ),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
]


def _sched_run(lib, name, kw, steps=20, opt_name="SGD"):
    groups = [
        {"params": [lib.nn.Parameter(lib.ones(1))]},
        {"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.3},
    ]
    opt = getattr(lib.optim, opt_name)(
        groups, lr=0.1, **({"momentum": 0.9} if opt_name == "SGD" else {})
    )
    sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
    lrs, moms = [sched.get_last_lr()], []
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append([g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups])
    return (
        lrs,
        moms,
        {
            k: v
            for k, v in sched.state_dict().items()
            if k not in ("lr_lambdas", "_schedule_phases")
        },
    )


@pytest.mark.parametrize(
    ("name", "kw"), SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)]
)
def test_scheduler_sequences_match(name, kw):
    t = _sched_run(torch, name, kw)
    n = _sched_run(numtorch, name, kw)
    assert n[0] == t[0]  # the same Python float arithmetic, so exactly equal
    assert n[1] == t[1]
    assert sorted(n[2]) == sorted(t[2])


def test_one_cycle_cycles_adam_beta1_like_torch():
    t = _sched_run(
        torch, "OneCycleLR", {"max_lr": 0.5, "total_steps": 12}, steps=11, opt_name="Adam"
    )
    n = _sched_run(
        numtorch, "OneCycleLR", {"max_lr": 0.5, "total_steps": 12}, steps=11, opt_name="Adam"
    )
    assert n[0] == t[0] and n[1] == t[1]


def test_sequential_and_chained_match():
    def seq(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
        S = lib.optim.lr_scheduler
        s = S.SequentialLR(
            opt,
            [S.LinearLR(opt, 0.1, total_iters=3), S.CosineAnnealingLR(opt, T_max=5)],
            milestones=[3],
        )
        c = S.ChainedScheduler([S.ExponentialLR(opt, 0.99), S.StepLR(opt, 2, 0.5)])
        out = []
        for _ in range(10):
            opt.step()
            s.step()
            out.append(s.get_last_lr()[0])
            c.step()
            out.append(c.get_last_lr()[0])
        return out

    assert seq(numtorch) == seq(torch)


def test_reduce_on_plateau_matches():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 1.0]

    def run(lib, **kw):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in metrics:
            s.step(m)
            out.append((s.get_last_lr()[0], s.num_bad_epochs, s.best))
        return out

    for kw in (
        {"patience": 1},
        {"patience": 0, "cooldown": 2, "mode": "max"},
        {"patience": 1, "threshold_mode": "abs", "threshold": 0.05, "min_lr": 0.3},
    ):
        assert run(numtorch, **kw) == run(torch, **kw)


def test_scheduler_state_dict_round_trip_matches():
    t = _sched_run(torch, "StepLR", {"step_size": 2})[2]
    n = _sched_run(numtorch, "StepLR", {"step_size": 2})[2]
    assert copy.deepcopy(n) == t


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search_fn):
    # a convex quadratic plus a quartic term: both libraries take the same path exactly
    a = np.random.default_rng(1).standard_normal((6, 6))
    A = a @ a.T + np.eye(6)
    res = []
    for lib in (torch, numtorch):
        x = lib.nn.Parameter(lib.from_numpy(np.linspace(-1.0, 1.0, 6)))
        M = lib.from_numpy(A)
        opt = lib.optim.LBFGS([x], lr=0.5, max_iter=7, history_size=3, line_search_fn=line_search_fn)

        def closure(x=x, M=M, opt=opt):
            opt.zero_grad()
            loss = (x @ M @ x) * 0.5 + (x**4).sum() - x.sum()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(3)]
        st = opt.state[x]
        res.append((x.detach().numpy().copy(), losses, st["func_evals"], st["n_iter"]))
    (tx, tl, tf, tn), (nx, nl, nf, nn_) = res
    np.testing.assert_allclose(nx, tx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(nl, tl, rtol=1e-10)
    assert (nf, nn_) == (tf, tn)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.NAdam(p, momentum_decay=-1),
        lambda lib, p: lib.optim.RAdam(p, betas=(1.0, 0.9)),
        lambda lib, p: lib.optim.Adamax(p, eps=-1),
        lambda lib, p: lib.optim.Adadelta(p, rho=1.5),
        lambda lib, p: lib.optim.ASGD(p, weight_decay=-1),
        lambda lib, p: lib.optim.Rprop(p, etas=(1.5, 2.0)),
        lambda lib, p: lib.optim.LBFGS(p, lr=-1),
        lambda lib, p: lib.optim.LBFGS([{"params": p}, {"params": [lib.nn.Parameter(lib.ones(1))]}]),
    ],
)
def test_new_optimizer_errors_match(make):
    case = lambda lib: make(lib, [lib.nn.Parameter(lib.ones(1))])  # noqa: E731
    t = _err(case, torch)
    assert t is not None
    assert _err(case, numtorch) == t


@pytest.mark.parametrize(
    "kw",
    [
        {"step_size_up": 3},
        {"step_size_up": 2, "step_size_down": 5, "mode": "triangular2"},
        {"step_size_up": 3, "mode": "exp_range", "gamma": 0.9},
    ],
)
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_cyclic_lr_sequence_and_state_dict_match(kw, opt_name):
    seqs, states = [], []
    for lib in (torch, numtorch):
        p = lib.nn.Parameter(lib.ones(1))
        okw = {"lr": 0.1, "momentum": 0.9} if opt_name == "SGD" else {"lr": 0.1}
        opt = getattr(lib.optim, opt_name)([p], **okw)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, **kw)
        seq = []
        for _ in range(12):
            opt.step()
            sched.step()
            g = opt.param_groups[0]
            seq.append((g["lr"], g.get("momentum", g.get("betas"))))
        seqs.append(seq)
        states.append({k: v for k, v in sched.state_dict().items() if k != "optimizer"})
    assert seqs[0] == seqs[1]
    assert sorted(states[0]) == sorted(states[1])


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema_fn"])
def test_swa_utils_match_torch(kind):
    res = []
    for L in (torch, numtorch):
        net = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4)).double()
        with L.no_grad():
            for p in net.parameters():
                p.copy_(L.from_numpy(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape))))
        kw = {"ema_multi": {"multi_avg_fn": L.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
              "ema_fn": {"avg_fn": L.optim.swa_utils.get_ema_avg_fn(0.9)}}.get(kind, {})  # fmt: skip
        swa = L.optim.swa_utils.AveragedModel(net, **kw)
        opt = L.optim.SGD(net.parameters(), lr=0.1)
        sched = L.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
        lrs = []
        for step in range(5):
            x = L.from_numpy(np.arange(6.0).reshape(2, 3) * 0.1 * (step + 1))
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
            sched.step()
            swa.update_parameters(net)
            lrs.append(opt.param_groups[0]["lr"])
        L.optim.swa_utils.update_bn([L.from_numpy(np.arange(12.0).reshape(4, 3))], swa)
        res.append((list(swa.state_dict()), [v.detach().numpy().copy() for v in swa.state_dict().values()], lrs))
    assert res[0][0] == res[1][0] and res[0][2] == res[1][2]
    for a, b in zip(res[0][1], res[1][1], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
