"""uint16/uint32/uint64 against torch: promotion for every pair, and which elementwise ops run."""

from __future__ import annotations

import pytest

import numtorch

torch = pytest.importorskip("torch")

NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
         "complex128", "uint16", "uint32", "uint64")  # fmt: skip


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # the error type and text are what is compared
        return type(e).__name__, str(e).splitlines()[0]
    if hasattr(r, "tolist"):
        return str(r.dtype), r.tolist()
    return "value", str(r)


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_every_pair(a):
    for b in NAMES:
        ours = _outcome(lambda: numtorch.promote_types(getattr(numtorch, a), getattr(numtorch, b)))
        theirs = _outcome(lambda: torch.promote_types(getattr(torch, a), getattr(torch, b)))
        assert ours == theirs, (a, b)


_CASES = {
    "add": lambda m, a, b: a + b, "add_s": lambda m, a, b: a + 1, "add_f": lambda m, a, b: a + 1.5,
    "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b, "mul_s": lambda m, a, b: a * 3,
    "div": lambda m, a, b: a / b, "floordiv": lambda m, a, b: a // b, "rem": lambda m, a, b: a % b,
    "eq": lambda m, a, b: a == b, "ne_s": lambda m, a, b: a != 2, "lt": lambda m, a, b: a < b,
    "ge_s": lambda m, a, b: a >= 0, "and": lambda m, a, b: a & b, "or": lambda m, a, b: a | b,
    "xor": lambda m, a, b: a ^ b, "not": lambda m, a, b: ~a, "lshift": lambda m, a, b: a << b,
    "neg": lambda m, a, b: -a, "abs": lambda m, a, b: a.abs(), "sign": lambda m, a, b: a.sign(),
    "sqrt": lambda m, a, b: a.sqrt(), "exp": lambda m, a, b: a.exp(), "floor": lambda m, a, b: a.floor(),
    "round": lambda m, a, b: a.round(), "isnan": lambda m, a, b: a.isnan(), "pow": lambda m, a, b: a.pow(2),
    "maximum": lambda m, a, b: m.maximum(a, b), "clamp": lambda m, a, b: a.clamp(0, 2),
    "where": lambda m, a, b: m.where(a == b, a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "logical_and": lambda m, a, b: m.logical_and(a, b), "relu": lambda m, a, b: m.relu(a),
    "sum": lambda m, a, b: a.sum(), "prod": lambda m, a, b: a.prod(), "cumsum": lambda m, a, b: a.cumsum(0),
    "sort": lambda m, a, b: a.sort().values, "unique": lambda m, a, b: m.unique(a), "any": lambda m, a, b: a.any(),
    "cat": lambda m, a, b: m.cat([a, b]), "to_f64": lambda m, a, b: a.double(), "to_u8": lambda m, a, b: a.byte(),
    "clone": lambda m, a, b: a.clone(), "fill": lambda m, a, b: a.clone().fill_(7), "getitem": lambda m, a, b: a[1:],
    "mul_0d": lambda m, a, b: a * m.tensor(2), "eq_long": lambda m, a, b: a == m.tensor([1, 2, 3]),
}  # fmt: skip


@pytest.mark.parametrize("dt", ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_op_runs_or_refuses_as_torch(case, dt):
    fn = _CASES[case]

    def run(m):
        d = getattr(m, dt)
        return _outcome(lambda: fn(m, m.tensor([1, 2, 3], dtype=d), m.tensor([3, 2, 1], dtype=d)))

    ours, theirs = run(numtorch), run(torch)
    if theirs[0] == "torch.float32":  # float math: values to float32 rounding
        assert ours[0] == theirs[0]
        assert ours[1] == pytest.approx(theirs[1], rel=1e-6)
    else:
        assert ours == theirs
