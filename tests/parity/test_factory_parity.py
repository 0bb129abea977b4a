"""Factories against torch: dtype inference tables, values, lengths and error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

# Each expression runs with ``T`` bound to torch and to numtorch; the outcomes (value, dtype,
# shape, strides where asked, or exception type and message) must agree.
EXPRS = [
    # torch.tensor dtype inference
    "T.tensor(3)", "T.tensor(3.5)", "T.tensor(True)", "T.tensor(1 + 2j)", "T.tensor([])",
    "T.tensor([[]])", "T.tensor([[], []])", "T.tensor([1, 2.5])", "T.tensor([True, 2])",
    "T.tensor([True, False])", "T.tensor([1, 2j])", "T.tensor([[1, 2], [3, 4]])", "T.tensor((1, 2))",
    "T.tensor(range(3))", "T.tensor(np.float64(2))", "T.tensor([np.float32(2), 1.0])",
    "T.tensor([np.float64(2), 1.0])", "T.tensor([np.int32(2), 1])", "T.tensor(np.zeros(2))",
    "T.tensor(np.arange(3, dtype=np.int16))", "T.tensor([np.zeros(2, np.int32), [1.5, 2]])",
    "T.tensor([T.tensor(1), T.tensor(2)])", "T.tensor([T.tensor(1.0, dtype=T.float64), 2.0])",
    "T.tensor([T.tensor(1, dtype=T.int32), 5])", "T.tensor([T.tensor(1, dtype=T.int32), 5.0])",
    "T.tensor([T.tensor([1.0]), T.tensor([3.0])])", "T.tensor([[T.tensor(1.0)]])",
    "T.tensor(T.Size([2, 3]))", "T.tensor([1.7, -1.7], dtype=T.int64)", "T.tensor([-1], dtype=T.uint8)",
    "T.tensor([-255], dtype=T.uint8)", "T.tensor([2], dtype=T.bool)", "T.tensor([1e300])",
    "T.tensor([[1, 2], [3, 4]], dtype=T.float16)", "T.tensor([1, 2], dtype=T.float64)",
    "T.tensor(3, dtype=T.complex64)", "T.tensor([0.5, 0], dtype=T.bool)",
    # torch.tensor errors
    "T.tensor([[1, 2], [1, 2, 3]])", "T.tensor([[[1, 2]], [[1]]])", "T.tensor([[1, 2], 3])",
    "T.tensor([1, [2]])", "T.tensor([1.0, [2.0]])", "T.tensor([[1.0], 2.0])", "T.tensor(['a'])",
    "T.tensor('a')", "T.tensor(None)", "T.tensor({1: 2})", "T.tensor(object())", "T.tensor(2**63)",
    "T.tensor([1, 2**64])", "T.tensor([300], dtype=T.uint8)", "T.tensor([-256], dtype=T.uint8)",
    "T.tensor([2**40], dtype=T.int32)", "T.tensor([-200], dtype=T.int8)", "T.tensor([1e20], dtype=T.int64)",
    "T.tensor([float('nan')], dtype=T.int64)", "T.tensor([300.0], dtype=T.int8)",
    "T.tensor([1 + 2j], dtype=T.float32)", "T.tensor([T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])])",
    "T.tensor([T.tensor([1, 2]), T.tensor([3, 4])])", "T.tensor([1], requires_grad=True)",
    "T.tensor([1.0], requires_grad=True)",
    # as_tensor / from_numpy
    "T.as_tensor([1, 2])", "T.as_tensor(3)", "T.as_tensor(np.zeros(2, np.int32))",
    "T.as_tensor([1, 2], dtype=T.float64)", "T.from_numpy(np.array(2.0))", "T.from_numpy([1])",
    "T.from_numpy(np.zeros(2, '>f4'))",
    # empty / zeros / ones / full
    "T.zeros(2, 3)", "T.zeros((2, 3))", "T.zeros([2, 3])", "T.zeros(())", "T.zeros(T.Size([2]))",
    "T.zeros(T.tensor(2))", "T.zeros([T.tensor(2)])", "T.zeros(np.int64(2))", "T.zeros(0)",
    "T.ones(2, dtype=T.int32)", "T.ones(2, dtype=float)", "T.ones(2, dtype=int)", "T.ones(2, dtype=bool)",
    "T.zeros(-1)", "T.zeros(2, -1)", "T.ones(-1)", "T.empty(-1)", "T.zeros('a')", "T.zeros(2.5)",
    "T.zeros(2, 'a')", "T.zeros((2, 2.0))", "T.zeros(None)", "T.zeros(True)", "T.zeros(T.tensor([2, 3]))",
    "T.zeros(T.tensor(2.0))", "T.zeros((2,), 3)", "T.zeros(2, dtype='float')", "T.zeros(2, dtype=np.float64)",
    "T.zeros(2, dtype=T.int64, requires_grad=True)", "T.zeros(2, requires_grad=True).requires_grad",
    "T.full((2,), True)", "T.full((2,), 3)", "T.full((2,), 3.0)", "T.full((2,), 3j)", "T.full([2], 3.0)",
    "T.full(2, 3.0)", "T.full([2], T.tensor(3.0))", "T.full([2], T.tensor(3))", "T.full([2], np.float64(3))",
    "T.full([2], T.tensor([3.0]))", "T.full([2], 2.5, dtype=T.int64)", "T.full([2], -1, dtype=T.uint8)",
    "T.full([2], 300, dtype=T.uint8)", "T.full([2], 2, dtype=T.bool)", "T.full([2], 1e300)",
    "T.full([2], 1j, dtype=T.int64)", "T.full([2], 2**70)", "T.full([2], 40000, dtype=T.int16)",
    "T.full([2], 2**31, dtype=T.int32)", "T.full([2], 'a')", "T.full((-1,), 1)",
    # out=
    "T.zeros(2, out=T.ones(2, dtype=T.int32))", "T.zeros(3, out=T.ones(2))", "T.ones((2, 2), out=T.zeros(4))",
    "T.zeros(2, out=T.ones(2), dtype=T.float64)", "T.full((2,), 3, out=T.zeros(2))",
    "T.full((2,), 3.5, out=T.zeros(2, dtype=T.int64))", "T.empty(2, out=T.zeros(5)).shape",
    "T.empty(2, out=T.zeros(5), dtype=T.float64)", "T.eye(2, out=T.ones(2, 2, dtype=T.int64))",
    "T.eye(2, out=T.zeros(5))", "T.linspace(0, 1, 3, out=T.ones(3, dtype=T.float64))",
    "T.linspace(0, 10, 3, out=T.ones(3, dtype=T.int64))", "T.arange(3, out=T.zeros(3))",
    "T.arange(3, out=T.zeros(3, dtype=T.int32))", "T.arange(3, out=T.zeros(0))",
    "T.arange(3, out=T.zeros(3), dtype=T.float64)", "T.arange(0, 1.5, 0.5, out=T.zeros(3, dtype=T.int64))",
    # *_like and new_*
    "T.zeros_like(T.ones(2, dtype=T.float64), dtype=T.int32)", "T.ones_like(T.zeros(2, 3))",
    "T.full_like(T.zeros(2, dtype=T.int64), 2.7)", "T.full_like(T.zeros(2, dtype=T.bool), 2)",
    "T.full_like(T.zeros(2, dtype=T.uint8), 300)", "T.zeros_like([1.0])",
    "T.zeros_like(T.from_numpy(np.zeros((3, 4)).T)).stride()",
    "T.empty_like(T.from_numpy(np.zeros((3, 4))[:, ::2])).stride()",
    "T.empty_like(T.from_numpy(np.zeros((2, 3, 4)).transpose(2, 0, 1))).stride()",
    "T.full_like(T.from_numpy(np.zeros((1, 3, 4)).transpose(2, 0, 1)), 2).stride()", "T.ones_like(T.zeros(2, requires_grad=True))",
    "T.zeros(2, dtype=T.float64).new_tensor([1, 2])", "T.zeros(2, dtype=T.float64).new_tensor([1.5], dtype=T.int32)",
    "T.zeros(2, dtype=T.float64).new_tensor(np.zeros(2, np.int32))", "T.zeros(2, dtype=T.float64).new_zeros(2, 3)",
    "T.zeros(2, dtype=T.float64).new_zeros((2, 3))", "T.zeros(2).new_zeros(2, dtype=T.int32)",
    "T.zeros(2).new_ones([2])", "T.zeros(2).new_empty(2).shape", "T.zeros(2).new_full((2,), 3)",
    "T.zeros(2, dtype=T.int32).new_full((2,), 3.5)", "T.zeros(2).new_full(2, 3)", "T.zeros(2).new_zeros(())",
    "T.zeros(2).new_zeros()", "T.zeros(2).new_zeros(2, requires_grad=True)",
    "T.zeros(2).new_empty_strided((2, 3), (1, 2)).stride()",
    # arange
    "T.arange(5)", "T.arange(5.0)", "T.arange(1, 4)", "T.arange(0, 1, 0.1)", "T.arange(1, 2.5, 0.5)",
    "T.arange(0, -3, -1)", "T.arange(0, 3, -1)", "T.arange(0, 3, 0)", "T.arange(T.tensor(3))",
    "T.arange(T.tensor(3.0))", "T.arange(3, dtype=T.bool)", "T.arange(0, 5, 2, dtype=T.float32)",
    "T.arange(0, 2.5, 0.5, dtype=T.int64)", "T.arange(0, float('inf'))", "T.arange(0, float('nan'))",
    "T.arange(1, 1)", "T.arange(True)", "T.arange(np.int32(3))", "T.arange(np.float32(3))",
    "T.arange(0, 300, dtype=T.uint8)", "T.arange(0, 200, dtype=T.int8)", "T.arange('a')", "T.arange(1j)",
    "T.arange(0, 10, 3, dtype=T.float16)", "T.arange(0.5, 3.7, 1, dtype=T.int64)",
    "T.arange(0.5, 3.7, 1.5, dtype=T.int64)", "T.arange(0.5, 3.7, 1.5, dtype=T.int32)",
    "T.arange(-0.5, 3, 1, dtype=T.int64)", "T.arange(0, 1, 0.3)", "T.arange(1e8, 1e8 + 3.0)",
    "T.arange(0, 1, 1 / 3)", "T.arange(1, 2, 0.1)", "T.arange(0, 0.3, 0.1)", "T.arange(0, 2**62, 2**60)",
    "T.arange(0, 3, T.tensor(0.5))", "T.arange(1, 10, 3, dtype=T.float64)", "T.arange(0, 1, 0.1, dtype=T.float64)",
    "T.arange(0.0, 1.0, 1 / 49)", "T.arange(-1, 1, 0.1)", "T.arange(2**53, 2**53 + 4)",
    "T.arange(0, 5000, dtype=T.float16)", "T.arange(0.1, 0.5, 0.1)", "T.arange(10, 0, -3)",
    "T.arange(-5, 5, 0.7)", "T.arange(0, 2**62)", "T.arange(5, 0, -0.5, dtype=T.float64)",
    # linspace / logspace
    "T.linspace(0, 1, 5)", "T.linspace(0, 10, 5, dtype=T.int64)", "T.linspace(0, 10, 4, dtype=T.int64)",
    "T.linspace(10, 0, 4, dtype=T.int64)", "T.linspace(-5, 5, 4, dtype=T.int64)", "T.linspace(0, 1, 1)",
    "T.linspace(0, 1, 0)", "T.linspace(0, 1, -1)", "T.linspace(0, 1j, 5)", "T.linspace(T.tensor(0.0), T.tensor(1.0), 3)",
    "T.linspace(T.tensor([0.0]), T.tensor(1.0), 3)", "T.linspace(0, -10, 4, dtype=T.int64)",
    "T.linspace(3, 10, 1, dtype=T.int64)", "T.linspace(0, 10, 7)", "T.linspace(0, 10, 7, dtype=T.float64)",
    "T.linspace(1, 2, 6)", "T.linspace(-100, 100, 5, dtype=T.int8)", "T.linspace(0, 255, 4, dtype=T.uint8)",
    "T.linspace(0, 1, 4, dtype=T.bool)", "T.linspace(T.tensor(0), T.tensor(10), 3)", "T.linspace(0, 1, 3.0)",
    "T.linspace(1j, 2, 3)", "T.linspace(0, 1, 3, dtype=T.complex64)", "T.linspace(-3.5, 7.25, 101)",
    "T.linspace(0, 1, 4, dtype=T.float16)", "T.logspace(0, 2, 3)", "T.logspace(0, 2, 3, base=2)",
    "T.logspace(0, 2, 3, dtype=T.int64)", "T.logspace(0, 3, 4, 2, dtype=T.int64)",
    "T.logspace(-2, 2, 5, dtype=T.float64)", "T.logspace(0, 2, 3, base=-2)", "T.logspace(0, 1, 3, dtype=T.int64)",
    "T.logspace(2, 5, 1)", "T.logspace(-1, 1, 9)",
    # eye / empty_strided / scalar_tensor / complex
    "T.eye(2)", "T.eye(2, 3)", "T.eye(-1)", "T.eye(2, -1)", "T.eye(2, dtype=T.bool)", "T.eye(0)", "T.eye(3, 0)",
    "T.eye(2.5)", "T.eye(2, dtype=T.int32)", "T.empty_strided((2, 3), (1, 2)).stride()",
    "T.empty_strided((2, 3), (1, -2))", "T.empty_strided((2, 3), (1,))", "T.empty_strided((2, 3), (0, 0)).stride()",
    "T.empty_strided((-1,), (1,))", "T.empty_strided((2, 2), (2, 1), dtype=T.int32).dtype",
    "T.empty_strided((0, 2), (1, 1)).stride()", "T.scalar_tensor(3)", "T.scalar_tensor(True)",
    "T.scalar_tensor(3, dtype=T.int64)", "T.scalar_tensor(1j)", "T.scalar_tensor(2, dtype=T.bool)",
    "T.scalar_tensor(2, requires_grad=True)", "T.scalar_tensor(T.tensor(2))",
    "T.complex(T.tensor([1.0]), T.tensor([2.0]))", "T.complex(T.tensor([1]), T.tensor([2]))",
    "T.complex(T.tensor([1.0]), T.tensor([2.0], dtype=T.float64))",
    "T.complex(T.tensor([1.0]), T.tensor([[2.0], [3.0]]))",
    "T.complex(T.tensor([1.0], dtype=T.float64), T.tensor([2.0], dtype=T.float64))",
    # predicates
    "T.numel(T.zeros(2, 3))", "T.numel([1])", "T.is_tensor([1])", "T.is_tensor(T.zeros(1))",
    "T.is_floating_point(T.zeros(1))", "T.is_floating_point([1.0])", "T.is_floating_point(T.zeros(1, dtype=T.int32))",
    "T.is_complex(T.zeros(1, dtype=T.cfloat))", "T.is_complex(T.zeros(1))", "T.is_nonzero(T.tensor([0.0]))",
    "T.is_nonzero(T.tensor([1.0, 2.0]))", "T.is_nonzero(T.tensor([]))", "T.is_nonzero(T.tensor(float('nan')))",
    "T.tensor([3]).is_nonzero()",
]  # fmt: skip


def _outcome(T, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(expr, {"T": T, "np": np})
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            return ("raises", type(e).__name__, str(e).split("\n")[0])
    if isinstance(r, (T.Tensor,)):
        a = r.detach().numpy() if r.requires_grad else r.numpy()
        return ("tensor", r.dtype.__repr__(), tuple(r.shape), r.requires_grad, a)
    if isinstance(r, (T.Size, tuple)):
        return ("tuple", tuple(r))
    if isinstance(r, T.dtype):
        return ("value", repr(r))
    return ("value", r)


def _check(expr, want, got):
    assert got[0] == want[0], f"{expr}: numtorch gave {got[:3]}, torch {want[:3]}"
    if want[0] == "raises":
        if want[1] == "_LinAlgError":
            want = (want[0], "LinAlgError", want[2])
        assert got[1:] == want[1:], f"{expr}: numtorch raised {got[1:]}, torch {want[1:]}"
    elif want[0] == "tensor":
        assert got[1:4] == want[1:4], f"{expr}: numtorch {got[1:4]}, torch {want[1:4]}"
        # torch's vectorised range kernels restart from a rounded base every vector (its width
        # depends on the CPU), so elements may differ by a few ulps of the range's magnitude
        w, g = want[4].astype(np.complex128), got[4].astype(np.complex128)
        eps = {"torch.float16": 1e-3, "torch.float32": 1.2e-7}.get(want[1], 2.3e-16)
        atol = 4 * eps * (np.abs(w).max() if w.size else 0)
        np.testing.assert_allclose(g, w, rtol=4 * eps, atol=atol, err_msg=expr)
    else:
        assert got == want, f"{expr}: numtorch {got}, torch {want}"


@pytest.mark.parametrize("expr", EXPRS)
def test_factory_matches_torch(expr):
    _check(expr, _outcome(torch, expr), _outcome(numtorch, expr))


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_inference_follows_the_default_dtype(default):
    exprs = ["T.tensor([1.5])", "T.tensor([1, 2j])", "T.full((1,), 2.5)", "T.arange(0, 1, 0.5)",
             "T.linspace(0, 1, 2)", "T.eye(1)", "T.zeros(1)", "T.scalar_tensor(1)", "T.tensor([1, 2.5])"]  # fmt: skip
    for expr in exprs:
        torch.set_default_dtype(getattr(torch, default))
        numtorch.set_default_dtype(getattr(numtorch, default))
        try:
            _check(expr, _outcome(torch, expr), _outcome(numtorch, expr))
        finally:
            torch.set_default_dtype(torch.float32)
            numtorch.set_default_dtype(numtorch.float32)


@pytest.mark.parametrize("start,end,step", [(0, 1, 0.1), (0, 10, 0.3), (-1, 1, 0.01), (1e-3, 1, 1e-3),
                                            (0.5, 123.4, 0.7), (10, -10, -0.25), (0, 1, 1 / 7),
                                            (0, 5, 1), (-7, 300, 3), (5.5, -20.25, -1.5)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16"])
def test_arange_lengths_and_values_match_torch(start, end, step, dtype):
    want, got = (
        _outcome(T, f"T.arange({start!r}, {end!r}, {step!r}, dtype=T.{dtype})")
        for T in (torch, numtorch)
    )
    _check("arange", want, got)
