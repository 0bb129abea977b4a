"""nn.utils parametrizations (orthogonal, weight_norm, spectral_norm, parametrize) against torch:
state-dict layouts, values and gradients from the same originals."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(5)


def _pair(make):
    tm, nm = make(torch).double(), make(numtorch).double()
    nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    return tm, nm


def _check_forward_backward(tm, nm, shape):
    x = _rng.standard_normal(shape)
    a, b = nm(numtorch.from_numpy(x)), tm(torch.from_numpy(x))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    a.sum().backward(), b.sum().backward()
    for (n1, p), (n2, q) in zip(nm.named_parameters(), tm.named_parameters(), strict=True):
        assert n1 == n2
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    tm, nm = _pair(lambda L: L.nn.utils.parametrizations.weight_norm(L.nn.Linear(4, 3), dim=dim))
    assert list(nm.state_dict()) == list(tm.state_dict())
    _check_forward_backward(tm, nm, (2, 4))


@pytest.mark.parametrize("mod", ["Linear", "Conv2d", "ConvTranspose2d"])
def test_spectral_norm_matches_torch(mod):
    make = {"Linear": lambda L: L.nn.Linear(5, 4), "Conv2d": lambda L: L.nn.Conv2d(2, 3, 2),
            "ConvTranspose2d": lambda L: L.nn.ConvTranspose2d(2, 3, 2)}[mod]  # fmt: skip
    shape = (2, 5) if mod == "Linear" else (1, 2, 4, 4)
    tm, nm = _pair(lambda L: L.nn.utils.parametrizations.spectral_norm(make(L)))
    assert list(nm.state_dict()) == list(tm.state_dict())
    for training in (True, False):
        tm.train(training), nm.train(training)
        _check_forward_backward(tm, nm, shape)
        np.testing.assert_allclose(nm.parametrizations.weight[0]._u.numpy(),
                                   tm.parametrizations.weight[0]._u.numpy(), rtol=1e-10, atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_without_trivialization_matches_torch(orthogonal_map, shape):
    if orthogonal_map != "householder" and shape[0] != shape[1]:
        shape = (4, 4)
    make = lambda L: L.nn.utils.parametrizations.orthogonal(  # noqa: E731
        L.nn.Linear(shape[1], shape[0]).double(), orthogonal_map=orthogonal_map, use_trivialization=False)
    tm, nm = _pair(make)
    assert list(nm.state_dict()) == list(tm.state_dict())
    np.testing.assert_allclose(nm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-9, atol=1e-11)
    _check_forward_backward(tm, nm, (2, shape[1]))


def test_orthogonal_square_with_trivialization_matches_torch():
    w = _rng.standard_normal((4, 4))
    res = []
    for L in (torch, numtorch):
        m = L.nn.Linear(4, 4).double()
        with L.no_grad():
            m.weight.copy_(L.from_numpy(w.copy()))
        L.nn.utils.parametrizations.orthogonal(m)
        res.append((m.weight.detach().numpy().copy(), m.parametrizations.weight[0].base.numpy().copy(),
                    m.parametrizations.weight.original.detach().numpy().copy()))  # fmt: skip
    for a, b in zip(*res, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_parametrize_state_dict_and_repr_match_torch():
    def make(L):
        class Sym(L.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

        m = L.nn.Linear(3, 3)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Sym())
        return m

    tm, nm = _pair(make)
    assert list(nm.state_dict()) == list(tm.state_dict())
    assert repr(nm) == repr(tm)
    _check_forward_backward(tm, nm, (2, 3))


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_weight_norm_and_spectral_norm_match_torch():
    for wrap in ("weight_norm", "spectral_norm"):
        tm, nm = _pair(lambda L, w=wrap: getattr(L.nn.utils, w)(L.nn.Linear(5, 4)))
        assert list(nm.state_dict()) == list(tm.state_dict())
        for training in (True, False):
            tm.train(training), nm.train(training)
            x = _rng.standard_normal((2, 5))
            np.testing.assert_allclose(nm(numtorch.from_numpy(x)).detach().numpy(),
                                       tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-10, atol=1e-12)  # fmt: skip
        getattr(numtorch.nn.utils, "remove_" + wrap)(nm), getattr(torch.nn.utils, "remove_" + wrap)(tm)
        assert list(nm.state_dict()) == list(tm.state_dict())
        np.testing.assert_allclose(nm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_fusion_matches_torch():
    tm, nm = _pair(lambda L: L.nn.Sequential(L.nn.Conv2d(2, 3, 2), L.nn.BatchNorm2d(3)))
    for m in (tm, nm):
        m.eval()
    fused_t = torch.nn.utils.fuse_conv_bn_eval(tm[0], tm[1])
    fused_n = numtorch.nn.utils.fuse_conv_bn_eval(nm[0], nm[1])
    np.testing.assert_allclose(fused_n.weight.detach().numpy(), fused_t.weight.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(fused_n.bias.detach().numpy(), fused_t.bias.detach().numpy(), rtol=1e-12)
