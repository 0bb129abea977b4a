"""prelu, channel_shuffle, local_response_norm, lp_pool1d/2d, dropout3d and their modules
against torch: values and gradients from the same inputs and weights, reprs, error messages."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
F, TF = numtorch.nn.functional, torch.nn.functional

_rng = np.random.default_rng(1)


def r(*s, low=-2.0, high=2.0):
    return _rng.uniform(low, high, s)


CASES = [
    ("prelu", lambda: [r(2, 3, 4), r(3)], {}),
    ("prelu", lambda: [r(2, 3, 4, 5), r(3)], {}),  # Note [Fused prelu]: the (N, C, rest) path
    ("prelu", lambda: [r(2, 3), r(1)], {}),
    ("prelu", lambda: [r(4), r(1)], {}),
    ("channel_shuffle", lambda: [r(2, 6, 3), 3], {}),
    ("local_response_norm", lambda: [r(2, 5, 3), 3], {"alpha": 0.5}),
    ("local_response_norm", lambda: [r(1, 6, 2, 3), 4], {"alpha": 0.3, "beta": 0.6, "k": 2.0}),
    ("local_response_norm", lambda: [r(1, 4, 2, 2, 3), 2], {}),
    ("lp_pool1d", lambda: [r(2, 3, 7, low=0.1), 2.0, 3], {"stride": 2, "ceil_mode": True}),
    ("lp_pool2d", lambda: [r(1, 2, 5, 5, low=0.1), 2.0, (2, 3)], {"stride": 1}),
    ("lp_pool2d", lambda: [r(2, 1, 4, 4), 1.0, 2], {}),
]


def _to(lib, a):
    if not isinstance(a, np.ndarray):
        return a
    return lib.from_numpy(a.copy()).requires_grad_(True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_values_and_gradients_match_torch(case):
    name, make, kw = case
    args = make()
    na, ta = [_to(numtorch, a) for a in args], [_to(torch, a) for a in args]
    got, want = getattr(F, name)(*na, **kw), getattr(TF, name)(*ta, **kw)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = _rng.standard_normal(tuple(want.shape))
    got.backward(numtorch.from_numpy(g))
    want.backward(torch.from_numpy(g))
    for x, y in zip(na, ta):
        if isinstance(y, torch.Tensor):
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9, atol=1e-12)


MODULES = [
    ("PReLU", (3,), {"init": 0.1}, (2, 3, 4)), ("PReLU", (), {}, (5,)), ("Softmax2d", (), {}, (2, 3, 4, 4)),
    ("ChannelShuffle", (2,), {}, (1, 4, 3)), ("LocalResponseNorm", (3,), {"k": 2.0}, (2, 5, 4)),
    ("LPPool1d", (2, 3), {"stride": 1}, (2, 3, 8)), ("LPPool2d", (1.5, (2, 2)), {}, (1, 2, 4, 6)),
    ("Dropout3d", (0.4,), {}, (2, 3, 2, 2, 2)),
]  # fmt: skip


@pytest.mark.parametrize("name,args,kw,shape", MODULES, ids=lambda v: v if isinstance(v, str) else "")
def test_modules_match_torch(name, args, kw, shape):
    nm, tm = getattr(numtorch.nn, name)(*args, **kw).double(), getattr(torch.nn, name)(*args, **kw).double()
    assert repr(nm) == repr(tm)
    assert [n for n, _ in nm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    nm.eval(), tm.eval()
    x = r(*shape, low=0.1)
    xn, xt = numtorch.from_numpy(x.copy()).requires_grad_(True), torch.from_numpy(x.copy()).requires_grad_(True)
    got, want = nm(xn), tm(xt)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    got.sum().backward(), want.sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (_, p), (_, q) in zip(nm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_dropout3d_zeroes_whole_channels_when_training():
    numtorch.manual_seed(0)
    out = F.dropout3d(numtorch.ones(8, 16, 2, 2, 2), 0.5).numpy()
    per_channel = out.reshape(8, 16, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert 0.2 < (per_channel[..., 0] == 0).mean() < 0.8


def test_native_channel_shuffle_matches_torch():
    x = r(1, 6, 2, 2)
    got = F.native_channel_shuffle(numtorch.from_numpy(x.copy()), 3)
    want = TF.native_channel_shuffle(torch.from_numpy(x.copy()), 3)  # torch gives it no derivative
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert numtorch.native_channel_shuffle is not None and torch.native_channel_shuffle is not None


ERRORS = [
    lambda L, F: F.channel_shuffle(L.zeros(2, 3), 1),
    lambda L, F: F.channel_shuffle(L.zeros(2, 3, 4), 0),
    lambda L, F: F.channel_shuffle(L.zeros(2, 3, 4), 2),
    lambda L, F: F.prelu(L.zeros(2, 3), L.ones(2)),
    lambda L, F: F.prelu(L.zeros(2, 3), L.ones(3, dtype=L.float64)),
    lambda L, F: F.prelu(L.zeros(2, 3), L.ones(3, 1)),
    lambda L, F: F.prelu(L.zeros(()), L.ones(3)),
    lambda L, F: F.local_response_norm(L.zeros(2, 3), 2),
    lambda L, F: L.nn.Softmax2d()(L.zeros(2, 3)),
]


def _outcome(lib, fn):
    try:
        fn(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _outcome(numtorch, ERRORS[i]) == _outcome(torch, ERRORS[i])


@pytest.mark.parametrize("name", ["ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "ConstantPad3d", "ZeroPad3d"])
@pytest.mark.parametrize("padding", [1, (1, 2, 0, 2, 2, 1), (0, -1, 1, 0, -1, 2)])
def test_pad3d_modules_match_torch(name, padding):
    if name == "CircularPad3d" and isinstance(padding, tuple) and min(padding) < 0:
        pytest.skip("torch's circular pad refuses negative padding differently; covered by F.pad tests")
    args = (padding, 0.5) if name == "ConstantPad3d" else (padding,)
    nm, tm = getattr(numtorch.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(nm) == repr(tm)
    x = r(2, 3, 3, 4, 5)
    xn, xt = numtorch.from_numpy(x.copy()).requires_grad_(True), torch.from_numpy(x.copy()).requires_grad_(True)
    got, want = nm(xn), tm(xt)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    g = _rng.standard_normal(tuple(want.shape))
    got.backward(numtorch.from_numpy(g)), want.backward(torch.from_numpy(g))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


PAD_ERRORS = [
    lambda L: L.nn.functional.pad(L.zeros(1, 2, 2, 2, 2), (2, 2, 0, 0, 0, 0), mode="reflect"),
    lambda L: L.nn.functional.pad(L.zeros(1, 2, 3, 3, 3), (0, 0, 0, 0, 3, 1), mode="reflect"),
    lambda L: L.nn.functional.pad(L.zeros(1, 2, 0, 3, 3), (0, 0, 0, 0, 1, 1), mode="replicate"),
]


@pytest.mark.parametrize("i", range(len(PAD_ERRORS)))
def test_pad3d_errors_match_torch(i):
    def outcome(lib):
        try:
            PAD_ERRORS[i](lib)
        except Exception as e:  # noqa: BLE001 - the comparison is the test
            return type(e).__name__, str(e)
        return "ok", ""

    assert outcome(numtorch) == outcome(torch)


@pytest.mark.parametrize("n,shape,kw", [(1, (2, 3, 8), {}), (2, (2, 3, 6, 8), {}), (2, (3, 6, 8), {"stride": 2}),
                                        (2, (2, 3, 6, 8), {"output_size": [7, 9]}), (3, (1, 2, 4, 4, 6), {})])  # fmt: skip
def test_max_unpool_matches_torch(n, shape, kw):
    x = torch.from_numpy(r(*shape))
    pooled, idx = getattr(TF, f"max_pool{n}d")(x, 2, return_indices=True)
    tm = getattr(torch.nn, f"MaxUnpool{n}d")(2, kw.get("stride"))
    nm = getattr(numtorch.nn, f"MaxUnpool{n}d")(2, kw.get("stride"))
    assert repr(nm) == repr(tm)
    pt = pooled.clone().requires_grad_(True)
    pn = numtorch.from_numpy(pooled.numpy().copy()).requires_grad_(True)
    want = tm(pt, idx, kw.get("output_size"))
    got = nm(pn, numtorch.from_numpy(idx.numpy().copy()), kw.get("output_size"))
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    g = _rng.standard_normal(tuple(want.shape))
    got.backward(numtorch.from_numpy(g)), want.backward(torch.from_numpy(g))
    np.testing.assert_array_equal(pn.grad.numpy(), pt.grad.numpy())


UNPOOL_ERRORS = [
    lambda L: L.nn.functional.max_unpool2d(L.ones(1, 1, 2, 2), L.tensor([[[[0, 1], [2, 99]]]]), 2),
    lambda L: L.nn.functional.max_unpool2d(L.ones(1, 1, 2, 2), L.zeros(1, 1, 2, 2, dtype=L.int64), 2, output_size=[9, 4]),
    lambda L: L.nn.functional.max_unpool2d(L.ones(1, 1, 2, 2), L.zeros(1, 1, 2, 2, dtype=L.int64), 2, output_size=[4]),
    lambda L: L.nn.functional.max_unpool2d(L.ones(1, 1, 2, 2), L.zeros(1, 1, 2, 1, dtype=L.int64), 2),
]


@pytest.mark.parametrize("i", range(len(UNPOOL_ERRORS)))
def test_max_unpool_errors_match_torch(i):
    def outcome(lib):
        try:
            UNPOOL_ERRORS[i](lib)
        except Exception as e:  # noqa: BLE001 - the comparison is the test
            return type(e).__name__, str(e)
        return "ok", ""

    assert outcome(numtorch) == outcome(torch)


def test_rrelu_eval_matches_torch_and_training_draws_slopes_in_bounds():
    x = r(4, 5)
    nm, tm = numtorch.nn.RReLU(0.1, 0.3).eval(), torch.nn.RReLU(0.1, 0.3).eval()
    assert repr(nm) == repr(tm) and repr(numtorch.nn.RReLU(inplace=True)) == repr(torch.nn.RReLU(inplace=True))
    xn, xt = numtorch.from_numpy(x.copy()).requires_grad_(True), torch.from_numpy(x.copy()).requires_grad_(True)
    got, want = nm(xn), tm(xt)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward(), want.sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    xn = numtorch.from_numpy(r(2000)).requires_grad_(True)
    y = F.rrelu(xn, 0.1, 0.3, training=True)
    y.sum().backward()
    ratio = (y / xn).detach().numpy()
    neg = xn.detach().numpy() <= 0
    assert 0.1 <= ratio[neg].min() and ratio[neg].max() <= 0.3 and np.ptp(ratio[neg]) > 0.15
    assert (ratio[~neg] == 1).all()
    np.testing.assert_allclose(xn.grad.numpy(), ratio)  # the drawn slope is the derivative


@pytest.mark.parametrize("name,kw,shape", [("BatchNorm3d", {}, (2, 3, 2, 3, 2)), ("BatchNorm3d", {"momentum": None}, (4, 3, 2, 1, 2)),
                                           ("InstanceNorm3d", {"affine": True, "track_running_stats": True}, (2, 3, 2, 3, 2)),
                                           ("InstanceNorm3d", {}, (3, 2, 3, 2))])  # fmt: skip
def test_norm3d_modules_match_torch_in_train_and_eval(name, kw, shape):
    nm, tm = getattr(numtorch.nn, name)(3, **kw).double(), getattr(torch.nn, name)(3, **kw).double()
    assert repr(nm) == repr(tm)
    assert list(nm.state_dict()) == list(tm.state_dict())
    with torch.no_grad():
        for p in tm.parameters():
            p.uniform_(0.5, 1.5)
    nm.load_state_dict({k: numtorch.from_numpy(v.numpy().copy()) for k, v in tm.state_dict().items()})
    for train in (True, False):
        nm.train(train), tm.train(train)
        x = r(*shape)
        xn, xt = numtorch.from_numpy(x.copy()).requires_grad_(True), torch.from_numpy(x.copy()).requires_grad_(True)
        got, want = nm(xn), tm(xt)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-10)
        (got * got).sum().backward(), (want * want).sum().backward()
        np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-9)
        for (_, p), (_, q) in zip(nm.named_parameters(), tm.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-9)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(nm.state_dict()[k].numpy(), v.numpy(), rtol=1e-9, atol=1e-10)
    with pytest.raises(ValueError, match="expected"):
        nm(numtorch.zeros(2, 3))
