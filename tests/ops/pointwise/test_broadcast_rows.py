"""Broadcast binary ops through the row kernels (Note [Broadcast rows]): values against NumPy for
the operand layouts that take them (stride-1 / stride-0 last dimension) and for those that fall
back to the strided kernel (transposed operands, in-place, a Python scalar operand)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

SHAPES = [((16, 1), (16,)), ((4, 6, 1), (4, 1, 5)), ((7, 9), (9,)), ((7, 9), (7, 1)),
          ((3, 1, 5), (4, 1)), ((2, 1, 3, 4), (3, 1))]  # fmt: skip


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_broadcast_binary_matches_numpy(sa, sb):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    ta, tb = numtorch.from_numpy(a), numtorch.from_numpy(b)
    np.testing.assert_array_equal((ta * tb).numpy(), a * b)
    np.testing.assert_array_equal(numtorch.add(ta, tb, alpha=2).numpy(), a + np.float32(2) * b)
    np.testing.assert_array_equal((tb - ta).numpy(), b - a)


def test_int_operands_and_where():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    b = np.arange(4, dtype=np.int64)
    np.testing.assert_array_equal((numtorch.from_numpy(a) * numtorch.from_numpy(b)).numpy(), a * b)
    c = np.array([[True], [False], [True]])
    got = numtorch.where(numtorch.from_numpy(c), numtorch.from_numpy(a), numtorch.from_numpy(b))
    np.testing.assert_array_equal(got.numpy(), np.where(c, a, b))


def test_transposed_operand_takes_the_strided_kernel():
    a = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32)
    b = np.arange(6, dtype=np.float32)
    got = numtorch.from_numpy(a).t() * numtorch.from_numpy(b)
    np.testing.assert_array_equal(got.numpy(), a.T * b)


def test_inplace_broadcast_row():
    a = np.random.default_rng(2).standard_normal((5, 7)).astype(np.float32)
    b = np.random.default_rng(3).standard_normal(7).astype(np.float32)
    t = numtorch.from_numpy(a.copy())
    t.add_(numtorch.from_numpy(b))
    np.testing.assert_array_equal(t.numpy(), a + b)
    v = numtorch.from_numpy(a.copy())[:, 1:]  # a strided destination
    v.mul_(numtorch.from_numpy(b[1:]))
    np.testing.assert_array_equal(v.numpy(), a[:, 1:] * b[1:])


def test_addmm_bias_fast_path_matches_numpy():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((4, 16)).astype(np.float32)
    for shape in (4, (8, 4)):
        bias = rng.standard_normal(shape).astype(np.float32)
        got = numtorch.nn.functional.linear(*map(numtorch.from_numpy, (x, w, bias))).numpy()
        np.testing.assert_array_equal(got, x @ w.T + bias)
    inf = numtorch.full((2, 2), float("inf"))
    with np.errstate(all="raise"):  # inf * 0 stays silent, as in PyTorch
        r = numtorch.addmm(numtorch.zeros(2), inf, numtorch.zeros(2, 2))
    assert np.isnan(r.numpy()).all()


@pytest.mark.parametrize("op", ["mul", "sub", "div", "eq"])
def test_expanded_operand_matches_its_contiguous_copy(op):
    # Note [Expanded operands run as scalars]: expanded_call, either position
    fn = getattr(numtorch, op)
    a = numtorch.arange(12.0).reshape(3, 4)
    g = numtorch.tensor(2.5).expand(3, 4)
    fn(a, a)  # learn the same-dtype signature the fast call needs
    for x, y in ((g, a), (a, g)):
        got, want = fn(x, y), fn(x.contiguous(), y.contiguous())
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    i = numtorch.arange(6).reshape(2, 3)
    got = numtorch.tensor(3).expand(2, 3) * i
    np.testing.assert_array_equal(got.numpy(), 3 * np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_learned_signature_broadcast_and_strided_calls_match_numpy(op):
    # expanded_call's strided_call: after fn(a, a) learns the same-dtype signature,
    # broadcast (cached row layouts) and transposed operands skip promotion; values, dtype and
    # shape as the general path's, in either position, and PyTorch's error for a bad shape
    fn = getattr(numtorch, op)
    ref = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}[op])
    rng = np.random.default_rng(5)
    for dt in (np.float32, np.int64) if op == "mul" else (np.float32,):
        a = (rng.standard_normal((2, 3, 4)) * 4).astype(dt) + 5
        t = numtorch.from_numpy(a)
        fn(t, t)
        for b in (a[0] + 1, a[0, :1] + 2, a[:, :, :1] + 3, a[0, 0], a[0].T.copy().T):
            tb = numtorch.from_numpy(b)
            for x, y, nx, ny in ((t, tb, a, b), (tb, t, b, a)):
                got = fn(x, y)
                want = ref(nx, ny)
                assert got.shape == want.shape and got.dtype == numtorch.from_numpy(want).dtype
                np.testing.assert_array_equal(got.numpy(), want)
        w = numtorch.from_numpy(a[0].T.copy()).t()  # a transposed operand: the strided kernel
        np.testing.assert_array_equal(fn(w, numtorch.from_numpy(a[0])).numpy(), ref(a[0], a[0]))
        with pytest.raises(RuntimeError, match="must match the size of tensor b"):
            fn(t, numtorch.from_numpy(a[:, :2]))
    if op in ("add", "sub"):
        fn(numtorch.ones(3), numtorch.ones(3), alpha=2)
        got = fn(numtorch.ones(2, 3), numtorch.arange(3.0), alpha=2)
        np.testing.assert_array_equal(got.numpy(), ref(np.ones((2, 3)), 2 * np.arange(3.0)))
    if op == "sub":
        b = numtorch.ones(2, 3, dtype=numtorch.bool)
        with pytest.raises(RuntimeError, match="with two bool tensors"):
            fn(b, b[0])
