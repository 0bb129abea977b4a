"""Subclassing numtorch.Tensor: results keep the lowest subclass, as in PyTorch."""

from __future__ import annotations

import pytest

import numtorch


class SubTensor(numtorch.Tensor):
    pass


class SubTensor2(SubTensor):
    pass


class OtherSubTensor(numtorch.Tensor):
    pass


def test_results_views_inplace_and_autograd_outputs_keep_the_subclass():
    x = SubTensor([1.0, 2.0]).requires_grad_()
    y = (x * 2).sum()
    assert type(y) is SubTensor and type(x[0]) is SubTensor and type(x.view(2)) is SubTensor
    assert type(x.detach()) is SubTensor and type(numtorch.cat([numtorch.ones(1), x])) is SubTensor
    z = SubTensor([1.0])
    assert z.add_(1) is z and type(1 + z) is SubTensor
    assert type(numtorch.max(SubTensor([[1.0, 2.0]]), 1).values) is SubTensor
    assert type(z.shape) is numtorch.Size and type(z.tolist()) is list
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_lowest_subclass_wins_and_unrelated_subclasses_raise():
    assert type(numtorch.add(SubTensor2([0]), SubTensor([1]))) is SubTensor2
    assert type(numtorch.add(SubTensor2([0]), numtorch.tensor([1]))) is SubTensor2
    with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.add'"):
        numtorch.add(SubTensor([0]), OtherSubTensor([1]))


def test_as_subclass_make_subclass_and_repr():
    t = numtorch.ones(2)
    assert type(t.as_subclass(SubTensor)) is SubTensor
    m = numtorch.Tensor._make_subclass(SubTensor, t, True)
    assert type(m) is SubTensor and m.requires_grad
    assert repr(SubTensor([1.0])) == "SubTensor([1.])"
    assert repr(numtorch.nn.Parameter(numtorch.ones(1))).startswith("Parameter containing:\ntensor(")


def test_logging_tensor_logs_every_call_without_recursion():
    log = []

    class LoggingTensor(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is not numtorch.Tensor.__repr__:
                log.append(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
            return super().__torch_function__(func, types, args, kwargs or {})

    r = (LoggingTensor([1.0, 2.0]) * 2 + 1).sum()
    assert type(r) is LoggingTensor and repr(r) == "LoggingTensor(8.)"
    assert log[:3] == [
        "func: mul, args: (LoggingTensor([1., 2.]), 2), kwargs: None",
        "func: add, args: (LoggingTensor([2., 4.]), 1), kwargs: None",
        "func: sum, args: (LoggingTensor([3., 5.]),), kwargs: None",
    ]


def test_disabled_torch_function_impl_gives_plain_tensors():
    class Plain(numtorch.Tensor):
        __torch_function__ = numtorch._C._disabled_torch_function_impl

    assert type(Plain([1.0]) + 1) is numtorch.Tensor
    assert numtorch.Tensor.__torch_function__.__self__ is numtorch.Tensor


def test_subclass_with_dispatch_disabled_runs_as_plain_and_re_enabling_dispatches_again():
    # Note [Plain subclasses]: inside DisableTorchFunctionSubclass the wrappers' fast calls take
    # the subclass and give plain Tensors; _EnableTorchFunction brings its handler back
    seen = []

    class Counting(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    a, b = numtorch.ones(3).as_subclass(Counting), numtorch.full((3,), 2.0).as_subclass(Counting)
    with numtorch._C.DisableTorchFunctionSubclass():
        r = [a + b, a.add(b), numtorch.add(a, b), a.mul(b), a.exp(), a.sum(), a.add(b, alpha=2)]
        with numtorch._C._EnableTorchFunction():
            again = a + b
    assert [type(x) for x in r] == [numtorch.Tensor] * 7
    assert [x.tolist() for x in r[:4]] == [[3.0] * 3] * 3 + [[2.0] * 3]
    assert r[6].tolist() == [5.0] * 3 and type(again) is Counting and seen == ["add"]
    seen.clear()
    assert type(a.add(b)) is Counting and type(numtorch.mul(a, b)) is Counting
    assert seen == ["add", "mul"]


def test_pass_through_subclass_leaf_gets_its_gradient_through_the_fast_calls():
    x = numtorch.tensor([1.0, 2.0], requires_grad=True).as_subclass(SubTensor)
    x.retain_grad()
    y = SubTensor([3.0, 4.0])
    out = ((x + y) * x).sum()
    assert type(out) is SubTensor and out.grad_fn is not None
    out.backward()
    assert x.grad.tolist() == [5.0, 8.0]  # d/dx (x + y) x = 2x + y
