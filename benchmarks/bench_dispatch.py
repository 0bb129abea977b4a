"""Per-call overhead on tiny tensors: the Python between a user's call and the kernel.

Every class takes ``lib`` ("numtorch" or "torch"; torch skips when it is not installed) so
asv records PyTorch's figure beside ours; the targets are <= 1.0x PyTorch's time without
grad and <= 1.5x with ``requires_grad=True`` inputs (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import functools
import operator

from .common import (
    LIBS,
    TINY_OPS,
    Benchmark,
    lib,
    mul_two_function,
    pending,
    tensor,
    tf_subclass,
    tiny_call,
    warm,
)

COVERS = {"add", "mul", "relu", "sum", "reshape"}


def _pair(L, requires_grad=False):
    a = tensor((8,), L=L, requires_grad=requires_grad)
    b = tensor((8,), L=L, requires_grad=requires_grad, seed=99)
    return a, b


class TinyOp(Benchmark):
    """add, mul, relu, sum, x[1:3], reshape on 8 float32 elements."""

    params = [TINY_OPS, LIBS, [False, True]]
    param_names = ["op", "lib", "requires_grad"]

    def setup(self, op, libname, requires_grad):
        L = lib(libname)
        a, b = _pair(L, requires_grad)
        self.fn = tiny_call(L, op, a, b)
        warm(self.fn)

    def time_call(self, op, libname, requires_grad):
        self.fn()


class Spelling(Benchmark):
    """One add, five ways: ``a + b``, ``torch.add``, ``a.add``, ``ops.aten.add.Tensor``, and
    the overload packet ``ops.aten.add`` (which resolves its overload per call)."""

    params = [["operator", "function", "method", "aten_overload", "aten_packet"], LIBS]
    param_names = ["spelling", "lib"]

    def setup(self, spelling, libname):
        L = lib(libname)
        a, b = _pair(L)
        with pending():
            self.fn = {
                "operator": lambda: functools.partial(operator.add, a, b),
                "function": lambda: functools.partial(L.add, a, b),
                "method": lambda: functools.partial(a.add, b),
                "aten_overload": lambda: functools.partial(L.ops.aten.add.Tensor, a, b),
                "aten_packet": lambda: functools.partial(L.ops.aten.add, a, b),
            }[spelling]()
        warm(self.fn)

    def time_add(self, spelling, libname):
        self.fn()


class ScalarOperand(Benchmark):
    """``a + 1.0`` and ``a * 2``: Python scalars take the weak-type promotion path."""

    params = [["add", "mul"], LIBS]
    param_names = ["op", "lib"]

    def setup(self, op, libname):
        L = lib(libname)
        a, _ = _pair(L)
        self.fn = functools.partial(operator.add if op == "add" else operator.mul, a, 2.0)
        warm(self.fn)

    def time_call(self, op, libname):
        self.fn()


class TorchFunctionSubclass(Benchmark):
    """``a + b`` on a Tensor subclass whose ``__torch_function__`` defers to the default."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        a, b = _pair(L)
        sub = tf_subclass(L)
        with pending():
            sa, sb = a.as_subclass(sub), b.as_subclass(sub)
        self.fn = functools.partial(operator.add, sa, sb)
        r = warm(self.fn)
        if type(r) is not sub:
            raise NotImplementedError("__torch_function__ subclass results are not wrapped yet")

    def time_add(self, libname):
        self.fn()


class TorchFunction(Benchmark):
    """``((a + b) * b).sum()`` on 8 elements through the ``__torch_function__`` protocol: plain,
    under a pass-through TorchFunctionMode, and on a pass-through subclass (the usual
    ``super().__torch_function__`` handler). Targets: mode <= 1.1x, subclass <= 1.2x PyTorch's."""

    params = [["plain", "mode", "subclass"], LIBS]
    param_names = ["case", "lib"]

    def setup(self, case, libname):
        L = lib(libname)
        a, b = _pair(L)
        if case == "subclass":
            sub = tf_subclass(L)
            with pending():
                a, b = a.as_subclass(sub), b.as_subclass(sub)

        class PassMode(L.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        mode = PassMode()

        def plain():
            return ((a + b) * b).sum()

        def under_mode():
            with mode:
                return ((a + b) * b).sum()

        self.fn = under_mode if case == "mode" else plain
        r = warm(self.fn)
        if case == "subclass" and type(r) is not type(a):
            raise NotImplementedError("__torch_function__ subclass results are not wrapped yet")

    def time_call(self, case, libname):
        self.fn()


class CustomFunction(Benchmark):
    """``MulTwo.apply(x)`` (a trivial autograd.Function), with and without a backward."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        self.x, _ = _pair(L, requires_grad=True)
        self.g = tensor((8,), L=L)
        self.apply = mul_two_function(L).apply
        warm(lambda: self.apply(self.x).backward(self.g))

    def time_apply(self, libname):
        self.apply(self.x)

    def time_apply_backward(self, libname):
        self.apply(self.x).backward(self.g)


class Backward(Benchmark):
    """``(a * b).backward(g)`` on 8 elements: graph recording plus the engine's fixed cost."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        self.a, self.b = _pair(L, requires_grad=True)
        self.g = tensor((8,), L=L)
        warm(self._step)

    def _step(self):
        (self.a * self.b).backward(self.g)

    def time_mul_backward(self, libname):
        (self.a * self.b).backward(self.g)


class TinyParameterOp(Benchmark):
    """The tiny ops on ``nn.Parameter`` inputs under ``no_grad`` (an inference or optimizer
    step's operands): Parameter opts out of ``__torch_function__``, so it should cost what a
    plain Tensor costs (Note [Plain subclasses])."""

    params = [["add", "mul", "relu", "getitem", "reshape"], LIBS]
    param_names = ["op", "lib"]

    def setup(self, op, libname):
        L = lib(libname)
        with pending():
            a, b = (L.nn.Parameter(t, requires_grad=False) for t in _pair(L))
        warm(tiny_call(L, op, *_pair(L)))  # the plain call teaches the kernel fast path
        self.fn = tiny_call(L, op, a, b)
        warm(self.fn)

    def time_call(self, op, libname):
        self.fn()


class TinyParameterGrad(Benchmark):
    """The tiny ops on ``nn.Parameter`` inputs that require grad (a training step's forward):
    the generated recording with plain-subclass operands (Note [Generated recording]). The
    graph is kept for the call's duration only, so each call also makes the leaves'
    AccumulateGrad nodes, as in PyTorch."""

    params = [["add", "mul", "relu", "getitem", "reshape"], LIBS]
    param_names = ["op", "lib"]

    def setup(self, op, libname):
        L = lib(libname)
        with pending():
            a, b = (L.nn.Parameter(t) for t in _pair(L))
        warm(tiny_call(L, op, *_pair(L)))  # the plain call teaches the kernel fast path
        self.fn = tiny_call(L, op, a, b)
        warm(self.fn)

    def time_call(self, op, libname):
        self.fn()


def _dispatch_helpers(L):
    import importlib

    pd = importlib.import_module(f"{L.__name__}.utils._python_dispatch")
    pt = importlib.import_module(f"{L.__name__}.utils._pytree")

    class PassMode(pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Wrapper(L.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = L.Tensor._make_wrapper_subclass(cls, elem.shape, strides=elem.stride(),
                                                dtype=elem.dtype, device=elem.device)  # fmt: skip
            r.elem = elem
            return r

        __torch_function__ = L._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(x):
                return x.elem

            out = func(*pt.tree_map_only(cls, unwrap, args), **pt.tree_map_only(cls, unwrap, kwargs or {}))
            return pt.tree_map_only(L.Tensor, cls, out)

    return PassMode, Wrapper


class PythonKey(Benchmark):
    """``((a + b) * b).sum()`` on 8 elements: plain, under a pass-through TorchDispatchMode, and on
    a pass-through wrapper subclass (the unwrap/rewrap pattern with tree_map_only)."""

    params = [["plain", "mode", "wrapper"], LIBS]
    param_names = ["case", "lib"]

    def setup(self, case, libname):
        L = lib(libname)
        mode, wrapper = _dispatch_helpers(L)
        a, b = _pair(L)
        if case == "wrapper":
            a, b = wrapper(a), wrapper(b)

        def plain():
            ((a + b) * b).sum()

        def under_mode():
            with mode():
                ((a + b) * b).sum()

        self.fn = under_mode if case == "mode" else plain
        warm(self.fn)

    def time_call(self, case, libname):
        self.fn()
