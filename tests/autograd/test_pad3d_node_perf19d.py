"""Note [3-d padding as one gather]: F.pad's 3-d reflect/replicate modes run aten's
reflection_pad3d / replication_pad3d, one node whose backward is the *_backward op (it was
three index_selects), checked against NumPy: values, gradients in the output's C order,
dtypes, errors, meta shapes, vmap, modes and registered kernels."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F

from ._spy import OpLog as _Log

_OP = {"reflect": "reflection_pad3d", "replicate": "replication_pad3d"}
_NODE = {"reflect": "ReflectionPad3DBackward0", "replicate": "ReplicationPad3DBackward0"}
_CASES = [
    ((1, 2, 3, 4, 3), (1, 2, 2, 1, 0, 2)),  # the sweep's sample
    ((2, 3, 2, 3), (2, 1, 0, 1, 1, 1)),  # 4-D: no batch
    ((2, 2, 5, 6, 7), (4, 3, 5, 2, 1, 4)),
    ((1, 2, 3, 4, 3), (-1, -1, 0, 1, 1, -2)),  # negative padding crops
    ((0, 2, 3, 4, 3), (1, 1, 1, 1, 1, 1)),  # an empty batch
    ((1, 1, 3, 4, 3), (-2, -1, 0, 0, 0, 0)),  # an empty output
]


def _maps(shape, pad, mode):
    """Per padded dim (D, H, W), the input position of each output position."""
    out = []
    for k in (2, 1, 0):
        s, lo, hi = shape[-3 + (2 - k)], pad[2 * k], pad[2 * k + 1]
        i = np.arange(-lo, s + hi)
        out.append(
            (s - 1) - np.abs((s - 1) - np.abs(i)) if mode == "reflect" else np.clip(i, 0, s - 1)
        )
    return out


def _ref_forward(a, pad, mode):
    md, mh, mw = _maps(a.shape, pad, mode)
    return a[..., md[:, None, None], mh[None, :, None], mw[None, None, :]]


def _ref_backward(g, shape, pad, mode):
    """zeros, then each output position's gradient added in C order (PyTorch's CPU loop)."""
    md, mh, mw = _maps(shape, pad, mode)
    out = np.zeros(shape, g.dtype)
    lead = int(np.prod(shape[:-3]))  # -1 fails when empty
    o2, g2 = out.reshape(lead, *shape[-3:]), g.reshape(lead, *g.shape[-3:])
    for n in range(o2.shape[0]):
        for d, sd in enumerate(md):
            for h, sh in enumerate(mh):
                for w, sw in enumerate(mw):
                    o2[n, sd, sh, sw] += g2[n, d, h, w]
    return out


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", _CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_node_with_numpys_values_and_gradient(mode, shape, pad, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(dtype)
    x = torch.tensor(a, requires_grad=True)
    y = F.pad(x, pad, mode=mode)
    assert type(y.grad_fn).__name__ == _NODE[mode]
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]
    want = _ref_forward(a, pad, mode)
    assert y.shape == want.shape and y.is_contiguous()
    np.testing.assert_array_equal(y.detach().numpy(), want)
    g = rng.standard_normal(want.shape).astype(dtype)
    y.backward(torch.tensor(g))
    assert x.grad.dtype == x.dtype
    assert x.grad.numpy().tobytes() == _ref_backward(g, shape, pad, mode).tobytes()


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize(
    "dtype",
    [
        torch.float16,
        torch.bfloat16,
        torch.complex64,
        torch.int64,
        torch.int32,
        torch.uint8,
        torch.int8,
    ],
)
def test_other_dtypes_forward_and_backward_op(mode, dtype):
    shape, pad = (2, 2, 3, 4, 3), (1, 2, 2, 1, 0, 2)
    x = (torch.arange(144).reshape(shape) % 7).to(dtype)
    y = F.pad(x, pad, mode=mode)
    assert y.dtype == dtype
    wide = torch.complex128 if dtype.is_complex else torch.float64  # small ints: every sum exact
    np.testing.assert_array_equal(y.to(wide).numpy(), _ref_forward(x.to(wide).numpy(), pad, mode))
    g = (torch.arange(y.numel()).reshape(y.shape) % 5).to(dtype)
    gi = getattr(torch.ops.aten, _OP[mode] + "_backward")(g, x, pad)
    assert gi.dtype == dtype and gi.shape == x.shape
    np.testing.assert_array_equal(
        gi.to(wide).numpy(), _ref_backward(g.to(wide).numpy(), shape, pad, mode)
    )


def test_half_gradient_sums_in_half_in_order():
    # float16 takes np.add.at: the same C order, each sum rounded to half as PyTorch's kernel does
    shape, pad = (1, 1, 3, 3, 3), (2, 2, 2, 2, 2, 2)
    x = torch.zeros(shape, dtype=torch.float16, requires_grad=True)
    y = F.pad(x, pad, mode="replicate")
    g = np.random.default_rng(1).standard_normal(y.shape).astype(np.float16) * 100
    y.backward(torch.tensor(g))
    assert x.grad.numpy().tobytes() == _ref_backward(g, shape, pad, "replicate").tobytes()
    big = torch.full(y.shape, 60000.0, dtype=torch.float16)
    with np.errstate(all="raise"):  # an overflow is inf without a NumPy warning
        gi = torch.ops.aten.replication_pad3d_backward(big, x.detach(), pad)
    assert torch.isinf(gi).any()


def test_non_contiguous_input_and_gradient():
    base = torch.randn(2, 3, 5, 4, 6, dtype=torch.float64)
    x = base.transpose(2, 4)[:, ::2]  # (2, 2, 6, 4, 5), strided
    pad = (1, 2, 0, 3, 2, 1)
    y = F.pad(x, pad, mode="reflect")
    np.testing.assert_array_equal(y.numpy(), _ref_forward(x.numpy(), pad, "reflect"))
    g = torch.randn(y.shape[::-1], dtype=torch.float64).permute(4, 3, 2, 1, 0)
    gi = torch.ops.aten.reflection_pad3d_backward(g, x, pad)
    assert gi.is_contiguous()
    assert gi.numpy().tobytes() == _ref_backward(g.numpy(), x.shape, pad, "reflect").tobytes()


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_gradcheck_and_gradgradcheck(mode):
    x = torch.randn(2, 2, 3, 4, 3, dtype=torch.float64, requires_grad=True)
    for pad in ((1, 2, 2, 1, 0, 2), (-1, 1, 2, -1, 1, 0)):
        f = lambda v, p=pad: F.pad(v, p, mode=mode)  # noqa: E731
        assert torch.autograd.gradcheck(f, (x,))
        assert torch.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_a_mode_sees_the_aten_ops_forward_and_backward(mode):
    x = torch.randn(1, 2, 3, 4, 3, requires_grad=True)
    with _Log() as log:
        y = F.pad(x, (1, 2, 2, 1, 0, 2), mode=mode)
        y.backward(torch.ones(y.shape))
    assert f"aten.{_OP[mode]}.default" in log.calls
    assert f"aten.{_OP[mode]}_backward.default" in log.calls
    assert not any("index_select" in s or "index_add" in s for s in log.calls)


def test_the_fast_call_and_the_body_agree_byte_for_byte():
    # F.pad's fast call (ops/nn/fast_nn.py) gathers the same flat index; the body runs under a mode
    for dt in (torch.float32, torch.float64):
        x = torch.randn(2, 2, 3, 4, 3, dtype=dt)
        for mode in ("reflect", "replicate"):
            want = F.pad(x, (1, 2, 2, 1, 0, 2), mode=mode)
            with _Log():
                got = F.pad(x, (1, 2, 2, 1, 0, 2), mode=mode)
            assert got.numpy().tobytes() == want.numpy().tobytes()


def test_registered_kernels_are_called():
    x = torch.randn(1, 2, 3, 4, 3, requires_grad=True)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    lib.impl(
        "reflection_pad3d", lambda s, p: seen.append("fwd") or torch.zeros(1, 2, 5, 7, 6), "CPU"
    )
    lib.impl(
        "reflection_pad3d_backward",
        lambda g, s, p: seen.append("bwd") or torch.ones(s.shape),
        "CPU",
    )
    try:
        y = F.pad(x.detach(), (1, 2, 2, 1, 0, 2), mode="reflect")
        assert y.abs().sum().item() == 0
        y = F.pad(x, (1, 2, 2, 1, 0, 2), mode="reflect")
        y.sum().backward()
    finally:
        lib._destroy()
    assert seen == ["fwd", "fwd", "bwd"]
    assert x.grad.numpy().tolist() == np.ones((1, 2, 3, 4, 3)).tolist()


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_meta_tensors_forward_and_backward(mode):
    x = torch.empty(2, 2, 3, 4, 3, device="meta", requires_grad=True)
    y = F.pad(x, (1, 2, 2, 1, 0, 2), mode=mode)
    assert y.device.type == "meta" and tuple(y.shape) == (2, 2, 5, 7, 6)
    y.sum().backward()
    assert x.grad.device.type == "meta" and tuple(x.grad.shape) == (2, 2, 3, 4, 3)
    for n, pad in ((1, (1, 2)), (2, (1, 2, 2, 1))):  # the 1-d/2-d backward ops' meta shapes too
        v = torch.empty((2, 3, 4, 5)[: n + 2], device="meta", requires_grad=True)
        F.pad(v, pad, mode=mode).sum().backward()
        assert tuple(v.grad.shape) == tuple(v.shape)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_vmap(mode):
    xb = torch.randn(4, 2, 3, 4, 3)
    f = lambda t: F.pad(t, (1, 2, 2, 1, 0, 2), mode=mode)  # noqa: E731
    assert torch.equal(torch.vmap(f)(xb), f(xb))
    got = torch.vmap(f, in_dims=1)(xb)
    assert torch.equal(got, f(xb.movedim(1, 0)))
    g = torch.func.grad(lambda t: f(t).pow(2).sum())
    xs = torch.randn(3, 1, 2, 3, 4, 3, dtype=torch.float64)
    want = torch.stack([g(v) for v in xs])
    assert torch.allclose(torch.vmap(g)(xs), want)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_dtype_errors(mode):
    name = _OP[mode]
    with pytest.raises(NotImplementedError, match=f"\"{name}\" not implemented for 'Bool'"):
        F.pad(torch.ones(1, 2, 3, 4, 3, dtype=torch.bool), (1,) * 6, mode=mode)
    with pytest.raises(NotImplementedError, match=f"\"{name}\" not implemented for 'UInt16'"):
        F.pad(torch.ones(1, 2, 3, 4, 3, dtype=torch.uint16), (1,) * 6, mode=mode)
    b = getattr(torch.ops.aten, name + "_backward")
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        b(torch.ones(1, 2, 5, 6, 5), torch.ones(1, 2, 3, 4, 3, dtype=torch.float64), (1,) * 6)


def test_errors():
    x = torch.ones(1, 2, 3, 4, 3)
    msg = "Argument #{}: Padding size should be less than the corresponding input dimension, but got: padding {} at dimension {} of input \\[1, 2, 3, 4, 3\\]"
    for pad, arg, p, d in (((1, 3, 0, 0, 0, 0), 4, (1, 3), 4), ((0, 0, 4, 0, 0, 0), 6, (4, 0), 3),
                           ((0, 0, 0, 0, 0, 3), 8, (0, 3), 2)):  # fmt: skip
        with pytest.raises(RuntimeError, match=msg.format(arg, f"\\({p[0]}, {p[1]}\\)", d)):
            F.pad(x, pad, mode="reflect")
    F.pad(x, (3, 3, 4, 0, 0, 3), mode="replicate")  # replicate has no limit
    for mode in ("reflect", "replicate"):
        with pytest.raises(
            RuntimeError, match=r"Expected 4D or 5D \(batch mode\) tensor with possibly 0 batch"
        ):
            F.pad(torch.ones(1, 2, 3, 0, 3), (1,) * 6, mode=mode)
        with pytest.raises(RuntimeError, match=r"negative dimension -1: \[1, 2, 3, 4, -1\]"):
            F.pad(x, (-2, -2, 0, 0, 0, 0), mode=mode)
        op = getattr(torch.ops.aten, _OP[mode])
        with pytest.raises(RuntimeError, match="padding size is expected to be 6, but got: 5"):
            op(x, (1,) * 5)
        with pytest.raises(RuntimeError, match=r"but got: \[3, 4, 3\]"):
            op(torch.ones(3, 4, 3), (1,) * 6)
    for mode, gname in (("reflect", "grad_output"), ("replicate", "gradOutput")):
        b = getattr(torch.ops.aten, _OP[mode] + "_backward")
        for shape, what, e, g in (((1, 2, 5, 6, 4), "width", 5, 4), ((1, 2, 5, 5, 5), "height", 6, 5),
                                  ((1, 2, 4, 6, 5), "depth", 5, 4)):  # fmt: skip
            with pytest.raises(
                RuntimeError, match=f"{gname} {what} unexpected. Expected: {e}, Got: {g}"
            ):
                b(torch.ones(shape), x, (1,) * 6)
