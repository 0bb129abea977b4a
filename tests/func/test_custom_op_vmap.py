"""Custom ops from numtorch.library under vmap: register_vmap rules and the loop fallback."""

import warnings

import numpy as np
import pytest

import numtorch
from numtorch.library import custom_op

D = numtorch.float64
CALLS = []


@custom_op("vmaptest::npmul", mutates_args=())
def npmul(x: numtorch.Tensor, y: numtorch.Tensor) -> numtorch.Tensor:
    return numtorch.from_numpy(x.numpy() * y.numpy())


@npmul.register_vmap
def _npmul_vmap(info, in_dims, x, y):
    CALLS.append((info.batch_size, info.randomness, in_dims))
    xb, yb = in_dims
    x = x.movedim(xb, -1) if xb is not None else x.unsqueeze(-1)
    y = y.movedim(yb, -1) if yb is not None else y.unsqueeze(-1)
    return npmul(x, y).movedim(-1, 0), 0


@custom_op("vmaptest::npsin", mutates_args=())
def npsin(x: numtorch.Tensor) -> numtorch.Tensor:
    return numtorch.from_numpy(np.sin(x.numpy()))


@custom_op("vmaptest::bad", mutates_args=())
def bad(x: numtorch.Tensor) -> numtorch.Tensor:
    return x.clone()


bad.register_vmap(lambda info, in_dims, x: x)


def test_register_vmap_rule_is_used():
    CALLS.clear()
    rng = np.random.default_rng(1)
    x = numtorch.tensor(rng.standard_normal((3, 4)))
    y = numtorch.tensor(rng.standard_normal(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule, not the loop fallback
        got = numtorch.vmap(npmul, in_dims=(0, None))(x, y)
    np.testing.assert_allclose(got.numpy(), x.numpy() * y.numpy())
    assert CALLS == [(3, "error", (0, None))]
    got = numtorch.vmap(npmul, in_dims=(1, 0))(x.t(), x)
    np.testing.assert_allclose(got.numpy(), x.numpy() ** 2)
    assert CALLS[-1][2] == (0, 0)


def test_nested_vmap_runs_the_rule_per_level():
    CALLS.clear()
    x = numtorch.arange(6, dtype=D).reshape(2, 3)
    got = numtorch.vmap(numtorch.vmap(npmul))(x, x)
    np.testing.assert_allclose(got.numpy(), x.numpy() ** 2)
    assert len(CALLS) == 2


def test_without_a_rule_loop_fallback_warns_once():
    x = numtorch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], dtype=D)
    with pytest.warns(UserWarning, match="batching rule for vmaptest::npsin"):
        got = numtorch.vmap(npsin)(x)
    np.testing.assert_allclose(got.numpy(), np.sin(x.numpy()))


def test_rule_with_a_bad_return_raises():
    with pytest.raises(RuntimeError, match="Expected the vmap staticmethod to have two returns"):
        numtorch.vmap(bad)(numtorch.ones(3, 2))
