"""The shared write and scalar mechanisms every op goes through (issue 10): out= computes in
the result dtype, writes into overlapping or expanded memory are refused before anything is
written, dtype-preserving unary ops want out= of the input's dtype, Python scalars keep double
precision where ATen reads them as double, allocation failures carry PyTorch's text.
Expected values and messages are PyTorch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

INTERNAL = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


# ---- out= computes in the result dtype, then casts ------------------------------------------------
@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda o: numtorch.sub(numtorch.tensor([0], dtype=numtorch.uint8), 5, out=o), [251]),
        (lambda o: numtorch.mul(numtorch.tensor([200], dtype=numtorch.uint8), 2, out=o), [144]),
        (lambda o: numtorch.pow(numtorch.tensor([200], dtype=numtorch.uint8), 2, out=o), [64]),
        (lambda o: numtorch.add(numtorch.tensor([127], dtype=numtorch.int8), numtorch.tensor([1], dtype=numtorch.int8), out=o), [-128]),
        (lambda o: numtorch.neg(numtorch.tensor([5], dtype=numtorch.uint8).expand(1), out=o.to(numtorch.uint8)), [251]),
    ],
)
def test_out_computes_in_the_result_dtype_then_casts(call, expected):
    out = numtorch.zeros(0, dtype=numtorch.int64)
    r = call(out)
    assert r.tolist() == expected


def test_float_result_into_wider_out_rounds_in_the_result_dtype():
    a = numtorch.tensor([1.0], dtype=numtorch.float32)
    b = numtorch.tensor([1e-8], dtype=numtorch.float32)
    out = numtorch.zeros(1, dtype=numtorch.float64)
    numtorch.add(a, b, out=out)
    assert out.item() == 1.0  # float32 1 + 1e-8 rounds to 1, then widens
    h = numtorch.tensor([1.0], dtype=numtorch.float16)
    numtorch.add(h, numtorch.tensor([1e-3], dtype=numtorch.float16), out=out)
    assert out.item() == float(np.float16(1.0) + np.float16(1e-3))  # rounded to half first


def test_out_cast_refusal_keeps_pytorch_text():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        numtorch.add(numtorch.ones(2), 1, out=numtorch.zeros(2, dtype=numtorch.int64))
    r = numtorch.add(numtorch.ones(2, dtype=numtorch.int64), 1, out=numtorch.zeros(2))  # int into float: fine
    assert r.dtype == numtorch.float32 and r.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("op", ["neg", "sign", "floor", "ceil", "trunc", "frac", "sgn", "round", "conj_physical"])
def test_dtype_preserving_unary_out_must_have_the_input_dtype(op):
    x = numtorch.tensor([1.5, -2.0])
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        getattr(numtorch, op)(x, out=numtorch.zeros(2, dtype=numtorch.float64))
    assert getattr(numtorch, op)(x, out=numtorch.zeros(2)).dtype == numtorch.float32


# ---- overlapping and expanded destinations -------------------------------------------------------
def _writes():
    x = numtorch.arange(5.0)
    return {
        "add_ partial": (lambda: x[1:].add_(x[:-1]), PARTIAL, x),
        "out partial": (lambda: numtorch.add(x[:4], 1, out=x[1:]), PARTIAL, x),
        "out partial second input": (lambda: numtorch.mul(x[:4], x[1:], out=x[:4]), PARTIAL, x),
        "add_ expanded": (lambda: numtorch.zeros(1).expand(3).add_(1), INTERNAL, None),
        "out expanded": (lambda: numtorch.add(numtorch.ones(3), 1, out=numtorch.zeros(1).expand(3)), INTERNAL, None),
        "unary out expanded": (lambda: numtorch.exp(numtorch.ones(3), out=numtorch.zeros(1).expand(3)), INTERNAL, None),
        "cat out expanded": (lambda: numtorch.cat([numtorch.ones(3)], out=numtorch.zeros(1).expand(3)), INTERNAL, None),
        "index_select out expanded": (
            lambda: numtorch.index_select(numtorch.ones(3), 0, numtorch.tensor([0, 1, 2]), out=numtorch.zeros(1).expand(3)),
            INTERNAL, None),
        "arange out expanded": (lambda: numtorch.arange(3.0, out=numtorch.zeros(1).expand(3)), INTERNAL, None),
        "sort out expanded": (
            lambda: numtorch.sort(numtorch.tensor([3.0, 1.0, 2.0]),
                                  out=(numtorch.zeros(1).expand(3), numtorch.zeros(1, dtype=numtorch.int64).expand(3))),
            INTERNAL, None),
    }  # fmt: skip


@pytest.mark.parametrize("name", list(_writes()))
def test_overlapping_destinations_raise_before_writing(name):
    call, msg, watched = _writes()[name]
    before = None if watched is None else watched.clone()
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        call()
    if watched is not None:
        assert watched.tolist() == before.tolist()


def test_full_overlap_and_fills_are_allowed():
    x = numtorch.arange(4.0)
    assert numtorch.add(x, x, out=x).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert x.mul_(x.view(2, 2).view(4)).tolist() == [0.0, 4.0, 16.0, 36.0]
    e = numtorch.zeros(1).expand(3)
    assert numtorch.zeros(3, out=e).tolist() == [0.0, 0.0, 0.0]  # ATen fills expanded outs


# ---- Python scalars keep double precision where ATen reads a double ------------------------------
def test_pow_scalar_exponent_keeps_double_precision():
    assert numtorch.pow(numtorch.tensor([0]), 1e-300).tolist() == [0.0]
    assert numtorch.pow(numtorch.tensor([0.0, 2.0]), 1e-300).tolist() == [0.0, 1.0]
    t = numtorch.tensor([[3.0, 1.0], [2.0, 5.0]]).t()  # strided kernel
    assert numtorch.pow(t, 1e-300)[0, 0].item() == 1.0 and numtorch.pow(t * 0, 1e-300)[0, 0].item() == 0.0
    # std::pow(float(x), double(e)) rounded once to float: the double result, not powf's
    x = np.float32(3.0)
    assert numtorch.pow(numtorch.tensor([3.0]), 0.1).item() == float(np.float32(float(x) ** 0.1))


def test_add_and_mul_scalars_are_cast_to_the_compute_dtype():
    # opmath for float32 is float: the scalar rounds to float32 first (1e-300 -> 0)
    assert numtorch.mul(numtorch.tensor([1e30]), 1e-300).tolist() == [0.0]
    assert numtorch.add(numtorch.tensor([0.0]), 1e-300).tolist() == [0.0]


# ---- allocation failures -----------------------------------------------------------------------
@pytest.mark.parametrize("call", [lambda: numtorch.randn(2**40), lambda: numtorch.zeros(2**40),
                                  lambda: numtorch.ones(3).expand(2**40, 3).contiguous()])  # fmt: skip
def test_allocation_failure_raises_pytorch_allocator_error(call):
    with pytest.raises(RuntimeError, match=r"^DefaultCPUAllocator: can't allocate memory: you tried to allocate \d+ bytes\.") as e:
        call()
    assert e.value.__cause__ is None and e.value.__suppress_context__


# ---- NumPy errors are not chained to PyTorch's ------------------------------------------------------
@pytest.mark.parametrize("data, exc, msg", [([[1, 2], [3]], ValueError, r"^expected sequence of length 2 at dim 1 \(got 1\)$"),
                                            ((1, [2]), TypeError, "^'list' object cannot be interpreted as an integer$")])  # fmt: skip
def test_ragged_data_error_has_no_numpy_context(data, exc, msg):
    with pytest.raises(exc, match=msg) as e:
        numtorch.tensor(data)
    chained = e.value.__cause__ or (None if e.value.__suppress_context__ else e.value.__context__)
    assert chained is None, repr(chained)


# ---- reductions: each out= rule checked before the write ------------------------------------------------
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_refuse_an_out_the_result_cannot_be_cast_to(op):
    out = numtorch.full((3,), 7, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        getattr(numtorch, op)(numtorch.ones(2, 3), dim=0, out=out)
    assert out.tolist() == [7, 7, 7]
    assert getattr(numtorch, op)(numtorch.ones(2, 3), dim=0, out=numtorch.zeros(0, dtype=numtorch.float64)).dtype == numtorch.float64


def test_norm_out_must_have_the_result_dtype():
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        numtorch.norm(numtorch.ones(2, 3), dim=0, out=numtorch.zeros(0, dtype=numtorch.float64))
