"""SGD, Adam, AdamW, RMSprop, Adagrad against hand-written NumPy updates (float64), plus the
state each one keeps and its argument validation."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn

from ._reference import problem, run_numtorch, run_reference

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.05, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.5, 0.9), "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "betas": (0.7, 0.99)}),  # 1 - beta1 >= 0.5: lerp's other branch
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.5, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
]


@pytest.mark.parametrize(
    ("name", "kw"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_update_matches_numpy_reference(name, kw):
    init, grads = problem(seed=len(kw), steps=5)
    got, _ = run_numtorch(name, kw, init, grads)
    want = run_reference(name, kw, init, grads)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_float32_params_stay_float32_and_close_to_float64(name):
    init, grads = problem(seed=1, steps=5, dtype=np.float32)
    kw = {"lr": 0.01, "momentum": 0.9} if name == "SGD" else {"lr": 0.01}
    got, _ = run_numtorch(name, kw, init, grads)
    want = run_reference(
        name,
        kw,
        [a.astype(np.float64) for a in init],
        [[g.astype(np.float64) for g in s] for s in grads],
    )
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_non_contiguous_parameter_is_updated_in_place():
    base = numtorch.from_numpy(np.arange(6.0).reshape(2, 3))
    p = nn.Parameter(base.t())  # a transposed (non-contiguous) view
    p.grad = numtorch.ones(3, 2, dtype=numtorch.float64)
    numtorch.optim.SGD([p], lr=0.5).step()
    np.testing.assert_array_equal(p.detach().numpy(), np.arange(6.0).reshape(2, 3).T - 0.5)
    np.testing.assert_array_equal(base.numpy(), np.arange(6.0).reshape(2, 3) - 0.5)


def test_half_and_complex_parameters():
    h = nn.Parameter(numtorch.ones(3, dtype=numtorch.float16))
    h.grad = numtorch.ones(3, dtype=numtorch.float16)
    numtorch.optim.Adam([h], lr=0.125).step()
    assert h.dtype is numtorch.float16
    np.testing.assert_allclose(h.detach().numpy().astype(np.float64), 0.875, rtol=1e-3)
    c = nn.Parameter(numtorch.from_numpy(np.array([1 + 2j, 3 - 1j])))
    c.grad = numtorch.from_numpy(np.array([1 + 1j, -1 + 0.5j]))
    numtorch.optim.SGD([c], lr=0.1).step()
    np.testing.assert_allclose(c.detach().numpy(), [0.9 + 1.9j, 3.1 - 1.05j])


def test_step_bumps_version_and_skips_params_without_grad():
    a, b = nn.Parameter(numtorch.ones(2)), nn.Parameter(numtorch.ones(2))
    a.grad = numtorch.ones(2)
    va, vb = a._version, b._version
    opt = numtorch.optim.Adam([a, b], lr=0.1)
    opt.step()
    assert a._version > va and b._version == vb
    assert len(opt.state) == 1 and b not in opt.state


def test_state_contents():
    p = nn.Parameter(numtorch.ones(2))
    p.grad = numtorch.ones(2)
    adam = numtorch.optim.Adam([p], amsgrad=True)
    adam.step()
    adam.step()
    st = adam.state[p]
    assert list(st) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert (
        st["step"].dtype is numtorch.float32 and st["step"].dim() == 0 and float(st["step"]) == 2.0
    )
    sgd = numtorch.optim.SGD([p], lr=0.1, momentum=0.9)
    sgd.step()
    assert list(sgd.state[p]) == ["momentum_buffer"]
    plain = numtorch.optim.SGD([p], lr=0.1)
    plain.step()
    assert len(plain.state) == 0
    rms = numtorch.optim.RMSprop([p], centered=True, momentum=0.5)
    rms.step()
    assert list(rms.state[p]) == ["step", "square_avg", "momentum_buffer", "grad_avg"]
    ada = numtorch.optim.Adagrad([p], initial_accumulator_value=0.5)
    assert list(ada.state[p]) == ["step", "sum"]  # created eagerly
    np.testing.assert_array_equal(ada.state[p]["sum"].numpy(), [0.5, 0.5])


def test_step_dtype_follows_default_dtype():
    p = nn.Parameter(numtorch.ones(1, dtype=numtorch.float64))
    p.grad = numtorch.ones(1, dtype=numtorch.float64)
    numtorch.set_default_dtype(numtorch.float64)
    try:
        opt = numtorch.optim.Adam([p])
        opt.step()
    finally:
        numtorch.set_default_dtype(numtorch.float32)
    assert opt.state[p]["step"].dtype is numtorch.float64


@pytest.mark.parametrize(
    ("ctor", "msg"),
    [
        (lambda p: numtorch.optim.SGD(p, lr=-1), "Invalid learning rate: -1"),
        (lambda p: numtorch.optim.SGD(p, momentum=-0.1), "Invalid momentum value: -0.1"),
        (
            lambda p: numtorch.optim.SGD(p, nesterov=True),
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (
            lambda p: numtorch.optim.Adam(p, betas=(1.0, 0.9)),
            "Invalid beta parameter at index 0: 1.0",
        ),
        (
            lambda p: numtorch.optim.Adam(p, betas=(0.9, -0.1)),
            "Invalid beta parameter at index 1: -0.1",
        ),
        (lambda p: numtorch.optim.Adam(p, eps=-1.0), "Invalid epsilon value: -1.0"),
        (lambda p: numtorch.optim.AdamW(p, weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
        (lambda p: numtorch.optim.RMSprop(p, alpha=-1.0), "Invalid alpha value: -1.0"),
        (lambda p: numtorch.optim.Adagrad(p, lr_decay=-1.0), "Invalid lr_decay value: -1.0"),
        (
            lambda p: numtorch.optim.Adagrad(p, initial_accumulator_value=-1),
            "Invalid initial_accumulator_value value: -1",
        ),
    ],
)
def test_invalid_hyperparameters(ctor, msg):
    with pytest.raises(ValueError, match=f"^{msg.replace('(', '[(]').replace(')', '[)]')}$"):
        ctor([nn.Parameter(numtorch.ones(1))])


def test_differentiable_is_refused_at_step():
    p = nn.Parameter(numtorch.ones(1))
    p.grad = numtorch.ones(1)
    opt = numtorch.optim.SGD([p], lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        opt.step()


def test_fused_and_foreach_flags():
    p = nn.Parameter(numtorch.ones(1))
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        numtorch.optim.Adam([p], fused=True, foreach=True)
    p.grad = numtorch.ones(1)
    numtorch.optim.Adam([p], lr=0.1, fused=True).step()  # accepted: the update is fused anyway
    np.testing.assert_allclose(p.detach().numpy(), [0.9])
