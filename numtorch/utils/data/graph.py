"""The DataPipe graph: which DataPipes feed which, found from their attributes."""

from __future__ import annotations

from .datapipes.datapipe import IterDataPipe, MapDataPipe


def _children(dp) -> list:
    out = []
    for v in vars(dp).values():
        items = v if isinstance(v, (list, tuple)) else (v,)
        out += [x for x in items if isinstance(x, (IterDataPipe, MapDataPipe))]
    return out


def traverse_dps(datapipe) -> dict:
    """``{id(dp): (dp, {id(source): (source, {...})})}`` for ``datapipe`` and everything upstream.

    >>> from numtorch.utils.data.datapipes.iter import IterableWrapper
    >>> g = traverse_dps(IterableWrapper([1]).map(str)); [type(v[0]).__name__ for v in g.values()]
    ['Mapper']
    """
    return {id(datapipe): (datapipe, {k: v for c in _children(datapipe) for k, v in traverse_dps(c).items()})}


def list_dps(graph, exclude_dps=None) -> list:
    """Every DataPipe in a ``traverse_dps`` graph, breadth first."""
    out, queue = [], list(graph.values())
    while queue:
        dp, sub = queue.pop(0)
        out.append(dp)
        queue += list(sub.values())
    return out
