"""format_tensor against ``repr(torch.Tensor)``, character for character."""

from __future__ import annotations

import itertools
import math

import pytest

from numtorch._tensor_str import format_tensor, get_printoptions, set_printoptions

torch = pytest.importorskip("torch")

nan, inf = math.nan, math.inf


def ours(t, tensor_name: str = "tensor") -> str:
    default = torch.get_default_dtype()
    default_complex = torch.cdouble if default == torch.double else torch.cfloat
    data = t.detach().resolve_conj().resolve_neg()
    # NumPy has no bfloat16; widening to float32 is exact and prints the same digits.
    values = data.float().numpy() if data.dtype == torch.bfloat16 else data.numpy()
    return format_tensor(
        values,
        dtype_name=str(t.dtype),
        is_default_dtype=t.dtype in (default, default_complex, torch.int64, torch.bool),
        requires_grad=t.requires_grad,
        grad_fn=type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        tensor_name=tensor_name,
    )


@pytest.fixture(autouse=True)
def _restore_state():
    old_ours, old_torch = get_printoptions(), torch._tensor_str.get_printoptions()
    old_default = torch.get_default_dtype()
    yield
    set_printoptions(**old_ours)
    torch.set_printoptions(**old_torch)
    torch.set_default_dtype(old_default)


def check(t, tensor_name: str = "tensor") -> None:
    assert ours(t, tensor_name) == repr(t)


# ---------------------------------------------------------------- structured tensors

STRUCTURED = {
    "eye5x2": lambda: torch.eye(5) * 2,
    "docs_rand": lambda: torch.tensor(
        [0.7164, 0.9897, 0.1745, 0.9336, 0.4287, 0.7989, 0.2169, 0.7474, 0.5624, 0.5970],
        requires_grad=True,
    ),
    "scalar_int_float": lambda: torch.tensor(3.0),
    "scalar": lambda: torch.tensor(12.3307),
    "scalar_long": lambda: torch.tensor(-42),
    "scalar_bool": lambda: torch.tensor(False),
    "scalar_complex": lambda: torch.tensor(-1.5 - 0.25j),
    "scalar_nan": lambda: torch.tensor(nan),
    "scalar_neg_inf": lambda: torch.tensor(-inf),
    "scalar_tiny": lambda: torch.tensor(1e-30, dtype=torch.float64),
    "empty": lambda: torch.tensor([]),
    "empty_0x3": lambda: torch.zeros(0, 3),
    "empty_2x0x4_int32": lambda: torch.zeros(2, 0, 4, dtype=torch.int32),
    "empty_long": lambda: torch.zeros(0, dtype=torch.long),
    "empty_bool": lambda: torch.zeros(0, dtype=torch.bool),
    "empty_f64": lambda: torch.zeros(0, dtype=torch.float64),
    "empty_cfloat": lambda: torch.zeros(0, 2, dtype=torch.cfloat),
    "empty_grad": lambda: torch.zeros(0, 3, requires_grad=True),
    "bool": lambda: torch.tensor([True, False]),
    "int": lambda: torch.tensor([1, 2]),
    "int32": lambda: torch.tensor([1, 2], dtype=torch.int32),
    "uint8": lambda: torch.tensor([0, 7, 255], dtype=torch.uint8),
    "int_extremes": lambda: torch.tensor([-(2**63), 2**63 - 1]),
    "half": lambda: torch.tensor([1.5, 2.25, 65504.0], dtype=torch.float16),
    "double": lambda: torch.tensor([1.0, 2.0], dtype=torch.float64),
    "sci_ratio": lambda: torch.tensor([1e-5, 1e5]),
    "sci_big": lambda: torch.tensor([1.5e8, 2.0]),
    "sci_edge_ratio_1000": lambda: torch.tensor([1.0, 1000.0]),
    "sci_edge_1e8": lambda: torch.tensor([1e8], dtype=torch.float64),
    "sci_edge_1e-4": lambda: torch.tensor([1e-4], dtype=torch.float64),
    "sci_3digit_exp": lambda: torch.tensor([1e-120, -1e200, 3.0], dtype=torch.float64),
    "arange_2000_40x50": lambda: torch.arange(2000.0).reshape(40, 50),
    "arange_5000": lambda: torch.arange(5000),
    "arange_1001": lambda: torch.arange(1001.0),
    "arange_1000": lambda: torch.arange(1000.0),
    "arange_3000_3d": lambda: torch.arange(3000).reshape(10, 10, 30),
    "summarised_4d": lambda: torch.arange(4096.0).reshape(8, 8, 8, 8) / 3,
    "summarised_short_rows": lambda: torch.arange(2002).reshape(1001, 2),
    "summarised_complex": lambda: torch.arange(1200.0).reshape(30, 40) * (1 - 2j),
    "summarised_bool": lambda: torch.arange(3000).reshape(30, 100) % 3 == 0,
    "nan_inf": lambda: torch.tensor([nan, inf, -inf, 1.0]),
    "nan_inf_only": lambda: torch.tensor([nan, -inf]),
    "nan_frac": lambda: torch.tensor([nan, 1.5, -2.0]),
    "neg_zero": lambda: torch.tensor([-0.0, 0.0]),
    "neg_zero_frac": lambda: torch.tensor([-0.0, 1.5]),
    "zeros_2d": lambda: torch.zeros(2, 3),
    "complex": lambda: torch.tensor([1 + 2j, 3 - 4j]),
    "complex_neg_zero_imag": lambda: torch.complex(
        torch.tensor([1.0, 2.0]), torch.tensor([0.0, -0.0])
    ),
    "complex_mixed_modes": lambda: torch.tensor([0.5 + 1e-5j, 2 + 3j]),
    "complex_nan": lambda: torch.tensor([complex(nan, 1.0), complex(1.0, inf)]),
    "complex128": lambda: torch.tensor([1 + 2j, 1e-7 - 3.5j], dtype=torch.complex128),
    "conj_view": lambda: torch.tensor([1 + 2j, 3 - 4j]).conj(),
    "neg_view": lambda: torch.tensor([1.5, -2.0]).neg(),
    "wrap_suffix_8": lambda: torch.full((8,), 0.1234, requires_grad=True),
    "wrap_suffix_dtype": lambda: torch.full((7,), 0.1234, dtype=torch.float64, requires_grad=True),
    "wrap_suffix_split": lambda: torch.full((6,), 0.1234, dtype=torch.float64, requires_grad=True),
    "grad_fn_add": lambda: torch.tensor([1.0, 2.0], requires_grad=True) + 1,
    "grad_fn_sum": lambda: torch.ones(2, 2, requires_grad=True).sum(),
    "grad_fn_wrap": lambda: torch.full((2, 8), 0.1234, dtype=torch.float64, requires_grad=True) * 2,
    "grad_fn_view": lambda: torch.ones(3, 4, requires_grad=True)[1:].t(),
    "non_contiguous": lambda: torch.arange(60.0).reshape(3, 4, 5).permute(2, 0, 1)[::2],
    "long_row_wrap": lambda: torch.arange(40.0) / 3,
    "wide_ints_wrap": lambda: torch.arange(30) * 123456789,
}


@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_structured(name):
    check(STRUCTURED[name]())


def test_subclass_name_and_indent():
    class MyTensor(torch.Tensor):
        pass

    t = (torch.arange(24.0).reshape(2, 12) / 7).as_subclass(MyTensor)
    check(t, tensor_name="MyTensor")


# ---------------------------------------------------------------- random tensors

SHAPES = [(), (1,), (7,), (13,), (3, 4), (2, 3, 5), (2, 1, 3, 2), (0,), (0, 3)]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
COMPLEX_DTYPES = [torch.complex64, torch.complex128]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def _floats(kind: str, shape, gen):
    base = torch.randn(shape, generator=gen, dtype=torch.float64)
    if kind == "unit":
        return base
    if kind == "positive":
        return torch.rand(shape, generator=gen, dtype=torch.float64)
    if kind == "small":
        return base * 1e-6
    if kind == "large":
        return base * 1e6
    if kind == "huge":
        return base * 1e12
    if kind == "integral":
        return torch.randint(-100, 100, shape, generator=gen).double()
    if kind == "narrow":
        return 1 + torch.rand(shape, generator=gen, dtype=torch.float64) * 1e-3
    if kind == "mixed":
        exponents = torch.randint(-7, 7, shape, generator=gen).double()
        return base * 10.0**exponents
    # "special": sprinkle non-finite values and signed zeros over ordinary ones
    flat = base.reshape(-1).clone()
    pool = torch.tensor([nan, inf, -inf, -0.0, 0.0], dtype=torch.float64)
    picks = torch.randint(0, 2, flat.shape, generator=gen).bool()
    which = torch.randint(0, len(pool), flat.shape, generator=gen)
    flat[picks] = pool[which[picks]]
    return flat.reshape(shape)


FLOAT_KINDS = [
    "unit",
    "positive",
    "small",
    "large",
    "huge",
    "integral",
    "narrow",
    "mixed",
    "special",
]

RANDOM_CASES = (
    [("f", d, s, k) for d in FLOAT_DTYPES for s in SHAPES for k in FLOAT_KINDS]
    + [("c", d, s, k) for d in COMPLEX_DTYPES for s in SHAPES for k in FLOAT_KINDS]
    + [("i", d, s, k) for d in INT_DTYPES for s in SHAPES for k in ("small", "full")]
    + [("b", torch.bool, s, "") for s in SHAPES]
)


def _case_id(case) -> str:
    cat, dtype, shape, kind = case
    return f"{str(dtype)[6:]}-{'x'.join(map(str, shape)) or 'scalar'}-{kind or cat}"


def _random_tensor(index: int, case):
    cat, dtype, shape, kind = case
    gen = torch.Generator().manual_seed(index)
    if cat == "f":
        return _floats(kind, shape, gen).to(dtype).requires_grad_(index % 3 == 0)
    if cat == "c":
        re, im = _floats(kind, shape, gen), _floats(kind, shape, gen)
        return torch.complex(re, im).to(dtype).requires_grad_(index % 3 == 0)
    if cat == "i":
        info = torch.iinfo(dtype)
        low, high = (0, 10) if kind == "small" and dtype == torch.uint8 else (-5, 5)
        if kind == "full":
            low, high = info.min, info.max
        return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(dtype)
    return torch.rand(shape, generator=gen) > 0.5


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(RANDOM_CASES)), ids=[_case_id(c) for c in RANDOM_CASES]
)
def test_random(index, case):
    check(_random_tensor(index, case))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "shape", [(1001,), (2000,), (40, 30), (3, 30, 40), (1, 1, 1500), (1500, 1), (5, 5, 5, 9)]
)
def test_random_summarised(shape, seed):
    gen = torch.Generator().manual_seed(seed)
    dtype = [torch.float32, torch.float64, torch.int64, torch.complex64][seed % 4]
    kind = FLOAT_KINDS[seed % len(FLOAT_KINDS)]
    if dtype == torch.int64:
        t = torch.randint(-(10**seed), 10**seed + 1, shape, generator=gen)
    elif dtype.is_complex:
        t = torch.complex(_floats(kind, shape, gen), _floats("unit", shape, gen)).to(dtype)
    else:
        t = _floats(kind, shape, gen).to(dtype)
    check(t)


# ---------------------------------------------------------------- print options

OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 7},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 1},
    {"threshold": 10},
    {"threshold": 0},
    {"threshold": 10, "edgeitems": 1},
    {"threshold": 10, "edgeitems": 0},
    {"edgeitems": 0},
    {"edgeitems": 5, "threshold": 50},
    {"profile": "full"},
    {"profile": "short"},
    {"profile": "default"},
    {"linewidth": 40},
    {"linewidth": 10},
    {"linewidth": 200},
    {"profile": "short", "linewidth": 50, "precision": 3},
]

OPTION_TENSORS = {
    "floats": lambda: torch.linspace(-3, 3, 17),
    "mixed": lambda: torch.tensor([1e-5, 1.0, 1e5, nan, -0.0]),
    "ints": lambda: torch.arange(-20, 25, dtype=torch.int32),
    "bool": lambda: torch.arange(30) % 4 == 1,
    "scalar": lambda: torch.tensor(3.14159, dtype=torch.float64),
    "matrix": lambda: torch.arange(120.0).reshape(10, 12) / 7,
    "cube": lambda: torch.arange(480).reshape(6, 8, 10),
    "complex": lambda: torch.arange(24.0).reshape(4, 6) * (0.5 - 1.25j),
    "large": lambda: torch.arange(2000.0).reshape(40, 50),
    "huge_1d": lambda: torch.arange(1200) * 7,
    "grad": lambda: torch.linspace(0, 1, 11, requires_grad=True) * 3,
    "empty": lambda: torch.zeros(0, 4),
    "integral_floats": lambda: torch.tensor([1.0, 200.0, -3.0]),
}


@pytest.mark.parametrize("tensor_name", sorted(OPTION_TENSORS))
@pytest.mark.parametrize(
    "options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_options(options, tensor_name):
    set_printoptions(**options)
    torch.set_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    check(OPTION_TENSORS[tensor_name]())


def test_options_accumulate_like_torch():
    for options in itertools.islice(itertools.cycle(OPTION_SETS), 40):
        set_printoptions(**options)
        torch.set_printoptions(**options)
        assert get_printoptions() == torch._tensor_str.get_printoptions()
        check(OPTION_TENSORS["matrix"]())


# ---------------------------------------------------------------- default dtype float64

DOUBLE_DEFAULT_TENSORS = {
    "double": lambda: torch.tensor([1.5, 2.0], dtype=torch.float64),
    "float": lambda: torch.tensor([1.5, 2.0], dtype=torch.float32),
    "cdouble": lambda: torch.tensor([1 + 1j], dtype=torch.complex128),
    "cfloat": lambda: torch.tensor([1 + 1j], dtype=torch.complex64),
    "empty_double": lambda: torch.zeros(0, dtype=torch.float64),
    "empty_float": lambda: torch.zeros(0, dtype=torch.float32),
    "empty_cdouble": lambda: torch.zeros(0, dtype=torch.complex128),
    "long": lambda: torch.tensor([3, 4]),
    "half": lambda: torch.tensor([3.0], dtype=torch.float16),
}


@pytest.mark.parametrize("name", sorted(DOUBLE_DEFAULT_TENSORS))
def test_default_dtype_float64(name):
    torch.set_default_dtype(torch.float64)
    check(DOUBLE_DEFAULT_TENSORS[name]())
