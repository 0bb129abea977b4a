"""Random numbers: Generator and seeding, reproducibility, distribution sanity, errors.

Statistical checks use fixed seeds and loose bounds (several standard errors), so they are
deterministic and still catch a wrong distribution or parameterisation.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import numtorch

N = 200_000


@pytest.fixture(autouse=True)
def _seeded():
    state = numtorch.get_rng_state()
    numtorch.manual_seed(1234)
    yield
    numtorch.set_rng_state(state)


def _np(t):
    return t.numpy().astype(np.float64)


# ---- Generator and seeding ----------------------------------------------------------------------
SAMPLERS = {
    "rand": lambda g: numtorch.rand(4, 3, generator=g),
    "randn": lambda g: numtorch.randn(5, generator=g, dtype=numtorch.float64),
    "randint": lambda g: numtorch.randint(0, 100, (6,), generator=g),
    "randperm": lambda g: numtorch.randperm(10, generator=g),
    "normal": lambda g: numtorch.normal(numtorch.zeros(4), 2.0, generator=g),
    "normal_ff": lambda g: numtorch.normal(1.0, 2.0, (3,), generator=g),
    "multinomial": lambda g: numtorch.multinomial(numtorch.ones(8), 4, generator=g),
    "multinomial_repl": lambda g: numtorch.multinomial(numtorch.ones(3, 5), 7, True, generator=g),
    "bernoulli": lambda g: numtorch.bernoulli(numtorch.full((8,), 0.5), generator=g),
    "poisson": lambda g: numtorch.poisson(numtorch.full((5,), 3.0), g),
    "rand_like": lambda g: numtorch.rand_like(numtorch.zeros(3), generator=g),
    "randint_like": lambda g: numtorch.randint_like(numtorch.zeros(3), 1, 9, generator=g),
    "uniform_": lambda g: numtorch.empty(5).uniform_(-2, 2, generator=g),
    "normal_": lambda g: numtorch.empty(5).normal_(generator=g),
    "random_": lambda g: numtorch.empty(5, dtype=numtorch.int64).random_(3, 50, generator=g),
    "exponential_": lambda g: numtorch.empty(5).exponential_(generator=g),
    "geometric_": lambda g: numtorch.empty(5).geometric_(0.3, generator=g),
    "cauchy_": lambda g: numtorch.empty(5).cauchy_(generator=g),
    "log_normal_": lambda g: numtorch.empty(5).log_normal_(generator=g),
    "bernoulli_": lambda g: numtorch.empty(5).bernoulli_(0.5, generator=g),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_manual_seed_reproduces_every_sampler(name):
    fn = SAMPLERS[name]
    numtorch.manual_seed(7)
    a = fn(None)
    numtorch.manual_seed(7)
    b = fn(None)
    g = numtorch.Generator().manual_seed(7)
    c = fn(g)
    g.manual_seed(7)
    d = fn(g)
    assert a.tolist() == b.tolist() == c.tolist() == d.tolist()
    numtorch.manual_seed(8)
    assert fn(None).tolist() != a.tolist() or name in ("bernoulli_", "geometric_")


def test_generator_is_independent_of_the_default_one():
    g = numtorch.Generator().manual_seed(3)
    numtorch.manual_seed(3)
    a = numtorch.rand(4, generator=g)
    numtorch.rand(100)  # consuming the default stream does not touch g
    g2 = numtorch.Generator().manual_seed(3)
    assert numtorch.rand(4, generator=g2).tolist() == a.tolist()


def test_state_round_trips_and_restores_the_seed():
    g = numtorch.Generator().manual_seed(11)
    numtorch.rand(3, generator=g)
    s = g.get_state()
    assert s.dtype is numtorch.uint8 and s.ndim == 1
    a = numtorch.rand(5, generator=g)
    g.manual_seed(99)
    assert g.set_state(s) is g and g.initial_seed() == 11
    assert numtorch.rand(5, generator=g).tolist() == a.tolist()
    s2 = numtorch.get_rng_state()
    b = numtorch.randn(3)
    numtorch.set_rng_state(s2)
    assert numtorch.randn(3).tolist() == b.tolist()
    assert pickle.loads(pickle.dumps(g)).get_state().tolist() == g.get_state().tolist()
    assert g.clone_state().get_state().tolist() == g.get_state().tolist()


def test_seeding_api():
    assert numtorch.manual_seed(5) is numtorch.default_generator
    assert numtorch.initial_seed() == 5
    assert numtorch.manual_seed(-1).initial_seed() == 2**64 - 1
    assert numtorch.manual_seed(1.5).initial_seed() == 1
    assert numtorch.Generator().initial_seed() == 67280421310721
    assert numtorch.Generator().device == numtorch.device("cpu")
    s = numtorch.seed()
    assert isinstance(s, int) and numtorch.initial_seed() == s
    with numtorch.random.fork_rng():
        numtorch.rand(10)
    assert numtorch.initial_seed() == s


@pytest.mark.parametrize(
    "call,exc,msg",
    [(lambda: numtorch.manual_seed(2**64), ValueError, "Overflow when unpacking long long"),
     (lambda: numtorch.manual_seed("a"), ValueError, "invalid literal for int() with base 10: 'a'"),
     (lambda: numtorch.Generator().manual_seed(1.5), RuntimeError, "manual_seed expected a long, but got float"),
     (lambda: numtorch.Generator().set_state([1]), TypeError, "expected a torch.ByteTensor, but got list"),
     (lambda: numtorch.Generator().set_state(numtorch.zeros(56)), TypeError, "RNG state must be a torch.ByteTensor"),
     (lambda: numtorch.Generator().set_state(numtorch.zeros(3, dtype=numtorch.uint8)), RuntimeError,
      "Expected a CPUGeneratorImplState of size 56 but found the input RNG state size to be 3"),
     (lambda: numtorch.rand(2, generator=3), TypeError, "rand(): argument 'generator' must be torch.Generator, not int")],
)  # fmt: skip
def test_seeding_errors(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg


# ---- distribution sanity ------------------------------------------------------------------------
def _moments(t):
    x = _np(t).ravel()
    return x.mean(), x.var()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_rand_is_uniform_on_unit_interval(dtype):
    x = numtorch.rand(N, dtype=getattr(numtorch, dtype))
    m, v = _moments(x)
    assert x.dtype.name == dtype and 0 <= _np(x).min() and _np(x).max() < 1
    assert abs(m - 0.5) < 0.005 and abs(v - 1 / 12) < 0.002


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_is_standard_normal(dtype):
    m, v = _moments(numtorch.randn(N, dtype=getattr(numtorch, dtype)))
    assert abs(m) < 0.01 and abs(v - 1) < 0.02


def test_complex_randn_has_unit_variance_split_between_parts():
    z = numtorch.randn(N, dtype=numtorch.complex64).numpy()
    assert abs(np.var(z.real) - 0.5) < 0.01 and abs(np.var(z.imag) - 0.5) < 0.01


@pytest.mark.parametrize(
    "fill,mean,var",
    [(lambda t: t.uniform_(2, 5), 3.5, 0.75), (lambda t: t.normal_(3, 2), 3.0, 4.0),
     (lambda t: t.exponential_(4), 0.25, 1 / 16), (lambda t: t.geometric_(0.25), 4.0, 12.0),
     (lambda t: t.log_normal_(0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
     (lambda t: t.bernoulli_(0.3), 0.3, 0.21), (lambda t: t.random_(0, 10), 4.5, 8.25)],
)  # fmt: skip
def test_in_place_samplers_have_the_right_moments(fill, mean, var):
    t = numtorch.empty(N, dtype=numtorch.float64)
    v0 = t._version
    assert fill(t) is t and t._version > v0
    m, v = _moments(t)
    assert abs(m - mean) < 0.03 * max(1, mean) and abs(v - var) < 0.05 * max(1, var)


def test_cauchy_median_and_quartiles():
    x = _np(numtorch.empty(N).cauchy_(1.0, 2.0))
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    assert abs(med - 1) < 0.05 and abs(q1 - (-1)) < 0.1 and abs(q3 - 3) < 0.1


def test_normal_overloads_broadcast_and_scale():
    x = numtorch.normal(numtorch.full((N,), 2.0), 3.0)
    m, v = _moments(x)
    assert abs(m - 2) < 0.03 and abs(v - 9) < 0.15
    y = numtorch.normal(numtorch.zeros(3, 1), numtorch.ones(2))
    assert y.shape == (3, 2)
    assert numtorch.normal(0.0, numtorch.ones(4)).shape == (4,)
    z = numtorch.normal(-1.0, 0.5, size=(N,), dtype=numtorch.float64)
    assert z.dtype is numtorch.float64 and abs(_moments(z)[0] + 1) < 0.01
    assert (
        numtorch.normal(numtorch.zeros(2, dtype=numtorch.float64), numtorch.ones(2)).dtype
        is numtorch.float64
    )


def test_randint_covers_the_range_uniformly():
    x = numtorch.randint(-3, 4, (N,))
    assert x.dtype is numtorch.int64
    counts = np.bincount(x.numpy() + 3, minlength=7)
    assert counts.min() > 0 and np.all(np.abs(counts / N - 1 / 7) < 0.01)
    assert numtorch.randint(5, (3,), dtype=numtorch.float32).dtype is numtorch.float32
    assert numtorch.randint(2, (4,), dtype=numtorch.bool).dtype is numtorch.bool
    assert numtorch.randint(3, size=(2, 2)).shape == (2, 2)


def test_randperm_is_a_permutation():
    assert sorted(numtorch.randperm(100).tolist()) == list(range(100))
    assert numtorch.randperm(0).shape == (0,)
    assert numtorch.randperm(5, dtype=numtorch.float32).dtype is numtorch.float32


def test_poisson_and_bernoulli_means():
    assert abs(_moments(numtorch.poisson(numtorch.full((N,), 4.0)))[0] - 4) < 0.03
    p = numtorch.rand(N)
    b = numtorch.bernoulli(p)
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(_np(b).mean() - _np(p).mean()) < 0.01
    assert abs(_np(numtorch.bernoulli(numtorch.zeros(N), 0.2)).mean() - 0.2) < 0.01
    t = numtorch.zeros(2, 3).bernoulli_(numtorch.tensor([0.0, 1.0, 0.0]))
    assert t.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]


def test_multinomial_without_replacement_draws_distinct_indices():
    probs = numtorch.rand(50, 10) + 0.01
    idx = numtorch.multinomial(probs, 10)
    assert idx.dtype is numtorch.int64 and idx.shape == (50, 10)
    assert all(sorted(row) == list(range(10)) for row in idx.tolist())
    first = numtorch.multinomial(numtorch.tensor([[1.0, 2.0, 7.0]]).expand(N, 3), 1)
    freq = np.bincount(first.numpy().ravel(), minlength=3) / N
    assert np.all(np.abs(freq - [0.1, 0.2, 0.7]) < 0.01)
    assert numtorch.multinomial(numtorch.tensor([1.0, 0.0, 0.0]), 2).tolist()[0] == 0


def test_multinomial_with_replacement_matches_the_weights():
    w = numtorch.tensor([[0.0, 1.0, 3.0], [5.0, 0.0, 5.0]])
    idx = numtorch.multinomial(w, N, replacement=True).numpy()
    f0 = np.bincount(idx[0], minlength=3) / N
    f1 = np.bincount(idx[1], minlength=3) / N
    assert f0[0] == 0 and abs(f0[2] - 0.75) < 0.01
    assert f1[1] == 0 and abs(f1[0] - 0.5) < 0.01


# ---- dtypes, leaves and errors ----------------------------------------------------------------------
def test_random_factories_are_leaves():
    for t in (numtorch.rand(2, requires_grad=True), numtorch.randn(2, requires_grad=True),
              numtorch.normal(0.0, 1.0, (2,), requires_grad=True)):  # fmt: skip
        assert t.requires_grad and t.is_leaf
    with pytest.raises(
        RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"
    ):
        numtorch.randint(3, (2,), requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation.",
    ):
        numtorch.zeros(2, requires_grad=True).uniform_()


def test_samplers_of_tensors_record_zero_gradients():
    p = numtorch.full((3,), 0.5, requires_grad=True)
    b = numtorch.bernoulli(p)
    assert b.requires_grad and type(b.grad_fn).__name__ == "BernoulliBackward0"
    b.sum().backward()
    assert p.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "call,exc,msg",
    [(lambda: numtorch.rand(2, dtype=numtorch.int64), NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
     (lambda: numtorch.randn(2, dtype=numtorch.int64), NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Long'"),
     (lambda: numtorch.randint(5, 3, (2,)), RuntimeError, "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
     (lambda: numtorch.randint(300, (2,), dtype=numtorch.uint8), RuntimeError, "to - 1 is out of bounds for unsigned char"),
     (lambda: numtorch.randint(-1, 3, (2,), dtype=numtorch.uint8), RuntimeError, "from is out of bounds for unsigned char"),
     (lambda: numtorch.randint(3, (2,), dtype=numtorch.bool), RuntimeError, "to - 1 is out of bounds for bool"),
     (lambda: numtorch.randint(5, 2), TypeError, "randint(): argument 'size' (position 2) must be tuple of ints, not int"),
     (lambda: numtorch.randint(0, 2**63, (2,)), ValueError, "Overflow when unpacking long long"),
     (lambda: numtorch.randperm(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
     (lambda: numtorch.randperm(3000, dtype=numtorch.float16), RuntimeError, "n cannot be greater than 2049 for Half type."),
     (lambda: numtorch.randperm(300, dtype=numtorch.uint8), RuntimeError, "value cannot be converted to type uint8_t without overflow"),
     (lambda: numtorch.normal(numtorch.zeros(3), -1.0), RuntimeError, "normal expects std >= 0.0, but found std -1"),
     (lambda: numtorch.normal(0.0, -numtorch.ones(3)), RuntimeError, "normal expects all elements of std >= 0.0"),
     (lambda: numtorch.normal(numtorch.zeros(3), numtorch.ones(2)), RuntimeError,
      "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
     (lambda: numtorch.multinomial(numtorch.ones(4), 5), RuntimeError,
      "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
     (lambda: numtorch.multinomial(numtorch.ones(4), 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
     (lambda: numtorch.multinomial(numtorch.tensor([1.0, -1.0]), 1), RuntimeError,
      "probability tensor contains either `inf`, `nan` or element < 0"),
     (lambda: numtorch.multinomial(numtorch.zeros(3), 1), RuntimeError, "invalid multinomial distribution (sum of probabilities <= 0)"),
     (lambda: numtorch.multinomial(numtorch.tensor([1.0, -1.0]), 2, True), RuntimeError,
      "invalid multinomial distribution (encountering probability entry < 0)"),
     (lambda: numtorch.multinomial(numtorch.ones(2, 2, 2), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
     (lambda: numtorch.multinomial(numtorch.ones(3, dtype=numtorch.int64), 1), RuntimeError,
      "multinomial only supports floating-point dtypes for input, got: Long"),
     (lambda: numtorch.bernoulli(numtorch.full((2,), 1.5)), RuntimeError, "Expected p_in >= 0 && p_in <= 1 to be true"),
     (lambda: numtorch.zeros(2).bernoulli_(2.0), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=2"),
     (lambda: numtorch.poisson(-numtorch.ones(2)), RuntimeError, "invalid Poisson rate, expected rate to be non-negative"),
     (lambda: numtorch.zeros(2).uniform_(2, 1), RuntimeError, "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
     (lambda: numtorch.zeros(2).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
     (lambda: numtorch.zeros(2, dtype=numtorch.int64).exponential_(), RuntimeError,
      "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified Long"),
     (lambda: numtorch.zeros(2).geometric_(1), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
     (lambda: numtorch.zeros(2).cauchy_(0, -1), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=-1"),
     (lambda: numtorch.zeros(2).log_normal_(0, -1), RuntimeError, "log_normal_ expects std > 0.0, but found std=-1"),
     (lambda: numtorch.zeros(2, dtype=numtorch.int64).random_(5, 2), RuntimeError,
      "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
     (lambda: numtorch.zeros(2).random_(1.5), TypeError, "random_() received an invalid combination of arguments - got (float)")],
)  # fmt: skip
def test_random_errors_match_pytorch(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value).startswith(msg)


def test_random_ranges_by_dtype():
    assert numtorch.zeros(N, dtype=numtorch.bool).random_().numpy().mean() > 0.4
    x = numtorch.zeros(1000, dtype=numtorch.uint8).random_()
    assert x.numpy().max() > 200
    f = numtorch.zeros(1000).random_()
    assert float(f.numpy().max()) <= 2**24 and float(f.numpy().max()) > 2**20
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        numtorch.zeros(2).random_(2**30)


def test_random_ops_dispatch_as_aten_ops():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        numtorch.rand(2)
        numtorch.rand(2, generator=numtorch.Generator())
        numtorch.randint(3, 5, (2,))
        numtorch.empty(2).uniform_()
        numtorch.empty(2, dtype=numtorch.int64).random_(4)
        numtorch.multinomial(numtorch.ones(3), 1)
    for op in ("aten.rand.default", "aten.rand.generator", "aten.randint.low", "aten.uniform_.default",
               "aten.random_.to", "aten.multinomial.default"):  # fmt: skip
        assert op in seen
