"""The norm bindings' fast calls (Note [Norm fast calls]) against their bodies: the same bits,
dtype, shape and strides, and the same error type and text; modes, gradients, forward AD,
autocast, out=, dtype=, subclasses, strided inputs and other orders take the body."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.reduction import norm_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import outcome, same

inf = math.inf


def _x(shape=(3, 4, 5), dtype=np.float32, seed=3):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 8:
        flat[1], flat[4], flat[7] = np.nan, -0.0, 1e-30  # NaN, a signed zero, an underflowing square
        flat[2] = np.inf
    return torch.from_numpy(x)


def _finite(shape=(3, 4, 5), dtype=np.float32, seed=4):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    x.reshape(-1)[:2] = 0.0
    return torch.from_numpy(x)


def _calls(x, y):
    # (name, call) pairs over every binding with a fast call and the argument forms it takes
    z = torch.from_numpy(np.zeros((3, 1, 5), x.numpy().dtype))
    one = x[:, :1, :].contiguous()  # a size-1 reduced dim: |x| without power and root
    return [
        ("norm", lambda: torch.norm(x)),
        ("norm p=1 dim=1", lambda: torch.norm(x, 1, 1)),
        ("norm inf dim=-1 keepdim", lambda: torch.norm(x, inf, -1, True)),
        ("norm -inf dims", lambda: torch.norm(x, -inf, [0, 2])),
        ("norm 0", lambda: torch.norm(x, 0)),
        ("norm fro dims", lambda: torch.norm(x, "fro", (1, 2))),
        ("norm fro int dim", lambda: torch.norm(x, "fro", 2)),
        ("norm size-1 dim", lambda: torch.norm(one, 2, 1)),
        ("norm 0 size-1 dim", lambda: torch.norm(one, 0, 1)),
        ("norm 0-d", lambda: torch.norm(x[0, 0, 0].clone())),
        ("Tensor.norm", lambda: x.norm(2, (0, 2), True)),
        ("Tensor.norm dim []", lambda: x.norm(2, [])),
        ("vector_norm", lambda: torch.linalg.vector_norm(x, dim=(1,))),
        ("vector_norm inf", lambda: torch.linalg.vector_norm(x, inf, 0, True)),
        ("vector_norm 1 all", lambda: torch.linalg.vector_norm(x, 1)),
        ("vector_norm 0 dims", lambda: torch.linalg.vector_norm(x, 0, [2, 0])),
        ("linalg.norm", lambda: torch.linalg.norm(x)),
        ("linalg.norm dim (0, 2)", lambda: torch.linalg.norm(x, dim=(0, 2))),
        ("linalg.norm dim 1", lambda: torch.linalg.norm(x, dim=1, keepdim=True)),
        ("linalg.norm dim [-1]", lambda: torch.linalg.norm(x, dim=[-1])),
        ("matrix_norm", lambda: torch.linalg.matrix_norm(x, keepdim=True)),
        ("matrix_norm (2, 0)", lambda: torch.linalg.matrix_norm(x, "fro", (2, 0))),
        ("dist", lambda: torch.dist(x, y)),
        ("dist 1", lambda: torch.dist(x, y, 1)),
        ("dist inf", lambda: x.dist(y, inf)),
        ("normalize", lambda: F.normalize(x)),
        ("normalize p=1 dim=-1", lambda: F.normalize(x, 1.0, -1)),
        ("normalize zeros", lambda: F.normalize(z, dim=1)),
        ("normalize eps", lambda: F.normalize(y, dim=0, eps=0.5)),
        ("cosine_similarity", lambda: F.cosine_similarity(x, y)),
        ("cosine_similarity dim=-1", lambda: torch.cosine_similarity(x, y, -1)),
        ("cosine_similarity zeros", lambda: F.cosine_similarity(z, z, 0, 0.25)),
        ("cosine_similarity size-1 dim", lambda: F.cosine_similarity(one, one * 3)),
        ("pairwise_distance", lambda: F.pairwise_distance(x, y)),
        ("pairwise_distance inf keepdim", lambda: torch.pairwise_distance(x, y, inf, 1e-3, True)),
        ("pairwise_distance 1", lambda: F.pairwise_distance(y, x, 1.0)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("make", [_x, _finite])
def test_fast_calls_match_the_bodies(dtype, make, monkeypatch):
    x, y = make(dtype=dtype), _finite(dtype=dtype, seed=9)
    calls = _calls(x, y)
    fast = []
    for name, call in calls:
        n = norm_fast.COUNT[0]
        fast.append(outcome(call))
        assert norm_fast.COUNT[0] > n, f"{name}: the fast route was not taken"
    monkeypatch.setattr(norm_fast, "vnorm", lambda *a: None)  # every fast call declines
    for (name, call), r in zip(calls, fast, strict=True):
        n = norm_fast.COUNT[0]
        same(r, outcome(call))
        assert norm_fast.COUNT[0] == n, name


def test_the_route_is_the_fast_calls():
    # without the fast calls each of these runs a dispatched op (the spy sees none here)
    x = _finite()
    n = norm_fast.COUNT[0]
    torch.linalg.norm(x, dim=(0, 2)), torch.norm(x), F.normalize(x), torch.dist(x, x)
    assert norm_fast.COUNT[0] == n + 4


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.norm(x, 2, 3),
        lambda x: torch.norm(x, 2, [1, 1]),
        lambda x: torch.norm(x, 2, [1.0]),
        lambda x: torch.norm(x, 2, (True,)),
        lambda x: torch.norm(x, "nuc", (0, 1, 2)),
        lambda x: torch.linalg.vector_norm(x, 2, -4),
        lambda x: torch.linalg.vector_norm(x, "fro"),
        lambda x: torch.linalg.norm(x, dim=(0, 1, 2)),
        lambda x: torch.linalg.norm(x, dim=(1, 1)),
        lambda x: torch.linalg.matrix_norm(x, "fro", (0, 5)),
        lambda x: torch.linalg.matrix_norm(x, "fro", (1, -2)),
        lambda x: torch.linalg.matrix_norm(x[0, 0], "fro"),
        lambda x: torch.dist(x, x[0]),
        lambda x: F.normalize(x, dim=7),
        lambda x: torch.norm(x.to(torch.int64)),
        lambda x: torch.norm(x[:0]),
        lambda x: torch.norm(x[:0], inf),
    ],
)
def test_errors_and_declines_are_the_bodies(call, monkeypatch):
    x = _finite()
    r = outcome(call, x)
    monkeypatch.setattr(norm_fast, "vnorm", lambda *a: None)
    same(r, outcome(call, x))


def test_other_arguments_take_the_body():
    x = _finite()
    n = norm_fast.COUNT[0]
    torch.norm(x, 3), torch.norm(x, 2.5, 1), torch.linalg.vector_norm(x, 2, dtype=torch.float64)
    torch.norm(x, dtype=torch.float64), torch.norm(x, out=torch.empty(0))
    torch.linalg.vector_norm(x, out=torch.empty(0)), torch.linalg.norm(x[0], 2)
    torch.linalg.norm(x[0], "nuc"), torch.linalg.matrix_norm(x, 1), torch.dist(x, x, 3)
    torch.dist(x, x.double()), torch.dist(x, x[0:1])
    torch.norm(x.transpose(0, 2)), torch.norm(x.half()), torch.norm(x.double()[..., ::2])
    assert norm_fast.COUNT[0] == n
    # F.normalize's body calls Tensor.norm (a fast call of its own): its own call declines
    for args in ((x, 2.0, 1, 1e-12, torch.empty(x.shape)), (x, 2.0, (1,), 1e-12, None), (x, 2.0, 1, 1, None)):
        assert norm_fast._normalize(*args) is None
    # so do cosine_similarity's and pairwise_distance's (their composites call Tensor.norm)
    assert norm_fast._cosine_similarity(x, x[0:1]) is norm_fast._cosine_similarity(x, x, 1, 0) is None
    assert norm_fast._pairwise_distance(x, x, 3.0) is norm_fast._pairwise_distance(x, x[0]) is None
    assert norm_fast._cosine_similarity(x, x.double()) is norm_fast._pairwise_distance(x, x, 2.0, 1) is None


def test_modes_grad_forward_ad_autocast_and_subclasses_take_the_body():
    x = _finite()
    n = norm_fast.COUNT[0]
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.linalg.norm(x, dim=(0, 2)), torch.norm(x), F.normalize(x), torch.dist(x, x)
    assert "aten.norm" in " ".join(logs) or "linalg_vector_norm" in " ".join(logs)
    w = _finite(dtype=np.float64).requires_grad_(True)
    v = _finite(dtype=np.float64, seed=8)
    for fn in (lambda t: torch.norm(t, 2, 1), lambda t: torch.linalg.norm(t, dim=(0, 2)),
               lambda t: torch.linalg.matrix_norm(t), lambda t: F.normalize(t),
               lambda t: torch.dist(t, v), lambda t: torch.linalg.vector_norm(t, inf),
               lambda t: F.cosine_similarity(t, v), lambda t: F.pairwise_distance(v, t)):  # fmt: skip
        assert fn(w).grad_fn is not None
        assert torch.autograd.gradcheck(fn, (w,))  # its numerical side runs without grad: fast
    # (cosine_similarity's composite takes v's norm by the fast call: v records nothing)
    for f, args in ((norm_fast._torch_norm, (w,)), (norm_fast._vector_norm, (w,)), (norm_fast._linalg_norm, (w,)),
                    (norm_fast._matrix_norm, (w,)), (norm_fast._dist, (v, w)), (norm_fast._normalize, (w,)),
                    (norm_fast._cosine_similarity, (v, w)), (norm_fast._pairwise_distance, (w, v))):  # fmt: skip
        assert f(*args) is None
    n = norm_fast.COUNT[0]
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(3, 4, 5))
        assert fwAD.unpack_dual(torch.norm(d, 2, 1)).tangent is not None
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.linalg.vector_norm(x), torch.norm(x)

    class Sub(torch.Tensor):
        pass

    assert norm_fast.COUNT[0] == n
    s = x.as_subclass(Sub)
    r = [torch.norm(s), torch.linalg.norm(s, dim=1), F.normalize(s)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(norm_fast, "vnorm", lambda *a: None)
        want = [torch.norm(s), torch.linalg.norm(s, dim=1), F.normalize(s)]
    for a, b in zip(r, want, strict=True):
        assert type(a) is type(b) is Sub
        same(a, b)
    n = norm_fast.COUNT[0]
    with torch.no_grad():
        assert torch.norm(w).grad_fn is None
    assert norm_fast.COUNT[0] == n + 1


def test_inference_mode_and_large_inputs():
    x = _finite()
    with torch.inference_mode():
        assert torch.norm(x).is_inference()
    big = torch.from_numpy(np.random.default_rng(1).standard_normal((512, 600)).astype(np.float32))
    r = outcome(lambda: torch.linalg.norm(big, dim=1))
    n = norm_fast.COUNT[0]
    torch.linalg.norm(big)
    assert norm_fast.COUNT[0] == n + 1
    np.testing.assert_allclose(r.numpy(), np.linalg.norm(big.numpy().astype(np.float64), axis=1), rtol=1e-5)
