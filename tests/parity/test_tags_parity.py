"""Operator tags: numtorch.Tag is torch.Tag (members and values), and every aten overload both
libraries have carries PyTorch's tags (a generated sample under -m slow: all of them)."""

import random

import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402
from numtorch.ops._registry import OPS  # noqa: E402


def _pairs():
    out = []
    for op in OPS.values():
        s = op._schema
        if s.namespace != "aten":
            continue
        packet = getattr(torch.ops.aten, s.name, None)
        theirs = getattr(packet, s.overload_name or "default", None) if packet is not None else None
        if theirs is not None:
            out.append((op, theirs))
    return out


def _names(tags):
    return sorted(t.name for t in tags)


def test_tag_enum_is_torchs():
    assert {t.name: t.value for t in numtorch.Tag} == {n: t.value for n, t in torch.Tag.__members__.items()}
    assert numtorch.library.Tag is numtorch.Tag
    from numtorch._library.infer_schema import Tag

    assert Tag is numtorch.Tag


@pytest.mark.parametrize("name", ["add.Tensor", "add_.Tensor", "add.out", "rand.default", "sum.dim_IntList",
                                  "sum.default", "mm.default", "bernoulli.default", "dropout.default",
                                  "resize_.default", "nonzero.default", "equal.default", "relu.out",
                                  "add.Scalar_out", "clone.default", "where.self", "view.default"])  # fmt: skip
def test_common_tags(name):
    pk, ov = name.split(".")
    ours = getattr(getattr(numtorch.ops.aten, pk), ov).tags
    theirs = getattr(getattr(torch.ops.aten, pk), ov).tags
    assert [t.name for t in ours] == [t.name for t in theirs]  # same order: by value
    assert [t.value for t in ours] == [int(t) for t in theirs]


def test_sample_of_overloads():
    pairs = _pairs()
    assert len(pairs) > 900
    for op, theirs in random.Random(12).sample(pairs, 150):
        assert _names(op.tags) == _names(theirs.tags), op.name()


@pytest.mark.slow
def test_every_overload():
    bad = [op.name() for op, theirs in _pairs() if _names(op.tags) != _names(theirs.tags)]
    assert not bad, bad
