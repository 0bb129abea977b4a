"""Tensor printing: literal strings as PyTorch 2.x prints them (checked against torch by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numtorch._tensor_str import (
    PRINT_OPTS,
    format_tensor,
    get_printoptions,
    printoptions,
    set_printoptions,
)

nan, inf = math.nan, math.inf

# The default-dtype set when the default float dtype is float32.
_DEFAULT = {np.dtype(np.float32), np.dtype(np.complex64), np.dtype(np.int64), np.dtype(np.bool_)}


def fmt(values, dtype=None, **kwargs) -> str:
    arr = np.asarray(values, dtype=dtype)
    return format_tensor(
        arr,
        dtype_name="torch." + arr.dtype.name,
        is_default_dtype=arr.dtype in _DEFAULT,
        **kwargs,
    )


@pytest.fixture(autouse=True)
def _restore_printoptions():
    old = get_printoptions()
    yield
    set_printoptions(**old)


F32, F64, F16 = np.float32, np.float64, np.float16

CASES = [
    # 0-d
    (np.array(3.0, F32), "tensor(3.)"),
    (np.array(12.3307, F32), "tensor(12.3307)"),
    (np.array(3), "tensor(3)"),
    (np.array(True), "tensor(True)"),
    (np.array(1.5e-5, F32), "tensor(1.5000e-05)"),
    (np.array(1 + 2j, np.complex64), "tensor(1.+2.j)"),
    (np.array(2.5, F64), "tensor(2.5000, dtype=torch.float64)"),
    (np.array(-0.0, F32), "tensor(-0.)"),
    (np.array(nan, F32), "tensor(nan)"),
    # empty
    (np.zeros(0, F32), "tensor([])"),
    (np.zeros((0, 3), F32), "tensor([], size=(0, 3))"),
    (np.zeros(0, np.int32), "tensor([], dtype=torch.int32)"),
    (np.zeros(0, np.int64), "tensor([], dtype=torch.int64)"),
    (np.zeros(0, np.bool_), "tensor([], dtype=torch.bool)"),
    (np.zeros(0, F64), "tensor([], dtype=torch.float64)"),
    (np.zeros((2, 0), np.int32), "tensor([], size=(2, 0), dtype=torch.int32)"),
    (np.zeros(0, np.complex64), "tensor([], dtype=torch.complex64)"),
    # bool and integers
    (np.array([True, False]), "tensor([ True, False])"),
    (
        np.array([[True, False], [False, False]]),
        "tensor([[ True, False],\n        [False, False]])",
    ),
    (np.array([1, 2]), "tensor([1, 2])"),
    (np.array([1, 2], np.int32), "tensor([1, 2], dtype=torch.int32)"),
    (np.array([0, 255], np.uint8), "tensor([  0, 255], dtype=torch.uint8)"),
    (np.array([-1, 10, 100]), "tensor([ -1,  10, 100])"),
    (np.array([-7, 3], np.int8), "tensor([-7,  3], dtype=torch.int8)"),
    # floats, fixed notation
    (np.array([1.5, -2.25], F32), "tensor([ 1.5000, -2.2500])"),
    (np.array([1.5, 2.25], F16), "tensor([1.5000, 2.2500], dtype=torch.float16)"),
    (np.array([1500.0, 2500.0], F16), "tensor([1500., 2500.], dtype=torch.float16)"),
    (np.array([65504.0, -65504.0], F16), "tensor([ 65504., -65504.], dtype=torch.float16)"),
    (np.array([1.0, 2.0], F64), "tensor([1., 2.], dtype=torch.float64)"),
    (np.array([1.0, 1000.0], F32), "tensor([   1., 1000.])"),
    (
        np.arange(0.0, 1000.0, 100.0, dtype=F32),
        "tensor([  0., 100., 200., 300., 400., 500., 600., 700., 800., 900.])",
    ),
    # scientific notation: ratio > 1000, max > 1e8 or min < 1e-4
    (np.array([1e-5, 1e5], F32), "tensor([1.0000e-05, 1.0000e+05])"),
    (np.array([1.0, 1001.0], F32), "tensor([1.0000e+00, 1.0010e+03])"),
    (np.array([1e9], F32), "tensor([1.0000e+09])"),
    (np.array([5e-5, 1e-4], F32), "tensor([5.0000e-05, 1.0000e-04])"),
    (
        np.array([-1e-5, 3e5, 0.0, nan], F32),
        "tensor([-1.0000e-05,  3.0000e+05,  0.0000e+00,         nan])",
    ),
    (np.array([1e-120, 1.0], F64), "tensor([1.0000e-120,  1.0000e+00], dtype=torch.float64)"),
    # nan, inf and negative zero are not measured, so they can stick out of the column
    (np.array([nan, inf, -inf, 1.0], F32), "tensor([nan, inf, -inf, 1.])"),
    (np.array([nan, inf], F32), "tensor([nan, inf])"),
    (np.array([nan, 1.5], F32), "tensor([   nan, 1.5000])"),
    (np.array([-0.0, 0.0], F32), "tensor([-0., 0.])"),
    (np.array([-0.0, 1.5], F32), "tensor([-0.0000, 1.5000])"),
    (np.array([0.0, 10.0], F32), "tensor([ 0., 10.])"),
    # complex: real and imaginary parts have their own formatters
    (np.array([1 + 2j, 3 - 4j], np.complex64), "tensor([1.+2.j, 3.-4.j])"),
    (np.array([1 - 0j, complex(2, -0.0)], np.complex64), "tensor([1.+0.j, 2.-0.j])"),
    (
        np.array([0.5 + 1e-5j, 2 + 3j], np.complex64),
        "tensor([0.5000+1.0000e-05j, 2.0000+3.0000e+00j])",
    ),
    (np.array([1 + 2j], np.complex128), "tensor([1.+2.j], dtype=torch.complex128)"),
    # dimensions
    (
        np.eye(5, dtype=F32) * 2,
        (
            "tensor([[2., 0., 0., 0., 0.],\n"
            "        [0., 2., 0., 0., 0.],\n"
            "        [0., 0., 2., 0., 0.],\n"
            "        [0., 0., 0., 2., 0.],\n"
            "        [0., 0., 0., 0., 2.]])"
        ),
    ),
    (
        np.arange(24, dtype=F32).reshape(2, 3, 4),
        (
            "tensor([[[ 0.,  1.,  2.,  3.],\n"
            "         [ 4.,  5.,  6.,  7.],\n"
            "         [ 8.,  9., 10., 11.]],\n"
            "\n"
            "        [[12., 13., 14., 15.],\n"
            "         [16., 17., 18., 19.],\n"
            "         [20., 21., 22., 23.]]])"
        ),
    ),
    (
        np.arange(16).reshape(2, 2, 2, 2),
        (
            "tensor([[[[ 0,  1],\n"
            "          [ 2,  3]],\n"
            "\n"
            "         [[ 4,  5],\n"
            "          [ 6,  7]]],\n"
            "\n"
            "\n"
            "        [[[ 8,  9],\n"
            "          [10, 11]],\n"
            "\n"
            "         [[12, 13],\n"
            "          [14, 15]]]])"
        ),
    ),
    (
        np.arange(18, dtype=F64).reshape(2, 9) / 7 + 100,
        (
            "tensor([[100.0000, 100.1429, 100.2857, 100.4286, 100.5714, 100.7143, 100.8571,\n"
            "         101.0000, 101.1429],\n"
            "        [101.2857, 101.4286, 101.5714, 101.7143, 101.8571, 102.0000, 102.1429,\n"
            "         102.2857, 102.4286]], dtype=torch.float64)"
        ),
    ),
    # summarisation (numel > 1000)
    (np.arange(5000), "tensor([   0,    1,    2,  ..., 4997, 4998, 4999])"),
    (np.arange(1001, dtype=F32), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
    (
        np.arange(2000, dtype=F32).reshape(40, 50),
        (
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
            "         4.9000e+01],\n"
            "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
            "         9.9000e+01],\n"
            "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n"
            "         1.4900e+02],\n"
            "        ...,\n"
            "        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n"
            "         1.8990e+03],\n"
            "        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n"
            "         1.9490e+03],\n"
            "        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
            "         1.9990e+03]])"
        ),
    ),
]


@pytest.mark.parametrize(("values", "expected"), CASES, ids=[c[1][:40] for c in CASES])
def test_format(values, expected):
    assert fmt(values) == expected


def test_summarised_3d_separates_blocks_with_blank_lines():
    out = fmt(np.arange(3000).reshape(10, 10, 30))
    lines = out.split("\n")
    assert lines[0] == "tensor([[[   0,    1,    2,  ...,   27,   28,   29],"
    assert lines[3] == "         ...,"
    assert lines[7] == ""
    assert lines[8] == "        [[ 300,  301,  302,  ...,  327,  328,  329],"
    assert "\n\n        ...,\n\n        [[2100, 2101, 2102,  ..., 2127, 2128, 2129]," in out
    assert lines[-1] == "         [2970, 2971, 2972,  ..., 2997, 2998, 2999]]])"
    assert len(lines) == 49


def test_docs_example_wraps_row_and_keeps_requires_grad_on_last_line():
    values = np.array(
        [0.7164, 0.9897, 0.1745, 0.9336, 0.4287, 0.7989, 0.2169, 0.7474, 0.5624, 0.5970], F32
    )
    assert fmt(values, requires_grad=True) == (
        "tensor([0.7164, 0.9897, 0.1745, 0.9336, 0.4287, 0.7989, 0.2169, 0.7474, 0.5624,\n"
        "        0.5970], requires_grad=True)"
    )


def test_grad_fn_replaces_requires_grad():
    out = fmt(np.array([2.0, 3.0], F32), requires_grad=True, grad_fn="AddBackward0")
    assert out == "tensor([2., 3.], grad_fn=<AddBackward0>)"
    assert fmt(np.array(4.0, F32), grad_fn="SumBackward0") == "tensor(4., grad_fn=<SumBackward0>)"


def test_suffixes_move_to_new_line_past_linewidth():
    row = np.full(8, 0.1234, F32)
    assert fmt(row, requires_grad=True) == (
        "tensor([0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234],\n"
        "       requires_grad=True)"
    )
    assert fmt(np.full(7, 0.1234, F64), requires_grad=True) == (
        "tensor([0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234],\n"
        "       dtype=torch.float64, requires_grad=True)"
    )
    assert fmt(np.full(6, 0.1234, F64), requires_grad=True) == (
        "tensor([0.1234, 0.1234, 0.1234, 0.1234, 0.1234, 0.1234], dtype=torch.float64,\n"
        "       requires_grad=True)"
    )
    assert fmt(np.full((2, 8), 0.2468, F64), grad_fn="MulBackward0") == (
        "tensor([[0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468],\n"
        "        [0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468, 0.2468]],\n"
        "       dtype=torch.float64, grad_fn=<MulBackward0>)"
    )


def test_suffix_order_device_size_dtype_extra_grad():
    assert fmt(np.array([1.0, 2.0], F32), device="cuda:0") == "tensor([1., 2.], device='cuda:0')"
    out = fmt(np.zeros((2, 0), np.int32), device="cuda:1", requires_grad=True)
    assert out == "tensor([], device='cuda:1', size=(2, 0), dtype=torch.int32, requires_grad=True)"
    out = fmt(np.array([1, 2], np.int32), device="cuda:0", extra=["a=1", "b=2"], grad_fn="X")
    assert out == "tensor([1, 2], device='cuda:0', dtype=torch.int32, a=1, b=2, grad_fn=<X>)"


def test_tensor_name_sets_prefix_and_indent():
    out = fmt(np.arange(24, dtype=F32).reshape(2, 12) / 7, tensor_name="MyTensor")
    assert out == (
        "MyTensor([[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000,\n"
        "           1.1429, 1.2857, 1.4286, 1.5714],\n"
        "          [1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286, 2.5714, 2.7143,\n"
        "           2.8571, 3.0000, 3.1429, 3.2857]])"
    )


def test_default_float64_uses_caller_flag():
    arr = np.array([1.0, 2.0], F64)
    out = format_tensor(arr, dtype_name="torch.float64", is_default_dtype=True)
    assert out == "tensor([1., 2.])"
    empty = np.zeros(0, F64)
    assert format_tensor(empty, dtype_name="torch.float64", is_default_dtype=True) == "tensor([])"


def test_defaults_and_get_printoptions():
    assert get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert PRINT_OPTS.precision == 4


def test_precision():
    set_printoptions(precision=2)
    assert fmt(np.array([1.12345, 2.5], F32)) == "tensor([1.12, 2.50])"
    assert fmt(np.array([1e-5, 1e5], F32)) == "tensor([1.00e-05, 1.00e+05])"


def test_sci_mode_forced():
    set_printoptions(sci_mode=False)
    assert fmt(np.array([1e-5, 1e5], F32)) == "tensor([     0.0000, 100000.0000])"
    set_printoptions(sci_mode=False, precision=2)
    assert fmt(np.array([1e-5, 1e5], F32)) == "tensor([     0.00, 100000.00])"
    # Options persist between calls, so precision must be put back explicitly.
    set_printoptions(sci_mode=True, precision=4)
    assert fmt(np.array([1.0, 2.0], F32)) == "tensor([1.0000e+00, 2.0000e+00])"
    # Without a nonzero finite value the formatter never looks at sci_mode.
    assert fmt(np.array([0.0, 0.0], F32)) == "tensor([0., 0.])"


def test_set_printoptions_resets_sci_mode():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


def test_threshold_and_edgeitems():
    set_printoptions(threshold=5)
    assert fmt(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(threshold=5, edgeitems=1)
    assert fmt(np.arange(20).reshape(4, 5)) == (
        "tensor([[ 0,  ...,  4],\n        ...,\n        [15,  ..., 19]])"
    )


def test_edgeitems_zero_prints_size():
    set_printoptions(threshold=5, edgeitems=0)
    assert fmt(np.arange(10)) == "tensor([...], size=(10,))"
    assert fmt(np.arange(12).reshape(3, 4)) == "tensor([...], size=(3, 4))"
    set_printoptions(profile="default", edgeitems=0)
    assert fmt(np.arange(6).reshape(2, 3)) == "tensor([[0, 1, 2],\n        [3, 4, 5]], size=(2, 3))"


def test_profiles():
    set_printoptions(profile="short", threshold=5)
    assert get_printoptions()["precision"] == 2
    assert fmt(np.arange(10)) == "tensor([0, 1,  ..., 8, 9])"
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == inf
    out = fmt(np.arange(1001, dtype=F32))
    assert "..." not in out
    assert out.endswith("  996.,  997.,  998.,  999.,\n        1000.])")
    set_printoptions(profile="default")
    assert get_printoptions()["threshold"] == 1000


def test_linewidth():
    set_printoptions(linewidth=30)
    assert fmt(np.arange(10, dtype=F32)) == (
        "tensor([0., 1., 2., 3., 4.,\n        5., 6., 7., 8., 9.])"
    )
    set_printoptions(linewidth=20)
    assert fmt(np.arange(8, dtype=F32).reshape(2, 4)) == (
        "tensor([[0., 1., 2.,\n         3.],\n        [4., 5., 6.,\n         7.]])"
    )
    set_printoptions(profile="full", linewidth=200)
    lines = fmt(np.arange(1001, dtype=F32)).split("\n")
    assert len(lines) == 38
    assert lines[1].startswith("          27.,   28.,")


def test_printoptions_context_manager_restores():
    with printoptions(precision=1):
        assert fmt(np.array(1.25, F64)) == "tensor(1.2, dtype=torch.float64)"
    assert get_printoptions()["precision"] == 4
