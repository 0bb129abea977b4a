"""vmap's batching rules and randomness against torch.vmap on the same inputs (float64)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

B = 3
RNG = np.random.default_rng(21)
A = {
    "x3": RNG.standard_normal((B, 2, 4, 7)), "w": RNG.standard_normal((6, 4, 3)),
    "bw": RNG.standard_normal((B, 6, 4, 3)), "bwg": RNG.standard_normal((B, 6, 2, 3)),
    "bias": RNG.standard_normal(6), "logits": RNG.standard_normal((B, 5, 5)),
    "t": np.array([[1, 0, 3, 3, 2], [0, -100, 1, 2, 3], [4, 4, 4, 0, 1]]),
    "cw": np.array([0.5, 1.0, 2.0, 1.5, 0.25]), "xi": RNG.standard_normal((B, 4, 5, 6)),
    "i1": np.array([[0, 3], [1, 1], [2, 0]]), "j1": np.array([[4, 0], [2, 2], [1, 3]]),
    "vals": RNG.standard_normal((B, 2, 6)), "src": RNG.standard_normal((B, 120)),
    "sq": RNG.standard_normal((B, 4, 4)) + 4 * np.eye(4), "rhs": RNG.standard_normal((B, 4)),
    "rhsm": RNG.standard_normal((B, 4, 2)), "xi2": RNG.standard_normal((B, 4, 5, 6)),
    "rhs2": RNG.standard_normal((B, 4)), "lnw": RNG.standard_normal((5, 6)), "emb": RNG.standard_normal((4, 3)),
    "bemb": RNG.standard_normal((B, 4, 3)),
}  # fmt: skip


def _lib_args(L, names):
    return tuple(L.tensor(A[n]) for n in names)


CASES = {
    # name: (fn(L) -> per-sample function, argument names, in_dims)
    "nll_loss mean": (lambda L: lambda x, t: L.nn.functional.nll_loss(x, t), ("logits", "t"), (0, 0)),
    "nll_loss weight sum": (lambda L: lambda x, t: L.nn.functional.nll_loss(x, t, L.tensor(A["cw"]), reduction="sum"),
                            ("logits", "t"), (0, 0)),
    "nll grad": (lambda L: L.func.grad(lambda x, t: L.nn.functional.cross_entropy(x, t.clamp(0, 4))), ("logits", "t"), (0, 0)),
    "conv batched weight": (lambda L: lambda x, w: L.nn.functional.conv1d(x, w, stride=2, padding=1), ("x3", "bw"), (0, 0)),
    "conv weight groups": (lambda L: lambda w: L.nn.functional.conv1d(L.tensor(A["x3"][0]), w, groups=2), ("bwg",), (0,)),
    "conv per-sample weight grad": (lambda L: L.func.grad(lambda w, x: L.nn.functional.conv1d(x, w, L.tensor(A["bias"])).pow(2).sum()),
                                    ("w", "x3"), (None, 0)),
    "conv input grad": (lambda L: L.func.grad(lambda x, w: L.nn.functional.conv1d(x, w).pow(2).sum()), ("x3", "w"), (0, None)),
    "index batched": (lambda L: lambda x, i: x[:, i], ("xi", "i1"), (0, 0)),
    "index separated": (lambda L: lambda x, i, j: x[i, :, j.clamp(0, 3)], ("xi", "i1", "j1"), (0, 0, 0)),
    "index grad": (lambda L: L.func.grad(lambda x, i: (x[:, i] ** 2).sum()), ("xi", "i1"), (0, 0)),
    "index_put": (lambda L: lambda x, i, v: x.index_put((i, L.tensor([1, 1])), v, accumulate=True), ("xi", "i1", "vals"), (0, 0, 0)),
    "take_along_dim grad": (lambda L: L.func.grad(lambda x, i: L.take_along_dim(x, i.reshape(2, 1, 1), 0).pow(2).sum()),
                            ("xi", "i1"), (0, 0)),
    "masked_scatter": (lambda L: lambda x, s: x.masked_scatter(x > 0, s), ("xi", "src"), (0, 0)),
    "masked_scatter grad": (lambda L: L.func.grad(lambda s, x: x.masked_scatter(x > 0, s).pow(2).sum()), ("src", "xi"), (0, 0)),
    "permute": (lambda L: lambda x: x.permute(2, 0, 1), ("xi",), (0,)),
    "solve": (lambda L: lambda a, b: L.linalg.solve(a, b), ("sq", "rhs"), (0, 0)),
    "solve matrix": (lambda L: lambda a, b: L.linalg.solve(a, b), ("sq", "rhsm"), (0, 0)),
    "solve left false": (lambda L: lambda a, b: L.linalg.solve(a, b.mT, left=False), ("sq", "rhsm"), (0, 0)),
    "kthvalue": (lambda L: lambda x: x.kthvalue(2, 1)[0], ("xi",), (0,)),
    "as_strided": (lambda L: lambda x: x.as_strided((2, 3), (3, 1), 2), ("xi",), (0,)),
    "mse_loss grad": (lambda L: L.func.grad(lambda a, b: L.nn.functional.mse_loss(a, b)), ("xi", "xi2"), (0, 0)),
    "huber_loss sum": (lambda L: lambda a, b: L.nn.functional.huber_loss(a, b, reduction="sum", delta=0.5), ("xi", "xi2"), (0, 0)),
    "smooth_l1 hessian": (lambda L: L.func.hessian(lambda a, b: L.nn.functional.smooth_l1_loss(a, b, beta=0.5)), ("rhs", "rhs2"), (0, 0)),
    "layer_norm grad weight": (lambda L: L.func.grad(lambda w, x: L.nn.functional.layer_norm(x, (5, 6), w).pow(3).sum()),
                               ("lnw", "xi"), (None, 0)),
    "embedding grad": (lambda L: L.func.grad(lambda w, i: L.nn.functional.embedding(i, w, padding_idx=1).pow(2).sum()),
                       ("emb", "i1"), (None, 0)),
    "embedding batched table": (lambda L: lambda w, i: L.nn.functional.embedding(i, w), ("bemb", "i1"), (0, 0)),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_rule_matches_torch_vmap(name):
    make, names, in_dims = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = numtorch.vmap(make(numtorch), in_dims=in_dims)(*_lib_args(numtorch, names))
    theirs = torch.vmap(make(torch), in_dims=in_dims)(*_lib_args(torch, names))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


def _rand_cases(L):
    M, P = L.ones(3), L.full((3,), 0.5)
    F = L.nn.functional
    return {
        "rand": lambda v: L.rand(3), "randint": lambda v: L.randint(0, 100, (3,)), "randperm": lambda v: L.randperm(30),
        "normal": lambda v: L.normal(0.0, 1.0, (3,)), "rand_like plain": lambda v: L.rand_like(M),
        "rand_like batched": lambda v: L.rand_like(v), "randint_like batched": lambda v: L.randint_like(v, 100),
        "bernoulli plain": lambda v: L.bernoulli(P), "bernoulli batched": lambda v: L.bernoulli(v * 0.5),
        "bernoulli p batched": lambda v: L.bernoulli(v, 0.5), "normal batched mean": lambda v: L.normal(v, 1.0),
        "poisson batched": lambda v: L.poisson(v * 5), "multinomial batched": lambda v: L.multinomial(v, 2),
        "multinomial plain": lambda v: L.multinomial(M, 2), "normal_ plain": lambda v: L.ones(3).normal_(),
        "normal_ batched": lambda v: (v * 1).normal_(), "uniform_ batched": lambda v: (v * 1).uniform_(),
        "bernoulli_ batched": lambda v: (v * 1).bernoulli_(0.5), "dropout batched": lambda v: F.dropout(v, 0.5),
        "rand plus batched": lambda v: L.rand(3) + v,
    }  # fmt: skip


def _outcome(L, f, mode):
    try:
        r = L.vmap(f, randomness=mode)(L.ones(4, 3))
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)
    return tuple(r.shape), bool((r[0] != r[1]).any())


@pytest.mark.parametrize("mode", ["error", "different", "same"])
@pytest.mark.parametrize("name", list(_rand_cases(numtorch)))
def test_randomness_matches_torch(name, mode):
    numtorch.manual_seed(0)
    torch.manual_seed(0)
    assert _outcome(numtorch, _rand_cases(numtorch)[name], mode) == _outcome(torch, _rand_cases(torch)[name], mode)


def test_as_strided_outside_the_sample_raises_torchs_error():
    def f(lib):
        return lambda a: a.as_strided((2, 2), (1, 2), 1)

    with pytest.raises(RuntimeError) as theirs:
        torch.vmap(f(torch))(torch.arange(24.0).reshape(3, 8)[:, 2:])
    with pytest.raises(RuntimeError) as ours:
        numtorch.vmap(f(numtorch))(numtorch.arange(24.0).reshape(3, 8)[:, 2:])
    assert str(ours.value) == str(theirs.value)
