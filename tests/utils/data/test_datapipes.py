"""DataPipes, their decorators and graph helpers, and DistributedSampler."""

from __future__ import annotations

import pytest

import numtorch
from numtorch.utils import data
from numtorch.utils.data.datapipes.iter import IterableWrapper
from numtorch.utils.data.datapipes.map import SequenceWrapper


def test_functional_chain_of_iter_datapipes():
    dp = IterableWrapper(range(7)).map(lambda x: x * 10).filter(lambda x: x > 10).batch(2)
    out = list(dp)
    assert out == [[20, 30], [40, 50], [60]] and isinstance(out[0], data.DataChunk)
    assert list(IterableWrapper(range(5)).batch(2, drop_last=True)) == [[0, 1], [2, 3]]
    assert len(IterableWrapper(range(5)).batch(2)) == 3
    assert list(IterableWrapper(range(9)).header(3)) == [0, 1, 2]
    with pytest.raises(AttributeError, match="has no attribute 'nonexistent'"):
        IterableWrapper([]).nonexistent()


def test_shuffle_is_a_seeded_permutation_and_graph_settings_reach_it():
    dp = IterableWrapper(range(20)).shuffle(buffer_size=5).map(lambda x: x)
    from numtorch.utils.data import graph_settings

    graph_settings.apply_shuffle_settings(dp, shuffle=False)
    assert list(dp) == list(range(20))
    graph_settings.apply_shuffle_settings(dp, shuffle=True)
    g = numtorch.Generator()
    g.manual_seed(0)
    graph_settings.apply_random_seed(dp, g)
    a = list(dp)
    assert sorted(a) == list(range(20)) and a != list(range(20)) and a == list(dp)
    kinds = [type(x).__name__ for x in data.graph.list_dps(data.graph.traverse_dps(dp))]
    assert kinds == ["Mapper", "Shuffler", "IterableWrapper"]


def test_map_datapipes():
    dp = SequenceWrapper([1, 2, 3]).map(lambda x: x + 1)
    assert isinstance(dp, data.MapDataPipe) and len(dp) == 3 and dp[2] == 4


def test_functional_datapipe_registers_and_refuses_other_classes():
    @data.functional_datapipe("test_twice")
    class Twice(data.IterDataPipe):
        def __init__(self, dp):
            self.dp = dp

        def __iter__(self):
            return (2 * x for x in self.dp)

    assert list(IterableWrapper([1, 2]).test_twice()) == [2, 4]
    with pytest.raises(Exception, match="already taken"):
        data.functional_datapipe("test_twice")(Twice)
    with pytest.raises(TypeError, match="can only decorate IterDataPipe"):
        data.functional_datapipe("test_bad")(int)


def test_non_deterministic_under_guaranteed_determinism():
    @data.non_deterministic
    class Random(data.IterDataPipe):
        def __iter__(self):
            yield 1

    Random()
    with data.guaranteed_datapipes_determinism():
        with pytest.raises(TypeError, match="Random is non-deterministic"):
            Random()
    Random()

    class Maybe(data.IterDataPipe):
        def __init__(self, flag):
            self.flag = flag

        def __iter__(self):
            yield self.flag

    maker = data.non_deterministic(lambda flag: flag)(Maybe)
    with data.guaranteed_datapipes_determinism():
        maker(False)
        with pytest.raises(TypeError, match="non-deterministic with the inputs"):
            maker(True)


def test_runtime_and_argument_validation():
    class Ints(data.IterDataPipe[int]):
        def __init__(self, items):
            self.items = items

        @data.runtime_validation
        def __iter__(self):
            yield from self.items

    assert list(Ints([1, 2])) == [1, 2]
    with pytest.raises(RuntimeError, match="Expected an instance as subtype of"):
        list(Ints([1, "a"]))
    with data.runtime_validation_disabled():
        assert list(Ints([1, "a"])) == [1, "a"]
    def f(self):
        pass

    with pytest.raises(TypeError, match="Can not decorate function f with 'runtime_validation'"):
        data.runtime_validation(f)

    @data.argument_validation
    def consume(dp: data.IterDataPipe):
        return list(dp)

    assert consume(IterableWrapper([1])) == [1]
    with pytest.raises(TypeError, match="Expected argument 'dp' as a IterDataPipe"):
        consume([1])


def test_distributed_sampler_partitions_and_pads():
    parts = [list(data.DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False)) for r in range(2)]
    assert parts == [[0, 2, 4], [1, 3, 0]]
    dropped = [list(data.DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False, drop_last=True)) for r in range(2)]
    assert dropped == [[0, 2], [1, 3]]
    s = [data.DistributedSampler(range(10), num_replicas=3, rank=r, seed=1) for r in range(3)]
    got = sorted(i for x in s for i in x)
    assert len(got) == 12 and set(got) == set(range(10))
    a = list(s[0])
    s[0].set_epoch(1)
    assert list(s[0]) != a or len(a) < 3
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        data.DistributedSampler(range(3))
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        data.DistributedSampler(range(3), num_replicas=2, rank=2)
