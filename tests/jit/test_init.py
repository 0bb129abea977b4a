"""numtorch.jit: the eager-mode answers of torch.jit."""

from __future__ import annotations

import typing

import pytest

import numtorch


def test_queries():
    assert numtorch.jit.is_scripting() is False
    assert numtorch.jit.is_tracing() is False
    assert numtorch.jit.annotate(list[int], []) == []
    assert numtorch.jit.Final is typing.Final


def test_decorators_leave_functions_callable():
    @numtorch.jit.ignore
    def f(x):
        return x + 1

    @numtorch.jit.ignore(drop=True)
    def g(x):
        return x + 2

    @numtorch.jit.unused
    def h(x):
        return x + 3

    class M(numtorch.nn.Module):
        @numtorch.jit.export
        def extra(self):
            return 7

    assert (f(1), g(1), h(1), M().extra()) == (2, 3, 4, 7)


def test_ignore_rejects_non_bool():
    with pytest.raises(RuntimeError, match="must be a bool or a function"):
        numtorch.jit.ignore(3)


@pytest.mark.parametrize("name", ["script", "trace"])
def test_script_and_trace_name_the_alternative(name):
    with pytest.raises(NotImplementedError, match="no TorchScript runtime: run the module"):
        getattr(numtorch.jit, name)(numtorch.nn.Linear(2, 2))


def test_isinstance_understands_generics():
    assert numtorch.jit.isinstance([1, 2], list[int])
    assert not numtorch.jit.isinstance([1, "a"], list[int])
    assert numtorch.jit.isinstance({"a": 1}, dict[str, int])
    assert numtorch.jit.isinstance((1, "a"), tuple[int, str])
    assert numtorch.jit.isinstance(None, typing.Optional[int])
