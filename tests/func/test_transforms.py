"""numtorch.func transforms against finite differences, explicit loops and each other (float64)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap


def _x(*shape, seed=0):
    return nt.tensor(np.random.default_rng(seed).standard_normal(shape))


def _f(x):
    return (x.sin() * x.exp()).sum() + (x * x).sum() ** 2


def _fd_grad(f, x, eps=1e-6):
    a = x.numpy().copy()
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        p, m = a.copy(), a.copy()
        p[i] += eps
        m[i] -= eps
        g[i] = (f(nt.tensor(p)).item() - f(nt.tensor(m)).item()) / (2 * eps)
    return g


def test_grad_matches_finite_differences():
    x = _x(4)
    np.testing.assert_allclose(grad(_f)(x).numpy(), _fd_grad(_f, x), rtol=1e-6, atol=1e-8)


def test_grad_argnums_has_aux_and_value():
    x, y = _x(3), _x(3, seed=1)
    gx, gy = grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx.numpy(), y.numpy())
    np.testing.assert_allclose(gy.numpy(), x.numpy())
    g, aux = grad(lambda a: ((a * a).sum(), "aux"), has_aux=True)(x)
    assert aux == "aux"
    g2, v = grad_and_value(lambda a: (a * a).sum())(x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    np.testing.assert_allclose(v.item(), (x.numpy() ** 2).sum())
    assert not g2.requires_grad and not v.requires_grad


def test_grad_errors_for_non_scalar_output():
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda a: a * 2)(_x(3))


def test_nested_grad_has_no_perturbation_confusion():
    x = nt.tensor(3.0, dtype=nt.float64)
    # d/dx [x * d/dy(x*y)] = d/dx [x * x] = 2x
    assert grad(lambda x: x * grad(lambda y: x * y)(x))(x).item() == pytest.approx(6.0)
    assert grad(lambda x: grad(lambda y: x * y)(x))(x).item() == pytest.approx(1.0)
    assert grad(grad(lambda x: x**3))(x).item() == pytest.approx(18.0)


def test_vjp_and_jvp_match_jacobian():
    x, v = _x(4), _x(4, seed=2)
    jac = jacrev(lambda a: a.sin() * a.sum())(x).numpy()
    out, fn = vjp(lambda a: a.sin() * a.sum(), x)
    np.testing.assert_allclose(fn(v)[0].numpy(), v.numpy() @ jac, rtol=1e-10)
    _, t = jvp(lambda a: a.sin() * a.sum(), (x,), (v,))
    np.testing.assert_allclose(t.numpy(), jac @ v.numpy(), rtol=1e-10)
    # jacrev column = finite-difference gradient of each output
    for i in range(4):
        np.testing.assert_allclose(jac[i], _fd_grad(lambda a: (a.sin() * a.sum())[i], x), rtol=1e-5, atol=1e-8)


def test_jacfwd_equals_jacrev_and_hessian_compositions():
    x = _x(3)
    np.testing.assert_allclose(jacfwd(nt.tanh)(x).numpy(), jacrev(nt.tanh)(x).numpy(), rtol=1e-12)
    h = hessian(_f)(x).numpy()
    np.testing.assert_allclose(h, jacrev(jacrev(_f))(x).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, jacfwd(grad(_f))(x).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)
    fd = np.stack([_fd_grad(lambda a, i=i: grad(_f)(a)[i], x) for i in range(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def test_jvp_of_grad_is_hessian_vector_product():
    x, v = _x(3), _x(3, seed=3)
    _, hv = jvp(grad(_f), (x,), (v,))
    np.testing.assert_allclose(hv.numpy(), hessian(_f)(x).numpy() @ v.numpy(), rtol=1e-10)


def test_vmap_matches_python_loop():
    x, y = _x(5, 3, 4), _x(4, 2, seed=1)

    def f(a):
        return (F.relu(a @ y).sum(0) + a.mean()).softmax(-1)

    ref = nt.stack([f(x[i]) for i in range(5)])
    np.testing.assert_allclose(vmap(f)(x).numpy(), ref.numpy(), rtol=1e-12)
    np.testing.assert_allclose(vmap(f, in_dims=1, out_dims=1)(x.transpose(0, 1)).numpy(), ref.t().numpy(), rtol=1e-12)
    np.testing.assert_allclose(vmap(f, chunk_size=2)(x).numpy(), ref.numpy(), rtol=1e-12)


def test_vmap_in_dims_pytrees_and_nested_vmap():
    x = _x(3, 4)
    out = vmap(lambda d, s: d["a"] * s + d["b"], in_dims=({"a": 0, "b": None}, None))({"a": x, "b": x[0]}, 2.0)
    np.testing.assert_allclose(out.numpy(), x.numpy() * 2 + x.numpy()[0])
    outer = vmap(vmap(lambda a, b: nt.dot(a, b)), in_dims=(0, None))(_x(2, 3, 4), _x(3, 4, seed=1))
    assert outer.shape == (2, 3)


def test_vmap_errors_like_pytorch():
    x = _x(3, 2)
    with pytest.raises(RuntimeError, match="calling .item\\(\\)"):
        vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(lambda a: a if a.sum() > 0 else -a)(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: a + nt.randn(2))(x)
    with pytest.raises(RuntimeError, match="being vmapped over but `self` not"):
        y = nt.zeros(2, dtype=nt.float64)
        vmap(lambda a: y.add_(a))(x)
    with pytest.raises(ValueError, match="Expected all tensors to have the same size"):
        vmap(nt.add)(_x(3), _x(4))


def test_vmap_randomness_same_and_different():
    x = nt.zeros(4, 3)
    same = vmap(lambda a: a + nt.rand(3), randomness="same")(x)
    diff = vmap(lambda a: a + nt.rand(3), randomness="different")(x)
    assert (same == same[0]).all().item()
    assert not (diff == diff[0]).all().item()


def test_vmap_inplace_on_batched_tensor():
    x = _x(3, 2)
    y = x.clone()
    vmap(lambda a: a.mul_(2))(y)
    np.testing.assert_allclose(y.numpy(), 2 * x.numpy())


def test_loop_fallback_warns_once_and_matches():
    x = _x(3, 5)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = vmap(lambda a: nt.kthvalue(a.unsqueeze(0), 2, 1)[0])(x)
    ref = nt.stack([nt.kthvalue(x[i].unsqueeze(0), 2, 1)[0] for i in range(3)])
    np.testing.assert_allclose(out.numpy(), ref.numpy())
    assert len(w) <= 1


def test_per_sample_grads_of_mlp_match_autograd_loop():
    nt.manual_seed(0)
    model = nt.nn.Sequential(nt.nn.Linear(6, 5), nt.nn.ReLU(), nt.nn.Linear(5, 3)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _x(4, 6), nt.tensor([0, 2, 1, 2])

    def loss(p, xb, yb):
        return F.cross_entropy(functional_call(model, p, (xb.unsqueeze(0),)), yb.unsqueeze(0))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(4):
        ref = nt.autograd.grad(F.cross_entropy(model(x[i : i + 1]), y[i : i + 1]), list(model.parameters()))
        for (name, _), r in zip(model.named_parameters(), ref):
            np.testing.assert_allclose(g[name][i].numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


def test_grad_of_vmap_and_vmap_of_jacrev():
    x = _x(3, 2)
    g = grad(lambda a: vmap(lambda r: (r.sin() * r).sum())(a).sum())(x)
    np.testing.assert_allclose(g.numpy(), (np.sin(x.numpy()) + x.numpy() * np.cos(x.numpy())), rtol=1e-12)
    j = vmap(jacrev(nt.sin))(x)
    np.testing.assert_allclose(j.numpy(), np.stack([np.diag(np.cos(r)) for r in x.numpy()]), rtol=1e-12)
