"""OpInfos for numtorch/ops/factory/random.py.

Random ops have no NumPy reference (ref=None): their values are checked statistically in
tests/ops/factory/test_random.py. They are not differentiable (grad=False) and are nondeterministic.
"""

from __future__ import annotations

import numpy as np

from ..core import FLOATS, OpInfo, SampleInput, make_arg

_S = SampleInput
_KW = {"grad": False, "nondeterministic": True}


def _sizes(dtype, rng):
    return [_S(2, (3,)), _S((4,)), _S(())]


def _tensor_in(shape=(2, 3), low=None, high=None, args=(), kwargs=None):
    def gen(dtype, rng):
        return [_S(make_arg(shape, dtype, rng, low, high), args, dict(kwargs or {}))]

    return gen


def _binomial(dtype, rng):
    count = np.floor(make_arg((2, 3), dtype, rng, 0, 20))
    return [_S(count, (make_arg((2, 3), dtype, rng, 0, 1),)), _S(count, (make_arg((3,), dtype, rng, 0.6, 1),))]


OPINFOS = [
    OpInfo("rand", None, _sizes, dtypes=FLOATS, **_KW),
    OpInfo("randn", None, _sizes, dtypes=FLOATS, **_KW),
    OpInfo(
        "randint",
        None,
        lambda dt, rng: [_S(10, ((3,),)), _S(-5, (5, (2, 2)))],
        dtypes=("int64",),
        **_KW,
    ),
    OpInfo("randperm", None, lambda dt, rng: [_S(5), _S(0)], dtypes=("int64",), **_KW),
    OpInfo("rand_like", None, _tensor_in(), dtypes=FLOATS, **_KW),
    OpInfo("randn_like", None, _tensor_in(), dtypes=FLOATS, **_KW),
    OpInfo("randint_like", None, _tensor_in(args=(5,)), dtypes=FLOATS + ("int64",), **_KW),
    OpInfo("normal", None, _tensor_in(args=(1.0,)), dtypes=FLOATS, **_KW),
    OpInfo(
        "multinomial",
        None,
        _tensor_in((2, 4), 0.1, 1, (2,)),
        dtypes=FLOATS,
        method="multinomial",
        **_KW,
    ),
    OpInfo("bernoulli", None, _tensor_in(low=0, high=1), dtypes=FLOATS, method="bernoulli", **_KW),
    OpInfo("poisson", None, _tensor_in(low=0, high=5), dtypes=FLOATS, **_KW),
    OpInfo("binomial", None, _binomial, dtypes=("float32", "float64"), **_KW),
    OpInfo("Tensor.uniform_", None, _tensor_in(args=(-1.0, 1.0)), dtypes=FLOATS, **_KW),
    OpInfo("Tensor.normal_", None, _tensor_in(args=(0.0, 2.0)), dtypes=FLOATS, **_KW),
    OpInfo("Tensor.random_", None, _tensor_in(args=(0, 10)), dtypes=FLOATS + ("int64",), **_KW),
    OpInfo("Tensor.exponential_", None, _tensor_in(), dtypes=FLOATS, **_KW),
    OpInfo("Tensor.geometric_", None, _tensor_in(args=(0.5,)), dtypes=FLOATS + ("int64",), **_KW),
    OpInfo("Tensor.cauchy_", None, _tensor_in(), dtypes=FLOATS, **_KW),
    OpInfo("Tensor.log_normal_", None, _tensor_in(), dtypes=FLOATS, **_KW),
    OpInfo("Tensor.bernoulli_", None, _tensor_in(args=(0.5,)), dtypes=FLOATS + ("int64",), **_KW),
]
