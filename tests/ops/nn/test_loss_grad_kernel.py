"""Note [Loss gradients through their kernel]: the elementwise losses' formulas call their
backward op's kernel directly where nothing could tell, with the op route's bits (compared with
the same backward under a dispatch mode, which takes the ops), and call the ops otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.nn import loss_grad_kernel as LG
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import same

LOSSES = {
    "mse_loss": lambda a, b, **kw: F.mse_loss(a, b, **kw),
    "huber_loss": lambda a, b, **kw: F.huber_loss(a, b, delta=0.7, **kw),
    "smooth_l1_loss": lambda a, b, **kw: F.smooth_l1_loss(a, b, beta=1.3, **kw),
    "binary_cross_entropy": lambda a, b, **kw: F.binary_cross_entropy(a, b, **kw),
}


def _pair(name, shape, dtype, seed=0, special=True):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2
    t = rng.standard_normal(shape) * 2
    if name == "binary_cross_entropy":
        x, t = 1 / (1 + np.exp(-x)), rng.random(shape)
    elif special and x.size > 4:
        x.flat[0] = t.flat[0]  # a zero difference
        x.flat[1] = t.flat[1] + 0.7  # on huber's threshold
        x.flat[2] = t.flat[2] - 1.3  # on smooth_l1's
        x.flat[3], x.flat[4] = np.nan, -np.inf
    return x.astype(dtype), t.astype(dtype)


def _grads(name, x, t, reduction, mode=False, layout=None, grad_target=True):
    a = torch.from_numpy(x.copy()).requires_grad_(True)
    b = torch.from_numpy(t.copy()).requires_grad_(grad_target)
    ia, ib = (a, b) if layout is None else (layout(a), layout(b))
    if mode:
        with LoggingTensorMode(), capture_logs() as logs:
            LOSSES[name](ia, ib, reduction=reduction).sum().backward()
        assert any(f"{name}_backward" in line for line in logs), logs
    else:
        LOSSES[name](ia, ib, reduction=reduction).sum().backward()
    return a.grad, b.grad


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(3, 4), (7,), (2, 3, 5)])
def test_kernel_route_gives_the_ops_bits(name, dtype, reduction, shape):
    x, t = _pair(name, shape, dtype)
    n = LG.COUNT[0]
    got = _grads(name, x, t, reduction)
    taken = LG.COUNT[0] - n
    assert taken == (1 if name == "binary_cross_entropy" else 2)  # bce's target formula is ops
    n = LG.COUNT[0]
    want = _grads(name, x, t, reduction, mode=True)
    assert LG.COUNT[0] == n  # a mode sees the backward ops
    for g, w in zip(got, want, strict=True):
        same(g, w)


@pytest.mark.parametrize("name", list(LOSSES))
def test_self_only_and_target_only(name):
    x, t = _pair(name, (4, 3), np.float32)
    got = _grads(name, x, t, "mean", grad_target=False)
    want = _grads(name, x, t, "mean", mode=True, grad_target=False)
    same(got[0], want[0])
    assert got[1] is None and want[1] is None


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize(
    "case",
    ["float16", "bfloat16", "transposed", "one element", "empty", "large"],
)
def test_other_inputs_take_the_ops(name, case):
    dtype, shape, layout = np.float32, (3, 4), None
    if case == "transposed":
        shape, layout = (4, 3), lambda u: u.t()
    elif case == "one element":
        shape = (1,)
    elif case == "empty":
        shape = (0, 3)
    elif case == "large":
        shape = (100, 100)  # above the gate's SMALL
    x, t = _pair(name, shape, dtype, special=False)
    conv = {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(case)
    if conv is not None:
        layout = lambda u: u.to(conv)  # noqa: E731
    n = LG.COUNT[0]
    got = _grads(name, x, t, "mean", layout=layout)
    assert LG.COUNT[0] == n
    want = _grads(name, x, t, "mean", mode=True, layout=layout)
    for g, w in zip(got, want, strict=True):
        same(g, w)


def test_broadcast_operands_take_the_ops():
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    n = LG.COUNT[0]
    with pytest.warns(UserWarning):
        F.mse_loss(a, b).backward()
    assert LG.COUNT[0] == n
    assert b.grad.shape == (4,)


def test_create_graph_takes_the_ops_and_double_backward_works():
    x, t = _pair("huber_loss", (3, 4), np.float64)
    a = torch.from_numpy(x).requires_grad_(True)
    b = torch.from_numpy(t).requires_grad_(True)
    n = LG.COUNT[0]
    (ga,) = torch.autograd.grad(F.huber_loss(a, b, delta=0.7), a, create_graph=True)
    assert LG.COUNT[0] == n
    assert ga.requires_grad


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradcheck(name, reduction):
    x, t = _pair(name, (3, 4), np.float64, special=False)
    if name == "binary_cross_entropy":
        x = np.clip(x, 0.05, 0.95)
    a = torch.from_numpy(x).requires_grad_(True)
    b = torch.from_numpy(t).requires_grad_(name != "binary_cross_entropy")
    inputs = (a, b) if b.requires_grad else (a,)

    def f(*v):
        return LOSSES[name](v[0], v[1] if len(v) > 1 else b, reduction=reduction)

    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_a_kernel_registered_over_the_backward_op_is_called():
    x, t = _pair("mse_loss", (3, 4), np.float32, special=False)
    a = torch.from_numpy(x).requires_grad_(True)
    b = torch.from_numpy(t)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(grad, self, target, reduction):
        seen.append(reduction)
        return torch.zeros(self.shape)

    lib.impl("mse_loss_backward", kernel, "CPU")
    try:
        n = LG.COUNT[0]
        F.mse_loss(a, b).backward()
        assert LG.COUNT[0] == n and seen == [1]
        assert a.grad.abs().sum().item() == 0
    finally:
        lib._destroy()
    a.grad = None
    F.mse_loss(a, b).backward()
    assert a.grad.abs().sum().item() > 0


# ---- Note [Loss bodies skip a same-shape broadcast] -------------------------------------------------
PAIR_LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]


def _spy_broadcasts(monkeypatch):
    calls = []
    real = torch.broadcast_tensors

    def spy(*tensors):
        calls.append(len(tensors))
        return real(*tensors)

    monkeypatch.setattr(torch, "broadcast_tensors", spy)
    return calls


@pytest.mark.parametrize("name", PAIR_LOSSES)
def test_same_shape_operands_skip_broadcast_tensors(name, monkeypatch):
    x, t = _pair("mse_loss", (3, 4), np.float32)
    calls = _spy_broadcasts(monkeypatch)
    a = torch.from_numpy(x).requires_grad_(True)
    b = torch.from_numpy(t).requires_grad_(True)
    out = getattr(F, name)(a, b, reduction="none")
    assert calls == []
    assert out.grad_fn is not None
    # a broadcast target and a subclass still take broadcast_tensors
    with pytest.warns(UserWarning):
        getattr(F, name)(a, b[:1])
    assert calls == [2]
    getattr(F, name)(a, b.as_subclass(_Sub))
    assert calls == [2, 2]


class _Sub(torch.Tensor):
    pass


@pytest.mark.parametrize("name", PAIR_LOSSES)
def test_under_a_torch_function_mode_the_loss_is_seen_once(name):
    # as in PyTorch: the handler runs with its mode off, so the body's calls are not seen
    from numtorch.overrides import TorchFunctionMode

    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    a, b = torch.randn(3, 4, requires_grad=True), torch.randn(3, 4)
    want = getattr(F, name)(a, b)
    with Log():
        got = getattr(F, name)(a, b)
    assert seen == [name]
    same(got.detach(), want.detach())


def test_a_library_kernel_over_an_aten_op_keeps_broadcast_tensors(monkeypatch):
    calls = _spy_broadcasts(monkeypatch)
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("mm", lambda a, b: a, "CPU")
    try:
        F.mse_loss(torch.randn(3, requires_grad=True), torch.randn(3))
    finally:
        lib._destroy()
    assert calls == [2]
    F.mse_loss(torch.randn(3, requires_grad=True), torch.randn(3))
    assert calls == [2]


# ---- binary_cross_entropy's elements by pair_kernel -----------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(3, 4), (7,), (2, 3, 5)])
def test_bce_elements_by_the_engines_kernel(dtype, reduction, shape):
    from numtorch.ops.nn import loss_pointwise as LP

    x, t = _pair("binary_cross_entropy", shape, dtype)
    x.flat[0], x.flat[1], t.flat[2] = 0.0, 1.0, 1.0  # log(0): the -100 clamp
    a, b = torch.from_numpy(x), torch.from_numpy(t)
    n = LG.PAIR_COUNT[0]
    got = F.binary_cross_entropy(a, b, reduction=reduction)
    assert LG.PAIR_COUNT[0] == n + 1
    elems = LP._BCE([a, b, 1.0])  # the engine's general route
    want = LP._reduce(elems, {"none": 0, "mean": 1, "sum": 2}[reduction])
    same(got, want)


@pytest.mark.parametrize(
    "case", ["transposed", "one element", "float16", "weight", "parallel size"]
)
def test_bce_elements_other_inputs_take_the_engine(case):
    from numtorch.ops.nn import loss_pointwise as LP

    shape = {"one element": (1,), "parallel size": (1 << 18,)}.get(case, (3, 4))
    x, t = _pair("binary_cross_entropy", shape, np.float32)
    a, b = torch.from_numpy(x), torch.from_numpy(t)
    w = None
    if case == "transposed":
        a, b = a.reshape(4, 3).t(), b.reshape(4, 3).t()
    elif case == "float16":
        a, b = a.half(), b.half()
    elif case == "weight":
        w = torch.ones(3, 4)
    n = LG.PAIR_COUNT[0]
    got = F.binary_cross_entropy(a, b, weight=w, reduction="none")
    assert LG.PAIR_COUNT[0] == n
    same(got, LP._BCE([a, b, 1.0 if w is None else w]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(3, 4), (7,), (2, 3, 5)])
def test_bce_with_logits_elements_by_the_engines_kernel(dtype, reduction, shape):
    from numtorch.ops.nn import loss_pointwise as LP

    x, t = _pair("mse_loss", shape, dtype, special=False)
    x.flat[:4] = [0.0, -0.0, 40.0, -800.0]
    x.flat[4], t.flat[5] = np.inf, 1.0
    a, b = torch.from_numpy(x * 10), torch.from_numpy(t)
    n = LG.PAIR_COUNT[0]
    got = F.binary_cross_entropy_with_logits(a, b, reduction=reduction)
    assert LG.PAIR_COUNT[0] == n + 1
    elems = LP._BCE_LOGITS_NO_PW([a, b, 1.0])  # the engine's general route
    same(got, LP._reduce(elems, {"none": 0, "mean": 1, "sum": 2}[reduction]))


@pytest.mark.parametrize("case", ["weight", "pos_weight", "mixed dtypes", "transposed"])
def test_bce_with_logits_other_inputs_take_the_engine(case):
    a, b = torch.randn(3, 4), torch.rand(3, 4)
    kw = {}
    if case == "weight":
        kw["weight"] = torch.rand(3, 4)
    elif case == "pos_weight":
        kw["pos_weight"] = torch.rand(4)
    elif case == "mixed dtypes":
        b = b.double()
    else:
        a, b = a.t(), b.t()
    n = LG.PAIR_COUNT[0]
    F.binary_cross_entropy_with_logits(a, b, **kw)
    assert LG.PAIR_COUNT[0] == n
