"""The 3-D nn ops and modules (conv3d, conv_transpose3d, the 3-D pools and their modules) against torch:
values and gradients from the same inputs and weights, reprs, error messages."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
F, TF = numtorch.nn.functional, torch.nn.functional

_rng = np.random.default_rng(3)


def r(*s, low=-2.0, high=2.0):
    return _rng.uniform(low, high, s)


def _to(lib, a):
    if not isinstance(a, np.ndarray):
        return a
    return lib.from_numpy(a.copy()).requires_grad_(True)


CASES = [
    ("conv3d", lambda: [r(2, 4, 5, 6, 7), r(6, 4, 3, 2, 3), r(6)], {}),
    ("conv3d", lambda: [r(2, 4, 5, 6, 7), r(6, 2, 3, 3, 3)], {"stride": 2, "padding": (1, 0, 2), "groups": 2}),
    ("conv3d", lambda: [r(1, 2, 6, 5, 6), r(3, 2, 2, 3, 2), r(3)], {"dilation": (2, 1, 2), "padding": "same"}),
    ("conv3d", lambda: [r(3, 4, 4, 4), r(2, 3, 2, 2, 2)], {"padding": "valid"}),
    ("conv_transpose3d", lambda: [r(2, 4, 3, 4, 3), r(4, 3, 3, 2, 3), r(3)], {}),
    ("conv_transpose3d", lambda: [r(1, 4, 3, 3, 3), r(4, 2, 3, 3, 2), r(4)],
     {"stride": (2, 1, 3), "padding": 1, "output_padding": (1, 0, 2), "groups": 2}),
    ("conv_transpose3d", lambda: [r(4, 2, 3, 2), r(4, 2, 2, 2, 2)], {"dilation": 2}),
    ("max_pool3d", lambda: [r(2, 3, 5, 6, 7), 2], {}),
    ("max_pool3d", lambda: [r(2, 3, 5, 6, 7), (2, 3, 2)], {"stride": (1, 2, 2), "padding": 1, "dilation": (2, 1, 1), "ceil_mode": True}),
    ("max_pool3d", lambda: [r(3, 4, 4, 5), 3], {"stride": 2, "padding": 1}),
    ("avg_pool3d", lambda: [r(2, 3, 5, 6, 7), 3], {"stride": 2, "padding": 1}),
    ("avg_pool3d", lambda: [r(2, 3, 5, 6, 7), (2, 3, 2)], {"stride": (1, 2, 3), "padding": (1, 1, 0), "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool3d", lambda: [r(3, 4, 4, 5), 2], {"divisor_override": 3}),
    ("adaptive_avg_pool3d", lambda: [r(2, 3, 5, 6, 7), (3, 4, 5)], {}),
    ("adaptive_avg_pool3d", lambda: [r(3, 7, 5, 4), (2, None, 3)], {}),
    ("adaptive_max_pool3d", lambda: [r(2, 3, 5, 6, 7), (3, 4, 5)], {}),
    ("adaptive_max_pool3d", lambda: [r(3, 4, 6, 5), 2], {}),
    ("lp_pool3d", lambda: [r(2, 3, 4, 5, 6, low=0.1), 2.0, 2], {"stride": 1}),
    ("lp_pool3d", lambda: [r(1, 2, 4, 4, 4, low=0.1), 3.0, (2, 2, 3)], {"ceil_mode": True}),
]  # fmt: skip


@pytest.mark.parametrize(
    "name,kw", [("max_pool3d", {"kernel_size": (2, 3, 2), "stride": 1, "padding": 1}),
                ("max_pool3d_with_indices", {"kernel_size": 2, "dilation": 2}),
                ("adaptive_max_pool3d", {"output_size": (2, 3, 1)}),
                ("adaptive_max_pool3d_with_indices", {"output_size": 3})],
)  # fmt: skip
def test_pool_indices_match_torch(name, kw):
    x = r(2, 3, 5, 6, 7)
    if name.startswith("max_pool3d") and name == "max_pool3d":
        kw = {**kw, "return_indices": True}
    if name == "adaptive_max_pool3d":
        kw = {**kw, "return_indices": True}
    got = getattr(F, name)(numtorch.from_numpy(x), **kw)
    want = getattr(TF, name)(torch.from_numpy(x), **kw)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    assert got[1].dtype is numtorch.int64


def test_int64_pools_match_torch():
    x = _rng.integers(-50, 50, (2, 3, 4, 5, 6))
    for fn, kw in (("max_pool3d", {"kernel_size": 2}), ("avg_pool3d", {"kernel_size": 3, "stride": 1, "padding": 1})):
        got, want = getattr(F, fn)(numtorch.from_numpy(x), **kw), getattr(TF, fn)(torch.from_numpy(x), **kw)
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_values_and_gradients_match_torch(case):
    name, make, kw = case
    args = make()
    na, ta = [_to(numtorch, a) for a in args], [_to(torch, a) for a in args]
    got, want = getattr(F, name)(*na, **kw), getattr(TF, name)(*ta, **kw)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-11)
    g = _rng.standard_normal(tuple(want.shape))
    got.backward(numtorch.from_numpy(g))
    want.backward(torch.from_numpy(g))
    for x, y in zip(na, ta, strict=True):
        if isinstance(y, torch.Tensor):
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_float32_conv3d_close_to_torch():
    x, w = r(2, 3, 6, 6, 6).astype(np.float32), r(4, 3, 3, 3, 3).astype(np.float32)
    got = F.conv3d(numtorch.from_numpy(x), numtorch.from_numpy(w), stride=2, padding=1)
    want = TF.conv3d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1)
    assert got.dtype is numtorch.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


MODULES = [
    ("Conv3d", (2, 4, 3), {"padding": 1}, (2, 2, 4, 5, 3)),
    ("Conv3d", (4, 4, (1, 2, 3)), {"stride": 2, "groups": 2, "bias": False}, (1, 4, 4, 5, 6)),
    ("Conv3d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (1, 2, 4, 4, 4)),
    ("ConvTranspose3d", (2, 4, 3), {"stride": 2, "output_padding": 1}, (1, 2, 3, 2, 3)),
    ("ConvTranspose3d", (4, 2, 2), {"groups": 2, "dilation": (1, 2, 1)}, (2, 4, 2, 3, 2)),
    ("MaxPool3d", (2,), {"stride": 1, "padding": 1}, (2, 3, 3, 4, 5)),
    ("MaxPool3d", ((2, 1, 2),), {"ceil_mode": True}, (3, 5, 4, 5)),
    ("AvgPool3d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}, (2, 3, 5, 4, 5)),
    ("AvgPool3d", (2,), {"divisor_override": 5}, (2, 4, 4, 4)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 3, 5, 4, 7)),
    ("AdaptiveMaxPool3d", (2,), {}, (2, 3, 5, 4, 7)),
    ("LPPool3d", (2, 2), {"stride": 1}, (1, 2, 3, 4, 3)),
]  # fmt: skip


@pytest.mark.parametrize("name,args,kw,shape", MODULES, ids=lambda v: v if isinstance(v, str) else "")
def test_modules_match_torch(name, args, kw, shape):
    nm, tm = getattr(numtorch.nn, name)(*args, **kw).double(), getattr(torch.nn, name)(*args, **kw).double()
    assert repr(nm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in nm.named_parameters()] == [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    x = r(*shape, low=0.1 if name.startswith("LP") else -2.0)
    xn, xt = numtorch.from_numpy(x.copy()).requires_grad_(True), torch.from_numpy(x.copy()).requires_grad_(True)
    got, want = nm(xn), tm(xt)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-11)
    got.sum().backward(), want.sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    for (_, p), (_, q) in zip(nm.named_parameters(), tm.named_parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_convtranspose3d_output_size_matches_torch():
    kw = {"stride": 2}
    nm, tm = numtorch.nn.ConvTranspose3d(1, 1, 3, **kw).double(), torch.nn.ConvTranspose3d(1, 1, 3, **kw).double()
    nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    x = r(1, 1, 2, 3, 2)
    got = nm(numtorch.from_numpy(x), output_size=[6, 8, 5])
    want = tm(torch.from_numpy(x), output_size=[6, 8, 5])
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)


ERRORS = [
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3), L.zeros(1, 2, 2, 2, 2)),
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(1, 3, 2, 2, 2)),
    lambda L, F: F.conv3d(L.zeros(1, 2, 2, 2, 2), L.zeros(1, 2, 3, 3, 3)),
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(1, 2, 2, 2, 2), stride=0),
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(1, 2, 2, 2, 2), L.zeros(2)),
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(1, 2, 2, 2, 2), stride=2, padding="same"),
    lambda L, F: F.conv3d(L.zeros(1, 2, 3, 3, 3, 3), L.zeros(1, 2, 2, 2, 2)),
    lambda L, F: F.conv_transpose3d(L.zeros(1, 2, 3, 3, 3), L.zeros(3, 2, 2, 2, 2)),
    lambda L, F: F.conv_transpose3d(L.zeros(1, 2, 1, 1, 1), L.zeros(2, 2, 1, 1, 1), padding=1),
    lambda L, F: F.max_pool3d(L.zeros(2, 3, 3), 2),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3), (2, 2)),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3), 2, stride=(1, 1)),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3), 2, padding=2),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 1, 3, 3), 2),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3), 0),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3), 2, dilation=0),
    lambda L, F: F.max_pool3d(L.zeros(1, 2, 3, 3, 3, dtype=L.bool), 2),
    lambda L, F: F.avg_pool3d(L.zeros(2, 3, 3), 2),
    lambda L, F: F.avg_pool3d(L.zeros(1, 2, 3, 3, 3), (2, 2)),
    lambda L, F: F.avg_pool3d(L.zeros(1, 2, 1, 3, 3), 2),
    lambda L, F: F.avg_pool3d(L.zeros(1, 2, 3, 3, 3), 2, padding=2),
    lambda L, F: F.avg_pool3d(L.zeros(1, 2, 3, 3, 3), 2, divisor_override=0),
    lambda L, F: F.adaptive_avg_pool3d(L.zeros(2, 3, 3), 2),
    lambda L, F: F.adaptive_avg_pool3d(L.zeros(1, 0, 3, 3, 3), 2),
    lambda L, F: F.adaptive_avg_pool3d(L.zeros(1, 2, 3, 3, 3), (2, 2)),
    lambda L, F: F.adaptive_max_pool3d(L.zeros(2, 3, 3), 2),
    lambda L, F: F.adaptive_max_pool3d(L.zeros(1, 2, 0, 3, 3), 2),
    lambda L, F: F.adaptive_max_pool3d(L.zeros(1, 2, 3, 3, 3), -1),
    lambda L, F: F.adaptive_avg_pool3d(L.zeros(1, 2, 3, 3, 3, dtype=L.int64), 2),
    lambda L, F: F.adaptive_max_pool3d(L.zeros(1, 2, 3, 3, 3, dtype=L.int64), 2),
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


LAZY = [
    ("LazyLinear", (3,), (2, 5)), ("LazyConv1d", (4, 3), (2, 2, 6)), ("LazyConv2d", (4, 3), (2, 2, 6, 6)),
    ("LazyConv3d", (4, 2), (2, 2, 4, 4, 4)), ("LazyConvTranspose1d", (4, 3), (2, 2, 6)),
    ("LazyConvTranspose2d", (4, 3, 2), (2, 2, 3, 3)), ("LazyConvTranspose3d", (4, 2), (2, 2, 3, 3, 3)),
    ("LazyBatchNorm1d", (), (4, 3)), ("LazyBatchNorm2d", (), (4, 3, 2, 2)), ("LazyBatchNorm3d", (), (4, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (4, 3, 5)), ("LazyInstanceNorm2d", (), (4, 3, 2, 2)),
    ("LazyInstanceNorm3d", (), (4, 3, 2, 2, 2)),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")
@pytest.mark.parametrize("name,args,shape", LAZY, ids=[c[0] for c in LAZY])
def test_lazy_modules_match_torch(name, args, shape):
    nm, tm = getattr(numtorch.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(nm) == repr(tm)
    assert [(k, type(v).__name__) for k, v in nm.state_dict().items()] == [
        (k, type(v).__name__) for k, v in tm.state_dict().items()
    ]
    x = r(*shape).astype(np.float32)
    tout = tm(torch.from_numpy(x))
    nm(numtorch.from_numpy(x))  # materialize, then take torch's initial values
    assert repr(nm) == repr(tm)
    tm.eval(), nm.eval()
    tout = tm(torch.from_numpy(x))
    nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    nout = nm(numtorch.from_numpy(x))
    assert type(nm).__name__ == type(tm).__name__
    np.testing.assert_allclose(nout.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-5)
