"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import numtorch
from numtorch import nn


class Add(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x + self.k

    def extra_repr(self):
        return f"k={self.k}"


def test_sequential_runs_in_order_and_indexes():
    seq = nn.Sequential(Add(1), Add(10), Add(100))
    np.testing.assert_array_equal(seq(numtorch.zeros(1)).numpy(), [111.0])
    assert len(seq) == 3 and seq[-1].k == 100
    sub = seq[1:]
    assert type(sub) is nn.Sequential and [m.k for m in sub] == [10, 100]
    assert list(sub._modules) == ["1", "2"]  # slicing keeps the original names
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]


def test_sequential_from_ordered_dict_keeps_names():
    seq = nn.Sequential(OrderedDict([("first", Add(1)), ("second", Add(2))]))
    assert seq.first.k == 1 and list(seq._modules) == ["first", "second"]
    assert repr(seq) == "Sequential(\n  (first): Add(k=1)\n  (second): Add(k=2)\n)"


def test_sequential_mutation():
    seq = nn.Sequential(Add(0), Add(1))
    seq.append(Add(2))
    seq.insert(0, Add(-1))
    seq.extend([Add(3)])
    assert [m.k for m in seq] == [-1, 0, 1, 2, 3]
    assert seq.pop(1).k == 0
    assert [m.k for m in seq] == [-1, 1, 2, 3] and list(seq._modules) == ["0", "1", "2", "3"]
    del seq[0:2]
    assert [m.k for m in seq] == [2, 3]
    seq[0] = Add(9)
    assert seq[0].k == 9
    with pytest.raises(IndexError, match="Index out of range: 5"):
        seq.insert(5, Add(0))
    with pytest.raises(AssertionError, match="module should be of type"):
        seq.insert(0, 3)


def test_sequential_add_and_multiply():
    a, b = nn.Sequential(Add(1)), nn.Sequential(Add(2))
    c = a + b
    assert [m.k for m in c] == [1, 2]
    a += b
    assert [m.k for m in a] == [1, 2]
    assert len(b * 3) == 3 and (b * 3)[0] is (b * 3)[2]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        a + [Add(1)]
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        b * 0


def test_module_list():
    ml = nn.ModuleList([Add(i) for i in range(3)])
    assert len(ml) == 3 and ml[-1].k == 2
    assert type(ml[:2]) is nn.ModuleList and len(ml[:2]) == 2
    ml.append(Add(3)).extend([Add(4)])
    ml.insert(0, Add(-1))
    assert [m.k for m in ml] == [-1, 0, 1, 2, 3, 4]
    del ml[0]
    assert ml.pop(0).k == 0 and list(ml._modules) == ["0", "1", "2", "3"]
    assert [n for n, _ in (ml + nn.ModuleList([Add(9)])).named_children()] == [
        "0",
        "1",
        "2",
        "3",
        "4",
    ]
    with pytest.raises(IndexError, match="index 10 is out of range"):
        ml[10]
    with pytest.raises(
        TypeError, match="ModuleList.extend should be called with an iterable, but got Add"
    ):
        ml.extend(Add(1))


def test_module_list_repr_groups_repeated_modules():
    ml = nn.ModuleList([Add(1), Add(1), Add(1), Add(2)])
    assert repr(ml) == "ModuleList(\n  (0-2): 3 x Add(k=1)\n  (3): Add(k=2)\n)"
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    md = nn.ModuleDict({"b": Add(2), "a": Add(1)})
    assert list(md) == ["b", "a"] and "a" in md and len(md) == 2
    md["c"] = Add(3)
    md.update([("d", Add(4))])
    assert list(md.keys()) == ["b", "a", "c", "d"]
    assert md.pop("b").k == 2 and [m.k for m in md.values()] == [1, 3, 4]
    del md["a"]
    assert [k for k, _ in md.items()] == ["c", "d"]
    md.clear()
    assert len(md) == 0
    with pytest.raises(
        ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"
    ):
        md.update([("x",)])
    with pytest.raises(
        TypeError,
        match="ModuleDict.update should be called with an iterable of key/value pairs, but got int",
    ):
        md.update(3)


def test_parameter_list_wraps_tensors():
    pl = nn.ParameterList([numtorch.zeros(2, 3), nn.Parameter(numtorch.ones(1))])
    assert all(type(p) is nn.Parameter for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(numtorch.ones(4))
    assert len(pl) == 3 and pl[-1].shape == (4,)
    assert type(pl[1:]) is nn.ParameterList and len(pl[1:]) == 2
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [torch.float32 of size 1]\n"
        "    (2): Parameter containing: [torch.float32 of size 4]\n"
        ")"
    )
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()
    with pytest.raises(
        TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"
    ):
        pl.extend(numtorch.ones(1))


def test_parameter_dict():
    pd = nn.ParameterDict({"b": numtorch.ones(1), "a": numtorch.zeros(2, 2)})
    assert list(pd) == ["a", "b"]  # plain dicts are inserted in sorted key order
    assert type(pd["a"]) is nn.Parameter and "a" in pd
    pd["c"] = nn.Parameter(numtorch.ones(3))
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert pd.get("zz", 5) == 5 and pd.setdefault("d", numtorch.ones(1)).shape == (1,)
    k, v = pd.popitem()
    assert k == "d" and v.shape == (1,)
    assert pd.pop("c").shape == (3,)
    merged = pd | nn.ParameterDict({"z": numtorch.ones(1)})
    assert list(merged) == ["a", "b", "z"] and list(pd) == ["a", "b"]
    assert repr(pd) == (
        "ParameterDict(\n"
        "    (a): Parameter containing: [torch.FloatTensor of size 2x2]\n"
        "    (b): Parameter containing: [torch.FloatTensor of size 1]\n"
        ")"
    )
    pd.clear()
    assert len(pd) == 0
    with pytest.raises(
        TypeError,
        match="Index given to ParameterDict cannot be used as a key as it is not a string",
    ):
        nn.ParameterDict()[1] = numtorch.ones(1)


def test_containers_register_children_for_state_dict():
    net = nn.Sequential(nn.ModuleList([Add(1)]), nn.ParameterList([numtorch.ones(1)]))
    assert list(net.state_dict()) == ["1.0"]
