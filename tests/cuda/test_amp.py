"""amp on CUDA: autocast("cuda") casts the ops on PyTorch's CUDA lists (Note [Autocast key]),
compared with the same ops on float16/float32 CPU copies, and GradScaler("cuda") scales, unscales
and skips inf steps with its scale and flags on the device (Note [Scale on the device])."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


def test_autocast_cuda_is_enabled_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with numtorch.autocast("cuda"):
            assert numtorch.is_autocast_enabled("cuda")
        with numtorch.cuda.amp.autocast():
            assert numtorch.is_autocast_enabled()
    assert not numtorch.is_autocast_enabled("cuda")


# the simulator computes with NumPy scalars, in its own threads: inf * 0 warns there
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_grad_scaler_on_cuda_tensors():
    p = numtorch.nn.Parameter(numtorch.ones(3, device="cuda", dtype=numtorch.float64))
    opt = numtorch.optim.SGD([p], lr=0.5)
    scaler = numtorch.amp.GradScaler("cuda", init_scale=4.0)
    assert scaler.is_enabled()
    scaler.scale((p * numtorch.tensor([1.0, 2.0, 3.0], device="cuda", dtype=numtorch.float64)).sum()).backward()
    np.testing.assert_allclose(p.grad.cpu().numpy(), [4.0, 8.0, 12.0])
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.5, 0.0, -0.5])
    opt.zero_grad()
    scaler.scale(p.sum() * float("inf")).backward()
    scaler.step(opt)  # skipped: inf gradients
    scaler.update()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.5, 0.0, -0.5])
    assert scaler.get_scale() == 2.0


def _pair(*shape, dtype=numtorch.float32):
    x = numtorch.randn(*shape, dtype=dtype)
    return x, x.cuda()


@pytest.mark.parametrize("name", ["linear", "matmul", "bmm", "addmm", "baddbmm"])
def test_lower_precision_ops_run_in_float16_as_cpu_half(name):
    numtorch.manual_seed(0)
    F = numtorch.nn.functional
    calls = {
        "linear": (F.linear, [(4, 8), (3, 8), (3,)]),
        "matmul": (numtorch.matmul, [(4, 8), (8, 3)]),
        "bmm": (numtorch.bmm, [(2, 4, 8), (2, 8, 3)]),
        "addmm": (numtorch.addmm, [(4, 3), (4, 8), (8, 3)]),
        "baddbmm": (numtorch.baddbmm, [(2, 4, 3), (2, 4, 8), (2, 8, 3)]),
    }
    fn, shapes = calls[name]
    pairs = [_pair(*s) for s in shapes]
    with numtorch.autocast("cuda"):
        got = fn(*[c for _, c in pairs])
    assert got.dtype is numtorch.float16 and got.is_cuda
    want = fn(*[h.half() for h, _ in pairs])  # what autocast means: the op on float16 copies
    np.testing.assert_allclose(got.cpu().float().numpy(), want.float().numpy(), rtol=2e-3, atol=2e-3)


def test_float32_ops_upcast_float16_inputs():
    F = numtorch.nn.functional
    h, c = _pair(3, 5, dtype=numtorch.float16)
    target = numtorch.tensor([0, 4, 2], device="cuda")
    with numtorch.autocast("cuda"):
        outs = {
            "softmax": F.softmax(c, -1), "log_softmax": F.log_softmax(c, 1), "exp": c.exp(),
            "sum": c.sum(), "layer_norm": F.layer_norm(c, (5,)), "cross_entropy": F.cross_entropy(c, target),
            "mse_loss": F.mse_loss(c, c), "pow": c.pow(2),
        }  # fmt: skip
        assert (c + c).dtype is numtorch.float16  # not listed: runs in its inputs' dtype
    for name, got in outs.items():
        assert got.dtype is numtorch.float32, name
    np.testing.assert_allclose(outs["softmax"].cpu().numpy(), F.softmax(h.float(), -1).numpy(), rtol=1e-5)
    want = F.cross_entropy(h.float(), target.cpu())
    np.testing.assert_allclose(outs["cross_entropy"].cpu().numpy(), want.numpy(), rtol=1e-5)


def test_promote_float64_and_nesting():
    h = numtorch.ones(3, device="cuda", dtype=numtorch.float16)
    f = numtorch.ones(3, device="cuda")
    d = numtorch.ones(2, 2, device="cuda", dtype=numtorch.float64)
    with numtorch.autocast("cuda"):
        assert numtorch.addcmul(h, h, h).dtype is numtorch.float16
        assert numtorch.addcmul(h, f, h).dtype is numtorch.float32  # promote: the widest operand
        assert (d @ d).dtype is numtorch.float64  # float64 is never cast
        with numtorch.autocast("cuda", enabled=False):
            assert (f.reshape(3, 1) @ f.reshape(1, 3)).dtype is numtorch.float32
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            numtorch.nn.functional.binary_cross_entropy(f.sigmoid(), f)
    assert (f.reshape(3, 1) @ f.reshape(1, 3)).dtype is numtorch.float32


def test_autocast_gradients_reach_float32_parameters_and_casts_are_cached():
    numtorch.manual_seed(0)
    lin = numtorch.nn.Linear(8, 3).cuda()
    x = numtorch.randn(4, 8, device="cuda")
    with numtorch.autocast("cuda"):
        a, b = lin(x), lin(x)
        assert a.dtype is numtorch.float16
        cast_of_bias = [t.grad_fn.next_functions[0][0] for t in (a, b)]  # addmm(bias, x, weight.t())
        assert type(cast_of_bias[0]).__name__ == "ToCopyBackward0" and cast_of_bias[0] is cast_of_bias[1]
        loss = numtorch.nn.functional.cross_entropy(a, numtorch.tensor([0, 1, 2, 0], device="cuda"))
    loss.backward()
    assert lin.weight.grad.dtype is numtorch.float32 and lin.weight.grad.is_cuda
    cpu = numtorch.nn.Linear(8, 3)
    cpu.load_state_dict({k: v.cpu() for k, v in lin.state_dict().items()})
    ref = numtorch.nn.functional.cross_entropy(
        numtorch.nn.functional.linear(x.cpu().half(), cpu.weight.half(), cpu.bias.half()).float(),
        numtorch.tensor([0, 1, 2, 0]))  # fmt: skip
    ref.backward()
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-3)
    np.testing.assert_allclose(lin.weight.grad.cpu().numpy(), cpu.weight.grad.numpy(), rtol=2e-2, atol=2e-3)


def test_amp_ops_unscale_and_update_on_device():
    g = [numtorch.tensor([2.0, 4.0], device="cuda"), numtorch.tensor([float("inf")], device="cuda")]
    found = numtorch.zeros(1, device="cuda")
    inv = numtorch.full((1,), 0.5, device="cuda")
    numtorch._amp_foreach_non_finite_check_and_unscale_(g[:1], found, inv)
    assert g[0].cpu().tolist() == [1.0, 2.0] and found.item() == 0.0
    numtorch._amp_foreach_non_finite_check_and_unscale_(g, found, inv)
    assert found.item() == 1.0
    scale = numtorch.full((1,), 8.0, device="cuda")
    tracker = numtorch.zeros(1, dtype=numtorch.int32, device="cuda")
    numtorch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 2)
    assert scale.item() == 4.0 and tracker.item() == 0
    found.zero_()
    for want in ((4.0, 1), (8.0, 0)):  # grows after growth_interval clean steps
        numtorch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 2)
        assert (scale.item(), tracker.item()) == want
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor"):
        numtorch._amp_update_scale_(scale, tracker, tracker, 2.0, 0.5, 2)
