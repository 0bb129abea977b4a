"""The "Extending torch native API" and "Extending all torch API with Modes" sections of
PyTorch's note, run unchanged on numtorch: a __torch_dispatch__ wrapper subclass and the
note's FunctionLog / DispatchLog modes.

Run: python examples/extending_torch_dispatch.py  (prints what the note shows and checks it)
"""

import numtorch as torch
from numtorch.overrides import TorchFunctionMode, resolve_name
from numtorch.utils._python_dispatch import TorchDispatchMode
from numtorch.utils._pytree import tree_map


# ---- a __torch_dispatch__ subclass: runs below autograd, sees aten ops ---------------------------
class LoggingTensor(torch.Tensor):
    """A wrapper subclass: metadata of its own, the data in ``elem``; every aten call is logged."""

    calls = []

    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(
            cls, elem.size(), strides=elem.stride(), dtype=elem.dtype, device=elem.device,
            requires_grad=elem.requires_grad,
        )  # fmt: skip
        r.elem = elem
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(e):
            return e.elem if isinstance(e, LoggingTensor) else e

        def wrap(e):
            return LoggingTensor(e) if isinstance(e, torch.Tensor) else e

        cls.calls.append(str(func))
        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))


# ---- the note's logging modes --------------------------------------------------------------------
LOG = []


class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args, kwargs=None):
        LOG.append(f"Function Log: {resolve_name(func)}")
        print(f"Function Log: {resolve_name(func)}(*{args}, **{kwargs})")
        return func(*args, **(kwargs or {}))


class DispatchLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args, kwargs=None):
        LOG.append(f"Dispatch Log: {func}")
        print(f"Dispatch Log: {func}(*{args}, **{kwargs})")
        return func(*args, **(kwargs or {}))


def f():
    a = torch.rand(10, requires_grad=True)
    b = a * 2
    b.sum().backward()


def main():
    # torch.add(a, 2) and a + 2 reach the same aten call
    x = LoggingTensor(torch.ones(3))
    torch.add(x, 2)
    x + 2
    assert LoggingTensor.calls == ["aten.add.Tensor", "aten.add.Tensor"], LoggingTensor.calls

    print("TorchFunctionMode logging:")
    with FunctionLog():
        f()
    print("TorchDispatchMode logging:")
    with DispatchLog():
        f()
    want = [
        "Function Log: torch.rand", "Function Log: torch.Tensor.mul", "Function Log: torch.Tensor.sum",
        "Function Log: torch.Tensor.backward",
        "Dispatch Log: aten.rand.default", "Dispatch Log: aten.mul.Tensor", "Dispatch Log: aten.sum.default",
        "Dispatch Log: aten.ones_like.default", "Dispatch Log: aten.expand.default",
        "Dispatch Log: aten.mul.Tensor", "Dispatch Log: aten.detach.default",
    ]  # fmt: skip
    assert LOG == want, LOG
    print("the note's logs: same calls in the same order")


if __name__ == "__main__":
    main()
