"""nn.utils.parametrize and nn.utils.parametrizations: registration, caching, assignment through
right_inverse, removal, state dicts, gradients, and the built-in orthogonal / weight_norm /
spectral_norm maps checked against NumPy."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.nn.utils import parametrizations as PZ
from numtorch.nn.utils import parametrize as P


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Double(nn.Module):
    def forward(self, X):
        return 2 * X


def _lin(n=3, m=3):
    return nn.Linear(n, m, dtype=numtorch.float64)


def test_register_makes_a_parametrized_subclass_and_moves_the_original():
    m = _lin()
    w0 = m.weight.detach().numpy().copy()
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert P.type_before_parametrizations(m) is nn.Linear
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    np.testing.assert_allclose(m.parametrizations.weight.original.detach().numpy(), np.triu(w0))
    W = m.weight.detach().numpy()
    np.testing.assert_allclose(W, W.T)


def test_gradient_reaches_the_original():
    m = P.register_parametrization(_lin(), "weight", Symmetric())
    x = numtorch.randn(4, 3, dtype=numtorch.float64)
    m(x).sum().backward()
    # d/dA of sum(x @ (triu(A) + triu(A,1)^T)^T): the symmetric fold of the plain weight gradient
    gw = np.ones((4, 3)).T @ x.numpy()
    want = np.triu(gw) + np.triu(gw.T, 1)
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), want, rtol=1e-12)


def test_assignment_goes_through_right_inverse_and_chained_parametrizations_compose():
    m = P.register_parametrization(_lin(), "weight", Symmetric())
    m.weight = numtorch.eye(3, dtype=numtorch.float64) * 3
    np.testing.assert_allclose(m.weight.detach().numpy(), 3 * np.eye(3))
    P.register_parametrization(m, "weight", Double())
    np.testing.assert_allclose(m.weight.detach().numpy(), 6 * np.eye(3))
    assert len(m.parametrizations.weight) == 2
    with pytest.raises(RuntimeError, match="parametrization Double does not implement right_inverse"):
        m.weight = numtorch.eye(3, dtype=numtorch.float64)


def test_cached_computes_once_per_block():
    calls = []

    class Count(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    m = P.register_parametrization(_lin(), "weight", Count())
    calls.clear()
    with P.cached():
        a, b = m.weight, m.weight
        assert a is b
    assert len(calls) == 1
    m.weight, m.weight
    assert len(calls) == 3


def test_remove_keeps_value_or_original_and_restores_the_class():
    m = P.register_parametrization(_lin(), "weight", Double())
    orig = m.parametrizations.weight.original.detach().numpy().copy()
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    np.testing.assert_allclose(m.weight.detach().numpy(), orig)
    P.register_parametrization(m, "weight", Double())
    P.remove_parametrizations(m, "weight")
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * orig)
    assert isinstance(m.weight, nn.Parameter)


def test_shape_and_dtype_changes_are_refused_unless_unsafe():
    class Cut(nn.Module):
        def forward(self, X):
            return X[:1]

    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        P.register_parametrization(_lin(), "weight", Cut())
    m = P.register_parametrization(_lin(), "weight", Cut(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        P.register_parametrization(_lin(), "nope", Double())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(_lin(), "weight")


def test_state_dict_round_trip_deepcopy_and_pickle_refusal():
    m = P.register_parametrization(_lin(), "weight", Symmetric())
    m2 = P.register_parametrization(_lin(), "weight", Symmetric())
    m2.load_state_dict(m.state_dict())
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    m3 = copy.deepcopy(m)
    np.testing.assert_array_equal(m3.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through state_dict"):
        pickle.dumps(m)


def test_transfer_parametrizations_and_params():
    a = P.register_parametrization(_lin(), "weight", Symmetric())
    b = P.transfer_parametrizations_and_params(a, _lin())
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape, orthogonal_map, use_trivialization):
    m = nn.Module()
    m.weight = nn.Parameter(numtorch.randn(*shape, dtype=numtorch.float64))
    PZ.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    W = m.weight.detach().numpy()
    G = W @ np.swapaxes(W, -1, -2) if shape[-2] <= shape[-1] else np.swapaxes(W, -1, -2) @ W
    np.testing.assert_allclose(G, np.broadcast_to(np.eye(min(shape[-2:])), G.shape), atol=1e-10)
    m.weight.sum().backward()
    assert np.isfinite(m.parametrizations.weight.original.grad.numpy()).all()


def test_orthogonal_assignment_keeps_an_orthogonal_value():
    m = PZ.orthogonal(_lin(4, 4))
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    m.weight = numtorch.from_numpy(Q)
    np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-10)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
        PZ.orthogonal(_lin(), "bias")


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_values_against_numpy(dim):
    m = PZ.weight_norm(_lin(4, 3), dim=dim)
    g = m.parametrizations.weight.original0.detach().numpy()
    v = m.parametrizations.weight.original1.detach().numpy()
    if dim is None:
        want = v * (g / np.linalg.norm(v))
    else:
        want = v * (g / np.linalg.norm(v, axis=1 - dim, keepdims=True))
    np.testing.assert_allclose(m.weight.detach().numpy(), want, rtol=1e-12)


def test_weight_norm_loads_an_old_style_state_dict():
    m = PZ.weight_norm(_lin(4, 3))
    g, v = numtorch.full((3, 1), 2.0, dtype=numtorch.float64), numtorch.ones(3, 4, dtype=numtorch.float64)
    m.load_state_dict({"weight_g": g, "weight_v": v, "bias": numtorch.zeros(3, dtype=numtorch.float64)})
    np.testing.assert_allclose(m.weight.detach().numpy(), np.ones((3, 4)))


def test_spectral_norm_divides_by_the_largest_singular_value():
    numtorch.manual_seed(0)
    m = PZ.spectral_norm(nn.Linear(6, 5, dtype=numtorch.float64), n_power_iterations=50)
    W = m.parametrizations.weight.original.detach().numpy()
    np.testing.assert_allclose(m.weight.detach().numpy(), W / np.linalg.svd(W, compute_uv=False)[0], rtol=1e-8)
    m.eval()
    u = m.parametrizations.weight[0]._u.clone()
    m.weight
    np.testing.assert_array_equal(m.parametrizations.weight[0]._u.numpy(), u.numpy())
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        PZ.spectral_norm(_lin(), n_power_iterations=0)
