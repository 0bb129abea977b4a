"""Hand-written NumPy versions of the optimizer updates (the textbook algorithms of PyTorch's
docs), and a driver that runs a numtorch optimizer on the same parameters and gradients."""

from __future__ import annotations

import numpy as np

import numtorch


def sgd(
    ps, gs, st, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False
):
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            b = g.copy() if i not in st else momentum * st[i] + (1 - dampening) * g
            st[i] = b
            g = g + momentum * b if nesterov else b
        p -= lr * g


def adam(ps, gs, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
         maximize=False, decoupled=False):  # fmt: skip
    b1, b2 = betas
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(
            i, {"t": 0, "m": np.zeros_like(p), "v": np.zeros_like(p), "vmax": np.zeros_like(p)}
        )
        s["t"] += 1
        g = -g if maximize else g
        if decoupled:
            p *= 1 - lr * weight_decay
        else:
            g = g + weight_decay * p
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        v = s["v"]
        if amsgrad:
            s["vmax"] = np.maximum(s["vmax"], v)
            v = s["vmax"]
        m_hat = s["m"] / (1 - b1 ** s["t"])
        v_hat = v / (1 - b2 ** s["t"])
        p -= lr * m_hat / (np.sqrt(v_hat) + eps)


def adamw(ps, gs, st, lr=1e-3, weight_decay=1e-2, **kw):
    adam(ps, gs, st, lr=lr, weight_decay=weight_decay, decoupled=True, **kw)


def rmsprop(ps, gs, st, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
            centered=False, maximize=False):  # fmt: skip
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(
            i, {"v": np.zeros_like(p), "gavg": np.zeros_like(p), "b": np.zeros_like(p)}
        )
        g = -g if maximize else g
        g = g + weight_decay * p
        s["v"] = alpha * s["v"] + (1 - alpha) * g * g
        v = s["v"]
        if centered:
            s["gavg"] = alpha * s["gavg"] + (1 - alpha) * g
            v = v - s["gavg"] ** 2
        denom = np.sqrt(v) + eps
        if momentum > 0:
            s["b"] = momentum * s["b"] + g / denom
            p -= lr * s["b"]
        else:
            p -= lr * g / denom


def adagrad(ps, gs, st, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
            eps=1e-10, maximize=False):  # fmt: skip
    for i, (p, g) in enumerate(zip(ps, gs, strict=True)):
        s = st.setdefault(i, {"t": 0, "sum": np.full_like(p, initial_accumulator_value)})
        s["t"] += 1
        g = -g if maximize else g
        g = g + weight_decay * p
        clr = lr / (1 + (s["t"] - 1) * lr_decay)
        s["sum"] += g * g
        p -= clr * g / (np.sqrt(s["sum"]) + eps)


REFERENCES = {"SGD": sgd, "Adam": adam, "AdamW": adamw, "RMSprop": rmsprop, "Adagrad": adagrad}
SHAPES = [(3, 4), (4,), (2, 1, 3)]


def problem(seed: int, steps: int, dtype=np.float64):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return init, grads


def run_numtorch(name: str, kw: dict, init, grads):
    params = [numtorch.nn.Parameter(numtorch.from_numpy(a.copy())) for a in init]
    opt = getattr(numtorch.optim, name)(params, **kw)
    for step_grads in grads:
        for p, g in zip(params, step_grads, strict=True):
            p.grad = numtorch.from_numpy(g.copy())
        opt.step()
    return [p.detach().numpy() for p in params], opt


def run_reference(name: str, kw: dict, init, grads):
    params = [a.copy() for a in init]
    state: dict = {}
    for step_grads in grads:
        REFERENCES[name](params, step_grads, state, **kw)
    return params
