"""resolve_name and the function each Tensor operator hands __torch_function__, against torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402

_EXPRS = {
    "add": lambda x, y, i: x + y, "radd": lambda x, y, i: 2 + x, "iadd": lambda x, y, i: x.__iadd__(y),
    "sub": lambda x, y, i: x - y, "rsub": lambda x, y, i: 2 - x, "isub": lambda x, y, i: x.__isub__(y),
    "mul": lambda x, y, i: x * 2, "rmul": lambda x, y, i: 2 * x, "imul": lambda x, y, i: x.__imul__(2),
    "truediv": lambda x, y, i: x / 2, "rtruediv": lambda x, y, i: 2 / x,
    "itruediv": lambda x, y, i: x.__itruediv__(2), "floordiv": lambda x, y, i: x // 2,
    "rfloordiv": lambda x, y, i: 2 // x, "ifloordiv": lambda x, y, i: x.__ifloordiv__(2),
    "mod": lambda x, y, i: x % 2, "rmod": lambda x, y, i: 2 % x, "imod": lambda x, y, i: x.__imod__(2),
    "pow": lambda x, y, i: x**2, "rpow": lambda x, y, i: 2**x, "ipow": lambda x, y, i: x.__ipow__(2),
    "matmul": lambda x, y, i: x @ y, "rmatmul": lambda x, y, i: x.__rmatmul__(y),
    "and": lambda x, y, i: i & i, "rand": lambda x, y, i: 1 & i, "iand": lambda x, y, i: i.__iand__(i),
    "or": lambda x, y, i: i | i, "ror": lambda x, y, i: 1 | i, "ior": lambda x, y, i: i.__ior__(i),
    "xor": lambda x, y, i: i ^ i, "rxor": lambda x, y, i: 1 ^ i, "ixor": lambda x, y, i: i.__ixor__(i),
    "lshift": lambda x, y, i: i << 1, "rlshift": lambda x, y, i: 1 << i,
    "ilshift": lambda x, y, i: i.__ilshift__(1), "rshift": lambda x, y, i: i >> 1,
    "rrshift": lambda x, y, i: 1 >> i, "irshift": lambda x, y, i: i.__irshift__(1),
    "neg": lambda x, y, i: -x, "pos": lambda x, y, i: +x, "abs": lambda x, y, i: abs(x),
    "invert": lambda x, y, i: ~i, "eq": lambda x, y, i: x == y, "ne": lambda x, y, i: x != y,
    "lt": lambda x, y, i: x < y, "le": lambda x, y, i: x <= y, "gt": lambda x, y, i: x > y,
    "ge": lambda x, y, i: x >= y, "getitem": lambda x, y, i: x[0],
    "setitem": lambda x, y, i: x.__setitem__(0, 1.0), "len": lambda x, y, i: len(x),
    "iter": lambda x, y, i: list(iter(x)), "bool": lambda x, y, i: bool(x[0, 0]),
    "int": lambda x, y, i: int(x[0, 0]), "float": lambda x, y, i: float(x[0, 0]),
    "complex": lambda x, y, i: complex(x[0, 0]), "index": lambda x, y, i: i[0, 0].__index__(),
    "format": lambda x, y, i: format(x[0, 0], ".1f"), "contains": lambda x, y, i: 1.0 in x,
    "div": lambda x, y, i: x.__div__(2), "rdiv": lambda x, y, i: x.__rdiv__(2),
    "idiv": lambda x, y, i: x.__idiv__(2), "repr": lambda x, y, i: repr(x),
    "shape": lambda x, y, i: x.shape, "T": lambda x, y, i: x.T, "dtype": lambda x, y, i: x.dtype,
    "requires_grad": lambda x, y, i: x.requires_grad, "grad": lambda x, y, i: x.grad,
    "set_grad": lambda x, y, i: setattr(x, "grad", None), "size": lambda x, y, i: x.size(),
    "backward": lambda x, y, i: x.sum().backward(),
}  # fmt: skip


def _names(lib, expr):
    seen = []

    class M(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(lib.overrides.resolve_name(func))
            return func(*args, **(kwargs or {}))

    x = lib.ones(2, 2, requires_grad=expr is _EXPRS["backward"])
    y, i = lib.ones(2, 2), lib.ones(2, 2, dtype=lib.long)
    if expr not in (_EXPRS["backward"],):
        x = x.clone() if not x.requires_grad else x
    with M():
        expr(x, y, i)
    return seen


@pytest.mark.parametrize("name", sorted(_EXPRS))
def test_operator_passes_what_torch_passes(name):
    assert _names(numtorch, _EXPRS[name]) == _names(torch, _EXPRS[name])


@pytest.mark.parametrize(
    "get", [lambda l: l.add, lambda l: l.Tensor.add_, lambda l: l.nn.functional.relu,
            lambda l: l.linalg.norm, lambda l: l.special.erf, lambda l: l.Tensor.__rdiv__,
            lambda l: l.Tensor.shape.__get__, lambda l: l.Tensor.grad.__set__,
            lambda l: l.Tensor.backward, lambda l: l.Tensor.__getitem__],
)  # fmt: skip
def test_resolve_name_matches_torch(get):
    assert numtorch.overrides.resolve_name(get(numtorch)) == torch.overrides.resolve_name(get(torch))
