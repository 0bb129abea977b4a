"""The F.<activation> bindings' fast call (Note [Binding fast call]: the functional op's fast
entry, which their body dispatches): plain calls skip the body, with the body's bits; inplace=True,
modes, subclasses and gradients behave as through the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

# name -> extra positional arguments (besides input)
CASES = {"relu": (), "threshold": (0.1, 20.0), "leaky_relu": (0.2,), "hardtanh": (-0.5, 0.5), "relu6": (),
         "selu": (), "celu": (0.7,), "gelu": ("tanh",), "silu": (), "mish": (), "softplus": (2.0, 1.0),
         "hardsigmoid": (), "hardswish": (), "hardshrink": (0.3,), "softshrink": (0.3,), "logsigmoid": ()}  # fmt: skip
INPLACE = {"relu_": (), "leaky_relu_": (0.2,), "hardtanh_": (-0.5, 0.5), "elu_": (), "celu_": (0.7,),
           "threshold_": (0.1, 20.0), "selu_": ()}  # fmt: skip


def _x(dtype=torch.float32):
    a = np.random.default_rng(3).standard_normal((3, 4)) * 3
    a[0, :3] = (np.inf, -np.inf, np.nan)
    return torch.from_numpy(a).to(dtype)


def _spy(monkeypatch, names):
    ran = []
    for name in names:
        g = getattr(F, name).__globals__  # the generated wrapper reads its body from its namespace
        body = g["_body"]
        monkeypatch.setitem(g, "_body", lambda *a, body=body: ran.append(1) or body(*a))
    return ran


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_plain_calls_skip_the_body_with_its_bits(monkeypatch, dtype):
    x = _x(dtype)
    want = {n: getattr(F, n)(x, *a) for n, a in CASES.items()}  # before the spy: the same op runs
    ran = _spy(monkeypatch, CASES)
    for name, args in CASES.items():
        r = getattr(F, name)(x, *args)
        assert r.dtype == x.dtype and r.stride() == want[name].stride()
        assert r.numpy().tobytes() == want[name].numpy().tobytes(), name
        assert r.numpy().tobytes() == getattr(F, name).__globals__["_body"](x, *args, *(
            [False] if "inplace" in getattr(F, name).__code__.co_varnames else [])).numpy().tobytes()
    ran.clear()
    for name, args in CASES.items():
        getattr(F, name)(x, *args)
    assert not ran  # every plain call took the fast call
    y = x.clone()
    F.relu(y, inplace=True)  # inplace=True: the body picks the in-place op
    assert ran and y.numpy().tobytes() == want["relu"].numpy().tobytes()


def test_inplace_functions_and_modes():
    for name, args in INPLACE.items():
        x = _x()
        want = getattr(F, name[:-1])(x, *args)
        r = getattr(F, name)(x, *args)
        assert r is x and x.numpy().tobytes() == want.numpy().tobytes(), name
    x = _x()
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        F.softshrink(x, 0.3)
        F.relu(x)
    assert any("softshrink" in s for s in logs) and any("relu" in s for s in logs)


def test_grads_and_subclasses():
    x = _x(torch.float64).detach()
    x = torch.where(torch.isfinite(x), x, 0.5).requires_grad_()
    for name, args in CASES.items():
        if name in ("threshold", "hardtanh", "relu6", "hardshrink", "softshrink", "relu", "leaky_relu",
                    "hardsigmoid", "hardswish", "softplus"):  # fmt: skip
            continue  # kinks: gradcheck's finite differences straddle them
        torch.autograd.gradcheck(lambda t, name=name, args=args: getattr(F, name)(t, *args), (x,))
    r = F.relu(x)
    assert r.grad_fn is not None

    class Sub(torch.Tensor):
        pass

    s = _x().as_subclass(Sub)
    assert type(F.softshrink(s, 0.3)) is Sub and type(F.relu(s)) is Sub
    with pytest.raises(TypeError):
        F.softshrink(3.0)
