"""Collapsed view chains of a plan (Note [View chains]).

# Note [View chains]
# A plan view (Note [Plan views]) whose result only the next plan view reads, and that neither
# the function's result nor the backward reads, is a link of a chain: the chain runs as one
# step that applies each link's NumPy operation to the array in turn and makes one tensor, the
# last link's, instead of a tensor per link (a linear layer's weight gradient is t(t(mm)), an
# attention head's gradient view, transpose, transpose, view). Each link keeps its own rule
# (expand only to its captured shape; view of a strided array only where NumPy's no-copy
# reshape exists, which is where PyTorch's stride computation finds strides); an
# ``_unsafe_view`` (a new tensor, not a view) may only end a chain. The result is the view the
# last link would have made: its base is the source's base and it shares the source's version
# counter, as every link's view does. When a check fails, or the source is not a plain CPU
# tensor (a dispatch mode, forward AD, a gradient to record), the links run one by one.
"""

from __future__ import annotations

from .._device import CPU
from .._state import STATE
from .._tensor import PLAIN_SUBCLASSES, Tensor, _make, _view
from ..ops.shape.core import _plain_contiguous

_LINKS = ("t", "transpose", "expand", "view")


class ChainStep:
    __slots__ = ("links", "ops", "src", "out", "unsafe")

    def __init__(self, links: list):
        self.links = links  # the ViewSteps, first to last
        self.ops = [(v.kind, v.arg) for v in links]
        self.src, self.out, self.unsafe = links[0].src, links[-1].out, links[-1].kind == "unsafe"

    def run(self, env) -> None:
        x = env[self.src]
        if ((x.__class__ is not Tensor and x.__class__ not in PLAIN_SUBCLASSES) or x._device is not CPU
                or STATE.td_modes or STATE.fw_level >= 0 or (x._rg and STATE.grad_enabled)):  # fmt: skip
            return self._one_by_one(env)
        a = x._data
        for kind, arg in self.ops:
            if kind == "t":
                a = a.T
            elif kind == "transpose":
                a = a.swapaxes(*arg)
            elif kind == "expand":
                if a.shape != arg:
                    return self._one_by_one(env)
            elif not _plain_contiguous(a):
                if kind != "view":
                    return self._one_by_one(env)
                try:
                    a = a.reshape(arg, copy=False)
                except ValueError:  # not a view: the links, for eager's error
                    return self._one_by_one(env)
            else:
                a = a.reshape(arg)
        if self.unsafe:
            env[self.out] = _make(a, x._dtype)
        else:
            env[self.out] = _view(x, a.view() if a is x._data else a)

    def _one_by_one(self, env) -> None:
        for v in self.links:
            v.run(env)


def collapse(steps: list, keep: set) -> list:
    """``steps`` with chains of plan views (Note [View chains]) as ChainSteps."""
    readers: dict = {}
    for st in steps:
        for s in _reads(st):
            readers[s] = readers.get(s, 0) + 1
    views = {st.out: st for st in steps if type(st).__name__ == "ViewStep"}
    nxt: dict = {}  # a link's ViewStep -> the view that alone reads its result
    for st in views.values():
        prev = views.get(st.src)
        if (prev is not None and prev.kind in _LINKS and st.kind in (*_LINKS, "unsafe") and st.src not in keep
                and readers.get(st.src) == 1):  # fmt: skip
            nxt[id(prev)] = st
    heads = set(nxt) - {id(v) for v in nxt.values()}
    out, gone = [], set()
    for st in steps:
        if id(st) in gone:
            continue
        if id(st) not in heads:
            out.append(st)
            continue
        links = [st]
        while id(links[-1]) in nxt:
            links.append(nxt[id(links[-1])])
        gone.update(id(v) for v in links)
        out.append(ChainStep(links))  # runs where the head ran: the later links read only the chain
    return out


def _reads(st) -> list:
    if type(st).__name__ == "ViewStep":
        return [st.src]
    nodes = getattr(st, "nodes", None)
    if nodes is not None:  # a fusion Region
        return [s for n in [*nodes, *([st.reduce_node] if st.reduce_node is not None else [])] for s in n.inputs()]
    views = getattr(st, "views", None) or ()
    return getattr(st, "node", st).inputs() + [v.src for v in views if v is not None]
