"""OpInfos for numtorch/ops/nn/loss_margin.py: margin, embedding and likelihood losses, each
with a NumPy reference written from PyTorch's documented formula."""

from __future__ import annotations

import math

import numpy as np

from ..core import OpInfo, SampleInput, make_arg

F = "nn.functional."
_T32 = {"float32": (1e-4, 1e-4)}
_REDS = ("mean", "sum", "none")


def _reduce(x, reduction):
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(x)


def _a(dtype, rng, low=-2, high=2):
    return lambda *s: make_arg(s, dtype, rng, low, high)


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _dist(x, y, p, eps=1e-6):
    return (np.abs(x - y + eps) ** p).sum(-1) ** (1 / p)


# ---- references ------------------------------------------------------------------------------------------
def _soft_margin(x, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce(np.log1p(np.exp(-x * target)), reduction)


def _hinge(x, y, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    out = np.where(y != 1, np.maximum(margin - x, 0), 0) + np.where(y != -1, x, 0)
    return _reduce(out, reduction)


def _poisson(x, t, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
    out = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        st = t * np.log(t) - t + 0.5 * np.log(2 * math.pi * t)
        out = out + np.where(t <= 1, 0, st)
    return _reduce(out, reduction)


def _gaussian(x, t, var, full=False, eps=1e-6, reduction="mean"):
    var = np.asarray(var)
    if var.ndim == x.ndim - 1:
        var = var[..., None]
    var = np.maximum(var, eps)
    out = 0.5 * (np.log(var) + (x - t) ** 2 / var) + (0.5 * math.log(2 * math.pi) if full else 0)
    return _reduce(out, reduction)


def _multilabel_soft(x, t, weight=None, size_average=None, reduce=None, reduction="mean"):
    out = -(t * _log_sigmoid(x) + (1 - t) * _log_sigmoid(-x))
    out = out * (1 if weight is None else weight)
    return _reduce(out.mean(-1), reduction)


def _triplet(a, p, n, margin=1.0, p_norm=2, eps=1e-6, swap=False, reduction="mean"):
    dp, dn = _dist(a, p, p_norm, eps), _dist(a, n, p_norm, eps)
    if swap:
        dn = np.minimum(dn, _dist(p, n, p_norm, eps))
    return _reduce(np.maximum(margin + dp - dn, 0), reduction)


def _triplet_ref(a, pos, n, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):  # fmt: skip
    return _triplet(a, pos, n, margin, p, eps, swap, reduction)


def _triplet_distance(a, p, n, distance_function=None, margin=1.0, swap=False, reduction="mean"):
    return _triplet(a, p, n, margin, 2, 1e-6, swap, reduction)


def _multi_margin(x, y, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    x2 = np.atleast_2d(x)
    y1 = np.atleast_1d(y)
    xy = np.take_along_axis(x2, y1[:, None], 1)
    z = np.maximum(margin - xy + x2, 0) ** p
    if weight is not None:
        z = z * weight[y1][:, None]
    z[np.arange(len(y1)), y1] = 0
    per = z.sum(1) / x2.shape[1]
    return _reduce(per if x.ndim == 2 else per[0], reduction)


def _multilabel_margin(x, y, size_average=None, reduce=None, reduction="mean"):
    x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
    per = np.zeros(x2.shape[0], x.dtype)
    for i in range(x2.shape[0]):
        labels = []
        for j in y2[i]:
            if j < 0:
                break
            labels.append(j)
        others = [k for k in range(x2.shape[1]) if k not in labels]
        per[i] = sum(max(0, 1 - (x2[i, j] - x2[i, k])) for j in labels for k in others) / x2.shape[1]
    return _reduce(per if x.ndim == 2 else per[0], reduction)


# ---- samples ---------------------------------------------------------------------------------------------
def _samples(make, kwargs_list=({},)):
    def gen(dtype, rng):
        return [SampleInput(*make(_a(dtype, rng), dtype, rng), {**kw, "reduction": r}, name=f"{r}{kw}")
                for kw in kwargs_list for r in _REDS]  # fmt: skip

    return gen


def _sign(dtype, rng, *s):
    return np.where(rng.random(s) < 0.5, -1.0, 1.0).astype(dtype)


def _positive(a):
    return lambda *s: np.abs(a(*s)) + 0.1


_LABELS = np.array([[0, 3, -1, 1], [1, 1, 2, 3], [-1, 0, 0, 0]])

MARGIN_LOSSES = [
    # target by keyword: soft_margin_loss has no derivative for it, so the grad sweeps leave it out
    OpInfo(F + "soft_margin_loss", _soft_margin,
           lambda dt, rng: [SampleInput(make_arg((3, 4), dt, rng, -2, 2), (),
                                        {"target": _sign(dt, rng, 3, 4), "reduction": r}, name=r) for r in _REDS],
           tol=_T32),
    OpInfo(F + "hinge_embedding_loss", _hinge,
           _samples(lambda a, dt, rng: (a(3, 4), (_sign(dt, rng, 3, 4),)), ({}, {"margin": 0.5})), tol=_T32),
    OpInfo(F + "poisson_nll_loss", _poisson,
           _samples(lambda a, dt, rng: (a(3, 4), (_positive(a)(3, 4) * 2,)),
                    ({}, {"full": True})), tol=_T32),
    OpInfo(F + "gaussian_nll_loss", _gaussian,
           _samples(lambda a, dt, rng: (a(3, 4), (a(3, 4), _positive(a)(3, 4))), ({}, {"full": True})), tol=_T32),
    OpInfo(F + "multilabel_soft_margin_loss", _multilabel_soft,
           _samples(lambda a, dt, rng: (a(3, 4), ((rng.random((3, 4)) < 0.5).astype(dt),))), tol=_T32),
    OpInfo(F + "triplet_margin_loss", _triplet_ref,
           _samples(lambda a, dt, rng: (a(3, 4), (a(3, 4), a(3, 4))), ({}, {"swap": True, "p": 1.5})), tol=_T32),
    OpInfo(F + "triplet_margin_with_distance_loss", _triplet_distance,
           _samples(lambda a, dt, rng: (a(3, 4), (a(3, 4), a(3, 4))), ({}, {"swap": True, "margin": 0.5})),
           tol=_T32),
    OpInfo(F + "multi_margin_loss", _multi_margin,
           _samples(lambda a, dt, rng: (a(3, 4), (np.array([0, 3, 1]),)), ({}, {"p": 2, "margin": 0.5})),
           tol=_T32),
    OpInfo(F + "multilabel_margin_loss", _multilabel_margin,
           _samples(lambda a, dt, rng: (a(3, 4), (_LABELS,))), tol=_T32),
]  # fmt: skip
