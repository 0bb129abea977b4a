import collections

import pytest

from numtorch.utils import _pytree as pt


def test_flatten_unflatten_round_trip_builtin_nodes():
    P = collections.namedtuple("P", "x y")
    tree = {"b": [1, (2, None)], "a": P(3, collections.OrderedDict(k=4)), "d": collections.deque([5])}
    leaves, spec = pt.tree_flatten(tree)
    assert leaves == [1, 2, None, 3, 4, 5]  # dict insertion order, None is a leaf
    back = pt.tree_unflatten(leaves, spec)
    assert back == tree and type(back["a"]) is P and type(back["a"].y) is collections.OrderedDict
    assert spec.num_leaves == 6 and not spec.is_leaf() and pt.LeafSpec().is_leaf()


def test_treespec_repr_and_equality():
    spec = pt.tree_structure({"b": 1, "a": [2, 3]})
    assert repr(spec) == "TreeSpec(dict, ['b', 'a'], [*,\n  TreeSpec(list, None, [*,\n    *])])"
    assert spec == pt.tree_structure({"b": 7, "a": [8, 9]})
    assert spec != pt.tree_structure({"a": 7, "b": [8, 9]})


def test_custom_node_registration_round_trip():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    pt.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"), lambda c, ctx: Pair(*c))
    out = pt.tree_map(lambda x: x * 10, [Pair(1, (2,))])
    assert isinstance(out[0], Pair) and out[0].a == 10 and out[0].b == (20,)
    with pytest.raises(ValueError, match="already registered"):
        pt.register_pytree_node(Pair, lambda p: ([], None), lambda c, ctx: Pair(0, 0))

    class Old:
        def __init__(self, v):
            self.v = v

    pt._register_pytree_node(Old, lambda o: ([o.v], None), lambda c, _: Old(c[0]))
    assert pt.tree_leaves([Old(5)]) == [5]


def test_map_only_any_all():
    assert pt.tree_map_only(int, lambda x: x + 1, [1, "a", 2.0, (3,)]) == [2, "a", 2.0, (4,)]
    assert pt.tree_map_only((int, float), lambda x: -x, {"k": 1.5}) == {"k": -1.5}
    assert pt.tree_map(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert pt.tree_all(lambda x: x > 0, [1, (2,)]) and not pt.tree_any(lambda x: x > 5, [1, 2])
    assert pt.tree_any_only(int, lambda x: x > 1, [1, 2.5]) is False
    assert pt.tree_all_only(str, lambda s: s == "a", ["a", 1]) is True


def test_unflatten_errors():
    spec = pt.tree_structure([1, 2])
    with pytest.raises(ValueError, match="has length 3"):
        pt.tree_unflatten([1, 2, 3], spec)
    with pytest.raises(TypeError, match="TreeSpec"):
        pt.tree_unflatten([1], [1])
