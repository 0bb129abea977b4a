"""ConvolutionBackward0 as one joint formula (Note [Joint formulas' grad_input_mask]), the
backward body's geometry cache (Note [Convolution backward geometry]) and recorded
convolutions taking the planned forward steps (Note [Recorded convolutions take the planned
steps])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.autograd.graph import SavedTensor
from numtorch.ops.nn import conv, fast_conv
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def _t(*shape, dtype=torch.float32, seed=0):
    return torch.from_numpy(np.random.default_rng(seed + sum(shape)).standard_normal(shape)).to(
        dtype
    )


_CASES = [  # input shape, weight shape, bias, stride, padding, dilation, transposed, output_padding, groups
    ((1, 2, 4, 4), (3, 2, 2, 2), False, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), True, [2, 1], [1, 0], [1, 2], False, [0, 0], 2),
    ((3, 2, 9), (4, 2, 3), True, [2], [1], [1], False, [0], 1),
    ((2, 3, 4, 4), (3, 2, 3, 3), True, [2, 2], [1, 1], [1, 1], True, [1, 0], 1),
    ((2, 2, 5), (2, 3, 2), False, [1], [0], [2], True, [0], 1),
    ((1, 2, 1, 1), (3, 2, 1, 1), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),  # 1x1: no im2col
]


def _grads(case, needs, dtype=torch.float64, mode=None):
    xs, ws, has_b, *p = case
    x, w = _t(*xs, dtype=dtype), _t(*ws, dtype=dtype, seed=1)
    nb = ws[1] * p[-1] if p[3] else ws[0]
    b = _t(nb, dtype=dtype, seed=2) if has_b else None
    leaves = [t for t, n in zip((x, w, b), needs, strict=True) if t is not None and n]
    for t in leaves:
        t.requires_grad_()
    if mode is not None:
        with mode:
            out = torch.convolution(x, w, b, *p)
            g = torch.autograd.grad((out * out).sum(), leaves)
    else:
        out = torch.convolution(x, w, b, *p)
        g = torch.autograd.grad((out * out).sum(), leaves)
    return out.detach(), g


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "needs", [(True, True, True), (False, True, True), (True, False, False), (False, False, True)]
)
@pytest.mark.parametrize("case", _CASES)
def test_one_backward_call_for_the_inputs_that_need_it(case, needs, dtype, monkeypatch):
    if needs == (False, False, True) and not case[2]:
        pytest.skip("no bias: nothing needs a gradient")
    calls = []
    real = conv._convolution_backward_cpu
    monkeypatch.setattr(
        conv, "_convolution_backward_cpu", lambda *a: calls.append(list(a[-1])) or real(*a)
    )
    out, got = _grads(case, needs, dtype)
    has_b = case[2]
    assert calls == [[needs[0], needs[1], needs[2] and has_b]]
    # the same call dispatched (a mode sees it): the op's body, so the same bits
    del calls[:]
    log = _Log()
    out2, want = _grads(case, needs, dtype, log)
    assert log.ops.count("aten.convolution_backward.default") == 1
    assert out.numpy().tobytes() == out2.numpy().tobytes()
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.numpy().tobytes() == b.numpy().tobytes()


def test_gradients_against_a_numpy_reference():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((4, 3, 2, 3))
    go = rng.standard_normal((2, 4, 4, 2))
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    bt = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    F.conv2d(xt, wt, bt).backward(torch.tensor(go))
    gx, gw = np.zeros_like(x), np.zeros_like(w)
    for i in range(4):
        for j in range(2):
            patch = x[:, :, i : i + 2, j : j + 3]
            gw += np.einsum("no,nckl->ockl", go[:, :, i, j], patch)
            gx[:, :, i : i + 2, j : j + 3] += np.einsum("no,ockl->nckl", go[:, :, i, j], w)
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bt.grad.numpy(), go.sum((0, 2, 3)), rtol=1e-12)


def test_a_missing_gradient_takes_the_interpreted_apply():
    # apply(None) goes through OpNode._apply, which hands the formula the mask too
    x, w = _t(1, 2, 4, 4).requires_grad_(), _t(3, 2, 2, 2)
    node = F.conv2d(x, w).grad_fn
    gi, gw, gb = node.apply(None)
    assert gw is None and gb is None
    assert gi.shape == (1, 2, 4, 4) and not gi.detach().numpy().any()


@pytest.mark.parametrize("case", _CASES)
def test_double_backward(case):
    xs, ws, has_b, *p = case
    x = _t(*xs, dtype=torch.float64).requires_grad_()
    w = _t(*ws, dtype=torch.float64, seed=1).requires_grad_()
    assert torch.autograd.gradgradcheck(lambda a, b: torch.convolution(a, b, None, *p), (x, w))


def test_half_dtypes_and_errors_keep_the_ops():
    for dt in (torch.float16, torch.bfloat16):
        x, w = _t(1, 2, 4, 4, dtype=dt).requires_grad_(), _t(3, 2, 2, 2, dtype=dt)
        F.conv2d(x, w).sum().backward()
        want = F.conv2d(x.detach().float().requires_grad_(), w.float())
        assert x.grad.dtype == dt and x.grad.shape == x.shape
        assert np.isfinite(x.grad.float().numpy()).all() and want.shape == (1, 3, 3, 3)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        F.conv2d(_t(1, 2, 1, 1).requires_grad_(), _t(3, 2, 2, 2))


def test_a_registered_backward_kernel_is_called():
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(grad_output, input, weight, bias_sizes, *rest):
        seen.append(list(rest[-1]))
        return torch.zeros(input.shape), torch.zeros(weight.shape), None

    lib.impl("convolution_backward", kernel, "CPU")
    try:
        x, w = _t(1, 2, 4, 4).requires_grad_(), _t(3, 2, 2, 2).requires_grad_()
        F.conv2d(x, w).sum().backward()
        assert seen == [[True, True, False]]
        assert not x.grad.numpy().any() and not w.grad.numpy().any()
    finally:
        lib._destroy()


def test_backward_geometry_is_kept_per_shape_and_parameters(monkeypatch):
    made = []
    real = conv._Geom
    monkeypatch.setattr(conv, "_Geom", lambda *a: made.append(a) or real(*a))
    monkeypatch.setattr(conv, "_BWD_GEOM", {})
    go, x, w = _t(1, 3, 3, 3), _t(1, 2, 4, 4), _t(3, 2, 2, 2)
    args = [[1, 1], [0, 0], [1, 1], False, [0, 0], 1]
    first = conv._convolution_backward_cpu(go, x, w, None, *args, [True, True, True])
    again = conv._convolution_backward_cpu(go, x, w, None, *args, [True, True, True])
    assert len(made) == 1
    for a, b in zip(first, again, strict=True):
        assert a.numpy().tobytes() == b.numpy().tobytes()
    conv._convolution_backward_cpu(_t(1, 3, 5, 3), x, w, None, [1, 1], [1, 0], [1, 1], False, [0, 0], 1,
                                   [True, False, False])  # fmt: skip
    assert len(made) == 2  # other padding: its own geometry
    conv._convolution_backward_cpu(go, x, w, None, 1, 0, 1, False, 0, 1, [True, False, False])
    conv._convolution_backward_cpu(go, x, w, None, 1, 0, 1, False, 0, 1, [True, False, False])
    assert len(made) == 4  # int parameters: worked out each call
    assert len(conv._BWD_GEOM) == 2


def test_weight_gradient_of_one_sample_adds_to_zeros():
    # _gemm_nt's one-sample product keeps the loop's +0.0 start: -0.0 sums become 0.0
    a = np.array([[[[-0.0, 0.0]]]])
    b = np.array([[[[1.0, 1.0]]]])
    out = conv._gemm_nt(a, b)
    assert out.shape == (1, 1, 1) and np.signbit(out).sum() == 0
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1, 2, 3, 7)), rng.standard_normal((1, 2, 4, 7))
    want = np.zeros((2, 3, 4)) + np.matmul(a, b.transpose(0, 1, 3, 2)).sum(0)
    assert conv._gemm_nt(a, b).tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", _CASES)
def test_recorded_convolutions_take_the_planned_steps(case, dtype, monkeypatch):
    xs, ws, has_b, *p = case
    x, w = _t(*xs, dtype=dtype), _t(*ws, dtype=dtype, seed=1).requires_grad_()
    nb = ws[1] * p[-1] if p[3] else ws[0]
    b = _t(nb, dtype=dtype, seed=2) if has_b else None
    runs = []
    for name in ("_conv_run", "_convt_run"):
        real = getattr(fast_conv, name)
        monkeypatch.setattr(fast_conv, name, lambda *a, _r=real, _n=name: runs.append(_n) or _r(*a))
    got = torch.convolution(x, w, b, *p)
    assert got.grad_fn is not None
    if dtype in (torch.float32, torch.float64):  # half inputs may reach it as float32
        assert runs == ["_convt_run" if p[3] else "_conv_run"]
    route = conv.FORWARD_ROUTE[0]
    conv.FORWARD_ROUTE[0] = None
    try:
        want = torch.convolution(x, w, b, *p)
    finally:
        conv.FORWARD_ROUTE[0] = route
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.detach().float().numpy().tobytes() == want.detach().float().numpy().tobytes()


def test_recorded_convolution_errors_are_the_bodys():
    w = _t(3, 2, 2, 2).requires_grad_()
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        torch.convolution(_t(1, 2, 1, 4), w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 3 elements"):
        torch.convolution(_t(1, 2, 4, 4), w, _t(4), [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="non-positive stride"):
        torch.convolution(_t(1, 2, 4, 4), w, None, [0, 1], [0, 0], [1, 1], False, [0, 0], 1)


_RECORDED = [  # conv1d/conv2d calls: input shape, weight shape, bias, stride, padding, dilation, groups
    ((1, 2, 4, 4), (3, 2, 2, 2), False, 1, 0, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), True, (2, 1), [1, 0], (1, 2), 2),
    ((3, 2, 9), (4, 2, 3), True, 2, [1], 1, 1),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("case", _RECORDED)
def test_recorded_conv_calls_dispatch_convolution_directly(case, dtype, monkeypatch):
    xs, ws, has_b, s, p, d, g = case
    fn = F.conv2d if len(xs) == 4 else F.conv1d

    def run():
        x = _t(*xs, dtype=dtype).requires_grad_()
        w = torch.nn.Parameter(_t(*ws, dtype=dtype, seed=1))
        b = _t(ws[0], dtype=dtype, seed=2).requires_grad_() if has_b else None
        out = fn(x, w, b, s, p, d, g)
        saved = {k: v for k, v in out.grad_fn._saved.items() if not isinstance(v, SavedTensor)}
        out.sum().backward()
        grads = [t.grad for t in (x, w, b) if t is not None]
        return out, grads, saved

    taken = []
    real = fast_conv._recorded
    monkeypatch.setattr(fast_conv, "_recorded", lambda *a: taken.append(real(*a)) or taken[-1])
    got, got_g, got_s = run()
    assert type(got.grad_fn).__name__ == "ConvolutionBackward0"
    routed = taken[0] is not None
    assert routed == (dtype is not torch.float16)
    monkeypatch.setattr(fast_conv, "_recorded", lambda *a: None)  # the composite's call
    want, want_g, want_s = run()
    assert got_s == want_s and len(got_s) == 6  # stride ... groups: the composite's values
    assert all(v.__class__ is want_s[k].__class__ for k, v in got_s.items())
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.detach().float().numpy().tobytes() == want.detach().float().numpy().tobytes()
    for a, b in zip(got_g, want_g, strict=True):
        assert a.float().numpy().tobytes() == b.float().numpy().tobytes()


def test_recorded_conv_calls_decline_where_something_would_see_them():
    x, w = _t(1, 2, 4, 4).requires_grad_(), _t(3, 2, 2, 2)
    with _Log():
        assert fast_conv._recorded(x, w, None, 1, 0, 1, 1) is None  # a mode sees the composite
    assert fast_conv._recorded(x, w, None, 1.0, 0, 1, 1) is None  # a float stride: the body's error
    assert fast_conv._recorded(x.double(), w, None, 1, 0, 1, 1) is None  # mixed dtypes
    assert fast_conv._recorded(x[0], w, None, 1, 0, 1, 1) is None  # unbatched
    with torch.no_grad():
        assert fast_conv._recorded(x, w, None, 1, 0, 1, 1) is None
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("conv2d", lambda *a: seen.append(1) or torch.zeros(1, 3, 3, 3), "CPU")
    try:
        assert fast_conv._recorded(x, w, None, 1, 0, 1, 1) is None
    finally:
        lib._destroy()
