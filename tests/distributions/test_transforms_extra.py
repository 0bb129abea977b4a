"""numtorch/distributions/_transforms_extra.py and constraints.MixtureSameFamilyConstraint:
round trips, codomains, log|det J| against the Jacobian's determinant, gradients."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.autograd import gradcheck
from numtorch.distributions._transforms_extra import tril_matrix_to_vec

D = numtorch.distributions
T = D.transforms
F64 = numtorch.float64


def _x(*shape, seed=0):
    return numtorch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=F64)


def test_corr_cholesky_round_trip_codomain_and_log_det():
    t = T.CorrCholeskyTransform()
    x = _x(6)
    y = t(x)
    assert y.shape == (4, 4) and bool(D.constraints.corr_cholesky.check(y))
    np.testing.assert_allclose((y * y).sum(-1).numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-10)
    # log|det| of the map onto the free (strictly lower) entries
    h, eye = 1e-6, np.eye(6)
    jac = np.stack([(tril_matrix_to_vec(t(x + h * numtorch.tensor(e)), -1) - tril_matrix_to_vec(t(x - h * numtorch.tensor(e)), -1)).numpy() / (2 * h)
                    for e in eye], 1)  # fmt: skip
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).item(), np.linalg.slogdet(jac)[1], rtol=1e-6)
    assert gradcheck(lambda v: t(v), (_x(3).requires_grad_(),))
    assert t.forward_shape((2, 6)) == (2, 4, 4) and t.inverse_shape((2, 4, 4)) == (2, 6)


def test_cholesky_pd_reshape_round_trips():
    m = _x(2, 3, 3)
    lc, pd = T.LowerCholeskyTransform(), T.PositiveDefiniteTransform()
    assert bool(D.constraints.lower_cholesky.check(lc(m)).all()) and bool(D.constraints.positive_definite.check(pd(m)).all())
    np.testing.assert_allclose(pd.inv(pd(m)).numpy(), np.tril(m.numpy()), rtol=1e-10)
    r = T.ReshapeTransform((6,), (2, 3))
    x = _x(5, 6)
    assert r(x).shape == (5, 2, 3) and r.log_abs_det_jacobian(x, r(x)).shape == (5,)
    assert r.inverse_shape(r.forward_shape((5, 6))) == (5, 6)


def test_cat_stack_and_cdf_transforms():
    x = _x(2, 6)
    ct = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=1, lengths=[2, 4])
    np.testing.assert_allclose(ct(x)[:, :2].numpy(), np.exp(x[:, :2].numpy()))
    np.testing.assert_allclose(ct.inv(ct(x)).numpy(), x.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ct.log_abs_det_jacobian(x, ct(x))[:, :2].numpy(), x[:, :2].numpy())
    st = T.StackTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0)
    assert st(x)[1].tolist() == (1 + 2 * x[1]).tolist()
    cd = T.CumulativeDistributionTransform(D.Normal(numtorch.tensor(0.0, dtype=F64), numtorch.tensor(1.0, dtype=F64)))
    np.testing.assert_allclose(cd.inv(cd(x)).numpy(), x.numpy(), rtol=1e-9)


def test_mixture_same_family_constraint():
    c = D.constraints.MixtureSameFamilyConstraint(D.constraints.positive)
    assert c.check(numtorch.tensor([[1.0, 2.0], [-1.0, 3.0]])).tolist() == [[True, True], [False, True]]
    assert repr(c) == "MixtureSameFamilyConstraint(GreaterThan(lower_bound=0.0))" or repr(c).startswith("MixtureSameFamilyConstraint(")
