"""NAdam, RAdam, Adamax, Adadelta, ASGD, Rprop against textbook NumPy updates (float64, the
algorithms as PyTorch's docs write them), and LBFGS on problems with known minima."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._reference import problem, run_numtorch


def _f32(x):
    return float(np.float32(x))


def _moments(s, g, b1, b2):
    s["m"] = b1 * s["m"] + (1 - b1) * g
    s["v"] = b2 * s["v"] + (1 - b2) * g * g


def _wd(p, g, lr, wd, decoupled):
    if decoupled:
        p *= 1 - lr * wd
        return g
    return g + wd * p


def nadam(ps, gs, st, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
          momentum_decay=4e-3, decoupled_weight_decay=False, maximize=False):  # fmt: skip
    b1, b2 = betas
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"t": 0, "mu_prod": 1.0, "m": 0 * p, "v": 0 * p})
        s["t"] += 1
        t = s["t"]
        g = _wd(p, -g if maximize else g, lr, weight_decay, decoupled_weight_decay)
        mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        s["mu_prod"] = _f32(s["mu_prod"] * _f32(mu))  # a float32 0-d state tensor, as in PyTorch
        _moments(s, g, b1, b2)
        denom = np.sqrt(s["v"] / (1 - b2**t)) + eps
        p -= lr * (1 - mu) / (1 - s["mu_prod"]) * g / denom
        p -= lr * mu1 / (1 - s["mu_prod"] * mu1) * s["m"] / denom


def radam(ps, gs, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
          decoupled_weight_decay=False, maximize=False):  # fmt: skip
    b1, b2 = betas
    rho_inf = 2 / (1 - b2) - 1
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"t": 0, "m": 0 * p, "v": 0 * p})
        s["t"] += 1
        t = s["t"]
        g = _wd(p, -g if maximize else g, lr, weight_decay, decoupled_weight_decay)
        _moments(s, g, b1, b2)
        m_hat = s["m"] / (1 - b1**t)
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho > 5:
            r = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            p -= lr * m_hat * r * np.sqrt(1 - b2**t) / (np.sqrt(s["v"]) + eps)
        else:
            p -= lr * m_hat


def adamax(ps, gs, st, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, maximize=False):
    b1, b2 = betas
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"t": 0, "m": 0 * p, "u": 0 * p})
        s["t"] += 1
        g = (-g if maximize else g) + weight_decay * p
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["u"] = np.maximum(b2 * s["u"], np.abs(g) + eps)
        p -= lr / (1 - b1 ** s["t"]) * s["m"] / s["u"]


def adadelta(ps, gs, st, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False):
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"v": 0 * p, "u": 0 * p})
        g = (-g if maximize else g) + weight_decay * p
        s["v"] = rho * s["v"] + (1 - rho) * g * g
        dx = np.sqrt(s["u"] + eps) / np.sqrt(s["v"] + eps) * g
        s["u"] = rho * s["u"] + (1 - rho) * dx * dx
        p -= lr * dx


def asgd(ps, gs, st, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"t": 0, "eta": _f32(lr), "mu": 1.0, "ax": 0 * p})
        s["t"] += 1
        g = (-g if maximize else g) + weight_decay * p
        p *= 1 - lambd * s["eta"]
        p -= s["eta"] * g
        s["ax"] = s["ax"] + (p - s["ax"]) * s["mu"] if s["mu"] != 1 else p.copy()
        s["eta"] = _f32(lr / (1 + lambd * lr * s["t"]) ** alpha)  # float32 0-d state tensors
        s["mu"] = _f32(1 / max(1, s["t"] - t0))


def rprop(ps, gs, st, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    em, ep = etas
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"prev": 0 * p, "eta": np.full_like(p, lr)})
        g = (-g if maximize else g).copy()
        prod = g * s["prev"]
        s["eta"] = np.clip(s["eta"] * np.where(prod > 0, ep, np.where(prod < 0, em, 1.0)), *step_sizes)
        g[prod < 0] = 0
        p -= np.sign(g) * s["eta"]
        s["prev"] = g


REFS = {"NAdam": nadam, "RAdam": radam, "Adamax": adamax, "Adadelta": adadelta, "ASGD": asgd, "Rprop": rprop}
CONFIGS = [
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1}),  # rectified from step 6
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1, "maximize": True, "betas": (0.3, 0.5)}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 3, "lambd": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.02), "maximize": True}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_update_matches_numpy_reference(name, kw):
    init, grads = problem(seed=len(kw), steps=8)
    got, _ = run_numtorch(name, kw, init, grads)
    params, state = [a.copy() for a in init], {}
    for step in grads:
        REFS[name](params, step, state, **kw)
    for g, w in zip(got, params, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFS))
def test_float32_and_complex_parameters_update(name):
    p32 = numtorch.nn.Parameter(numtorch.tensor([1.0, -2.0]))
    pc = numtorch.nn.Parameter(numtorch.tensor([1 + 2j, -1j], dtype=numtorch.complex64))
    opt = getattr(numtorch.optim, name)([p32, pc], lr=0.1)
    for p in (p32, pc):
        p.grad = numtorch.ones_like(p) * (1 + 1j if p.is_complex() else 1)
    v = p32._version
    opt.step()
    assert p32.dtype is numtorch.float32 and pc.dtype is numtorch.complex64
    assert p32._version == v + 1
    assert not numtorch.equal(p32.detach(), numtorch.tensor([1.0, -2.0]))
    # complex parameters update as pairs of independent reals (torch.view_as_real)
    r = numtorch.view_as_real(pc.detach())
    assert (r < numtorch.tensor([[1.0, 2.0], [0.0, -1.0]])).all()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_minimises_a_quadratic(line_search_fn):
    a = np.random.default_rng(0).standard_normal((5, 5))
    A, b = a @ a.T + np.eye(5), np.arange(5.0)
    x = numtorch.nn.Parameter(numtorch.zeros(5, dtype=numtorch.float64))
    M, v = numtorch.from_numpy(A), numtorch.from_numpy(b)
    opt = numtorch.optim.LBFGS([x], max_iter=50, tolerance_change=1e-15, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ M @ x) - v @ x
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, b), rtol=1e-6, atol=1e-8)


def test_lbfgs_rosenbrock_with_strong_wolfe():
    x = numtorch.nn.Parameter(numtorch.tensor([-1.5, 2.0], dtype=numtorch.float64))
    opt = numtorch.optim.LBFGS(
        [x], history_size=10, max_iter=200, tolerance_change=1e-15, line_search_fn="strong_wolfe"
    )

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-5)


def test_lbfgs_refuses_groups_and_other_line_searches():
    p = numtorch.nn.Parameter(numtorch.ones(1))
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        numtorch.optim.LBFGS([{"params": [p]}, {"params": [numtorch.nn.Parameter(numtorch.ones(1))]}])
    opt = numtorch.optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def adafactor_reference(p, grads, lr=0.01, beta2_decay=-0.8, eps1=None, eps2=1e-3, d=1.0, wd=0.0):
    """The algorithm box of PyTorch's Adafactor docs, for one matrix parameter, in NumPy."""
    eps1 = np.finfo(p.dtype).eps if eps1 is None else eps1
    R, C = np.zeros((p.shape[0], 1)), np.zeros((1, p.shape[1]))
    for t, g in enumerate(grads, start=1):
        b = t**beta2_decay
        rho = min(lr, 1 / np.sqrt(t))
        alpha = max(eps2, np.sqrt((p * p).mean())) * rho
        p = p * (1 - lr * wd)
        R = R + b * ((g * g).mean(1, keepdims=True) - R)
        C = C + b * ((g * g).mean(0, keepdims=True) - C)
        V = R @ C / max(R.mean(), eps1)
        U = g / np.sqrt(np.maximum(V, eps1 * eps1))
        p = p - alpha / max(1.0, np.sqrt((U * U).mean()) / d) * U
    return p


@pytest.mark.parametrize("kw", [{}, {"lr": 0.05, "weight_decay": 0.1, "d": 2.0}])
def test_adafactor_matches_the_documented_algorithm(kw):
    rng = np.random.default_rng(4)
    p0, grads = rng.standard_normal((4, 3)), [rng.standard_normal((4, 3)) for _ in range(5)]
    p = numtorch.nn.Parameter(numtorch.from_numpy(p0.copy()))
    opt = numtorch.optim.Adafactor([p], **kw)
    for g in grads:
        p.grad = numtorch.from_numpy(g.copy())
        opt.step()
    want = adafactor_reference(p0, grads, lr=kw.get("lr", 0.01), wd=kw.get("weight_decay", 0.0), d=kw.get("d", 1.0))
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-10, atol=1e-12)
    assert list(opt.state[p]) == ["step", "row_var", "col_var"]
