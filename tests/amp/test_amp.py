"""numtorch.amp: autocast state (Note [Autocast state]), GradScaler, custom_fwd/bwd."""

from __future__ import annotations

import pytest

import numtorch


def test_autocast_sets_and_restores_state():
    assert not numtorch.is_autocast_enabled("cpu")
    with numtorch.autocast("cpu", dtype=numtorch.float16):
        assert numtorch.is_autocast_enabled("cpu")
        assert numtorch.get_autocast_dtype("cpu") is numtorch.float16
        with numtorch.autocast("cpu", enabled=False):
            assert not numtorch.is_autocast_enabled("cpu")
        assert numtorch.is_autocast_enabled("cpu")
    assert not numtorch.is_autocast_enabled("cpu")


def test_autocast_as_decorator():
    @numtorch.amp.autocast("cpu", dtype=numtorch.float16)
    def f():
        return numtorch.is_autocast_enabled("cpu")

    assert f() is True
    assert not numtorch.is_autocast_enabled("cpu")


def test_unsupported_cpu_dtype_warns_and_disables():
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes"):
        with numtorch.autocast("cpu", dtype=numtorch.float64):
            assert not numtorch.is_autocast_enabled("cpu")


def test_cuda_autocast_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with numtorch.autocast("cuda"):
            assert not numtorch.is_autocast_enabled("cuda")


def test_bad_device_type():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta device type"):
        numtorch.autocast("foo")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        numtorch.autocast(3)


def test_cpu_grad_scaler_scales_unscales_and_skips_inf_steps():
    p = numtorch.nn.Parameter(numtorch.ones(2))
    opt = numtorch.optim.SGD([p], lr=1.0)
    s = numtorch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)
    loss = s.scale(p.sum())
    assert loss.item() == 8.0
    loss.backward()
    s.step(opt)
    assert p.grad.tolist() == [1.0, 1.0] and p.tolist() == [0.0, 0.0]
    s.update()
    assert s.get_scale() == 8.0
    opt.zero_grad()
    (s.scale(p.sum()) * float("inf")).backward()
    s.step(opt)
    assert p.tolist() == [0.0, 0.0]
    s.update()
    assert s.get_scale() == 4.0
    assert s.state_dict()["scale"] == 4.0


def test_unscale_twice_raises():
    p = numtorch.nn.Parameter(numtorch.ones(1))
    opt = numtorch.optim.SGD([p], lr=1.0)
    s = numtorch.amp.GradScaler("cpu")
    s.scale(p.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)


def test_custom_fwd_casts_inputs_inside_autocast():
    class F(numtorch.autograd.Function):
        @staticmethod
        @numtorch.amp.custom_fwd(device_type="cpu", cast_inputs=numtorch.float64)
        def forward(ctx, x):
            ctx.seen = (x.dtype, numtorch.is_autocast_enabled("cpu"))
            return x * 2

        @staticmethod
        @numtorch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            return g * 2

    x = numtorch.ones(2, requires_grad=True)
    with numtorch.autocast("cpu", dtype=numtorch.float16):
        y = F.apply(x)
    assert y.dtype is numtorch.float64
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_cpu_autocast_applies_the_cpu_lists_and_removes_its_key_after():
    F = numtorch.nn.functional
    x, w = numtorch.randn(4, 8), numtorch.randn(3, 8, requires_grad=True)
    mm = numtorch.ops.aten.mm.default
    with numtorch.autocast("cpu", dtype=numtorch.float16):
        y = F.linear(x, w)
        assert y.dtype is numtorch.float16 and (x @ w.t()).dtype is numtorch.float16
        assert F.softmax(y, -1).dtype is numtorch.float16  # on CUDA's float32 list, not on CPU's
        assert F.cross_entropy(y, numtorch.tensor([0, 1, 2, 0])).dtype is numtorch.float32
        assert numtorch.cat([y, x[:, :3]]).dtype is numtorch.float32  # promote
        assert (x.double() @ x.double().t()).dtype is numtorch.float64
        assert numtorch.mm(x.long(), x.long().t()).dtype is numtorch.int64
        assert mm.fast.__qualname__.startswith("_wrap")
    y.sum().backward()
    assert w.grad.dtype is numtorch.float32
    assert not mm.fast.__qualname__.startswith("_wrap")  # Note [Autocast key]: nothing left behind
    assert (x @ w.t()).dtype is numtorch.float32


def test_amp_update_scale_follows_pytorch_rule():
    scale, tracker = numtorch.tensor([4.0]), numtorch.tensor([0], dtype=numtorch.int32)
    found = numtorch.tensor([0.0])
    seen = []
    for inf in (0.0, 0.0, 1.0, 0.0):
        found.fill_(inf)
        numtorch._amp_update_scale_(scale, tracker, found, 2.0, 0.25, 2)
        seen.append((scale.item(), tracker.item()))
    assert seen == [(4.0, 1), (8.0, 0), (2.0, 0), (2.0, 1)]
    big = numtorch.tensor([3e38])
    numtorch._amp_update_scale_(big, numtorch.tensor([1], dtype=numtorch.int32), found.zero_(), 2.0, 0.5, 2)
    assert big.item() == numtorch.tensor(3e38).item()  # a grown scale that overflows is not taken
