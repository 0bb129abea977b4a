"""vmap's randomness= for random ops on batched and plain tensors (Note [vmap randomness]), and
second derivatives of prod/cumprod through zeros (jvp of grad, hessian)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.func import grad, hessian, jacfwd, jacrev, jvp, vmap

M = nt.ones(3)
P = nt.full((3,), 0.5)
# (name, function of one per-sample vector, batched result shape for a batch of 4)
CASES = [
    ("rand", lambda v: nt.rand(3), (4, 3)),
    ("randint", lambda v: nt.randint(0, 1000, (3,)), (4, 3)),
    ("randperm", lambda v: nt.randperm(30), (4, 30)),
    ("normal", lambda v: nt.normal(0.0, 1.0, (3,)), (4, 3)),
    ("rand_like plain", lambda v: nt.rand_like(M), (4, 3)),
    ("rand_like batched", lambda v: nt.rand_like(v), (4, 3)),
    ("randint_like batched", lambda v: nt.randint_like(v, 1000), (4, 3)),
    ("bernoulli plain", lambda v: nt.bernoulli(P), (4, 3)),
    ("bernoulli batched", lambda v: nt.bernoulli(v * 0.5), (4, 3)),
    ("normal batched mean", lambda v: nt.normal(v, 1.0), (4, 3)),
    ("multinomial batched", lambda v: nt.multinomial(v, 2), (4, 2)),
    ("normal_ plain", lambda v: nt.ones(3).normal_(), (4, 3)),
    ("normal_ batched", lambda v: (v * 1).normal_(), (4, 3)),
    ("dropout batched", lambda v: F.dropout(v, 0.5), (4, 3)),
    ("dropout plain", lambda v: F.dropout(M, 0.5), (4, 3)),
    ("alpha_dropout plain", lambda v: F.alpha_dropout(M, 0.5, training=True), (4, 3)),
    ("dropout1d batched", lambda v: F.dropout1d(v.reshape(3, 1), 0.5), (4, 3, 1)),
    ("dropout1d plain", lambda v: F.dropout1d(M.reshape(3, 1), 0.5), (4, 3, 1)),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, f, shape", CASES, ids=IDS)
def test_error_mode_raises_for_every_random_op(name, f, shape):
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        vmap(f)(nt.ones(4, 3))


@pytest.mark.parametrize("name, f, shape", CASES, ids=IDS)
def test_different_gives_each_sample_its_own_draw(name, f, shape):
    if name == "normal_ plain":
        with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on an unbatched"):
            vmap(f, randomness="different")(nt.ones(4, 3))
        return
    nt.manual_seed(0)
    r = vmap(f, randomness="different")(nt.ones(4, 3))
    assert tuple(r.shape) == shape
    assert not (r == r[0]).all().item()


@pytest.mark.parametrize("name, f, shape", CASES, ids=IDS)
def test_same_shares_one_draw(name, f, shape):
    batched_input = name in ("bernoulli batched", "normal batched mean", "multinomial batched")
    if batched_input:
        with pytest.raises(RuntimeError, match="does not currently support same randomness with a batched"):
            vmap(f, randomness="same")(nt.ones(4, 3))
        return
    nt.manual_seed(0)
    r = vmap(f, randomness="same")(nt.ones(4, 3))
    assert tuple(r.shape) == shape
    assert (r == r[0]).all().item()
    if "dropout" not in name:
        assert not (r[0] == r[0][0]).all().item()  # still random within a sample


def test_inplace_dropout_of_a_plain_tensor_needs_same_randomness():
    with pytest.raises(RuntimeError, match=r"vmap: inplace arithmetic\(self, \*extra_args\) is not possible"):
        vmap(lambda v: F.dropout(M.clone(), 0.5, inplace=True) + v, randomness="different")(nt.ones(4, 3))
    r = vmap(lambda v: F.dropout(M.clone(), 0.5, inplace=True) + v, randomness="same")(nt.ones(4, 3))
    assert (r == r[0]).all().item()


def test_nested_levels_apply_their_own_randomness():
    x = nt.ones(2, 3, 4)
    for outer, inner in [("different", "same"), ("same", "different")]:
        r = vmap(vmap(lambda v: nt.rand(4) + v, randomness=inner), randomness=outer)(x)
        assert tuple(r.shape) == (2, 3, 4)
        assert bool((r[0, 0] != r[1, 0]).any().item()) == (outer == "different")
        assert bool((r[0, 0] != r[0, 1]).any().item()) == (inner == "different")


def test_random_ops_outside_vmap_keep_the_fast_path():
    nt.manual_seed(3)
    a = nt.rand_like(M)
    nt.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), nt.rand_like(M).numpy())


# ---- prod / cumprod through zeros -----------------------------------------------------------
def _prod_hessian(x):
    # d2/dxi dxj prod(x) = prod of the others over i != j, 0 on the diagonal
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                h[i, j] = np.prod([x[k] for k in range(n) if k not in (i, j)])
    return h


@pytest.mark.parametrize("vals", [[1.0, 2.0, 3.0], [0.0, 2.0, 3.0], [2.0, 0.0, 3.0, 5.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
def test_second_derivatives_of_prod_through_zeros(vals):
    x = nt.tensor(vals, dtype=nt.float64)
    t = nt.arange(1.0, len(vals) + 1, dtype=nt.float64)
    h = _prod_hessian(vals)
    np.testing.assert_allclose(hessian(nt.prod)(x).numpy(), h, atol=1e-12)
    np.testing.assert_allclose(jvp(grad(nt.prod), (x,), (t,))[1].numpy(), h @ t.numpy(), atol=1e-12)
    np.testing.assert_allclose(jacfwd(jacrev(lambda v: v.prod(0)))(x).numpy(), h, atol=1e-12)


def test_cumprod_double_backward_through_zeros():
    for vals in ([1.0, 0.0, 2.0, 3.0], [0.0, 2.0, 0.0, 4.0]):
        x = nt.tensor(vals, dtype=nt.float64, requires_grad=True)
        assert nt.autograd.gradgradcheck(lambda v: v.cumprod(0), (x,))
        assert nt.autograd.gradgradcheck(lambda v: v.prod(), (x,))
    x = nt.tensor([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]], dtype=nt.float64, requires_grad=True)
    assert nt.autograd.gradgradcheck(lambda v: v.cumprod(1), (x,))
