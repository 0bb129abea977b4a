"""Direct plan steps: matrix products, contiguous clones and bias-gradient sums of a captured
graph run as their CPU kernels' NumPy / Numba calls (Note [Direct steps]).

# Note [Direct steps]
# A plan is specialized to its guard set, so the shapes, dtypes and layouts its nodes saw at
# capture are the ones they see at every hit: the argument checks and layout choices an eager
# call repeats (mm's shape and dtype checks, clone's memory-format dispatch, a reduction's dims
# normalisation and layout) are done once, when the plan is built. At run time a step only
# checks what could still differ (the operand is a plain CPU tensor of the captured layout, no
# dispatch mode, forward-AD level or gradient to record: Note [Plan views]) and calls what the
# eager CPU kernel would have called, so results are bitwise eager's; anything else runs the
# node. Matrix products: eager's ``product`` is one ``np.matmul`` into a fresh array for 2-D and
# batched 3-D float operands with an inner dimension above 1 (1 takes its broadcast-multiply
# branch, so the node runs). Clones to contiguous format of a C-contiguous or strided input:
# ``_clone_cpu``'s copy. Sums over a contiguous range of dims of a C-contiguous float input:
# the sum combiner's generated kernel through the reduction launcher, as ``fold`` runs it.
"""

from __future__ import annotations

import math

import numpy as np

from .._device import CPU
from ..ops.shape._format import contiguous_format
from .._ops import ops
from .._state import STATE
from .._tensor import PLAIN_SUBCLASSES, Tensor, _make, _view
from ..ops.reduction import _reduce as E
from ..ops.reduction.core import _SUM


def _plain(x) -> bool:
    # a Parameter or Buffer (PLAIN_SUBCLASSES: eager results of them are plain Tensors) counts
    return ((x.__class__ is Tensor or x.__class__ in PLAIN_SUBCLASSES) and x._device is CPU and not STATE.td_modes
            and STATE.fw_level < 0 and not (x._rg and STATE.grad_enabled))  # fmt: skip


class MatmulStep:
    __slots__ = ("node", "a", "b", "out", "shape", "dt", "views")

    def __init__(self, node, shape, dt):
        self.node, self.shape, self.dt = node, shape, dt
        d = dict(node.direct)
        self.a, self.b, self.out = d[0], d[1], node.outs[0]
        self.views = [None, None]  # folded transposes of the operands (Note [Folded views])

    def _arrays(self, env, *more):
        """The two operands' arrays with their folded views applied; None, after running the
        views for the node's own run, when an operand (or one of ``more``) is not a plain
        tensor of the step's dtype."""
        va, vb = self.views
        ts = (env[self.a if va is None else va.src], env[self.b if vb is None else vb.src], *more)
        for t in ts:
            if not _plain(t) or t._dtype is not self.dt:
                for v in self.views:
                    if v is not None:
                        v.run(env)
                return None
        a, b = ts[0]._data, ts[1]._data
        if va is not None:
            a = a.swapaxes(*va.arg) if va.kind == "transpose" else a.T
        if vb is not None:
            b = b.swapaxes(*vb.arg) if vb.kind == "transpose" else b.T
        return a, b

    def run(self, env) -> None:
        ab = self._arrays(env)
        if ab is None:
            return self.node.run(env)
        r = np.empty(self.shape, self.dt.np)
        np.matmul(*ab, out=r)
        env[self.out] = _make(r, self.dt)


class AddmmStep(MatmulStep):
    """addmm(bias, a, b) with beta = alpha = 1 and a bias of the result's shape or its last
    dimension: eager's F.linear branch of ``_addmm_cpu``, one product into a fresh array and one
    broadcast add into it, so the bits are eager's (the qkv projection, whose output a split
    reads, is not split into mm + a fused add: Note [addmm epilogue])."""

    __slots__ = ("bias",)

    def __init__(self, node, shape, dt):
        super().__init__(node, shape, dt)
        d = dict(node.direct)
        self.a, self.b, self.bias = d[1], d[2], d[0]

    def run(self, env) -> None:
        z = env[self.bias]
        ab = self._arrays(env, z)
        if ab is None:
            return self.node.run(env)
        r = np.empty(self.shape, self.dt.np)
        with np.errstate(all="ignore"):
            np.matmul(*ab, out=r)
            np.add(r, z._data, out=r)
        env[self.out] = _make(r, self.dt)


# Note [Folded views]
# A t or transpose plan view (Note [Plan views]) that only one matrix product reads, and that
# nothing after the plan reads, is folded into the product: the product transposes the NumPy
# array of the view's source itself, so the view's tensor is never made (a linear layer's
# backward reads its weight and output gradient only through t). Should the product have to
# run its node (a mode became active), it first runs the folded views.
def fold_views(steps: list, keep: set) -> list:
    """``steps`` with t / transpose views that a MatmulStep alone reads folded into it."""
    readers: dict = {}
    for st in steps:
        for s in _reads(st):
            readers.setdefault(s, []).append(st)
    views = {st.out: st for st in steps if type(st).__name__ == "ViewStep" and st.kind in ("t", "transpose")}
    gone = set()
    for st in steps:
        if st.__class__ is not MatmulStep and st.__class__ is not AddmmStep:
            continue
        for i, s in enumerate((st.a, st.b)):
            v = views.get(s)
            if v is not None and s not in keep and readers.get(s) == [st] and id(v) not in gone:
                st.views[i] = v
                gone.add(id(v))
    return [st for st in steps if id(st) not in gone]


def _reads(st) -> list:
    nodes = getattr(st, "nodes", None)
    if nodes is not None:  # a fusion Region
        return [s for n in [*nodes, *([st.reduce_node] if st.reduce_node is not None else [])] for s in n.inputs()]
    return getattr(st, "node", st).inputs()


class CloneStep:
    __slots__ = ("node", "src", "out")

    def __init__(self, node):
        self.node, self.src, self.out = node, node.direct[0][1], node.outs[0]

    def run(self, env) -> None:
        x = env[self.src]
        if not _plain(x):
            return self.node.run(env)
        a = x._data
        r = np.empty(a.shape, a.dtype)
        np.copyto(r, a)
        env[self.out] = _make(r, x._dtype)


class SumStep:
    __slots__ = ("node", "src", "out", "shape", "lay", "res_shape", "mod")

    def __init__(self, node, shape, lay, res_shape):
        self.node, self.src, self.out = node, node.direct[0][1], node.outs[0]
        self.shape, self.lay, self.res_shape = shape, lay, res_shape
        self.mod = _SUM.module()

    def run(self, env) -> None:
        x = env[self.src]
        if not _plain(x) or x._data.shape != self.shape or not x._data.flags.c_contiguous:
            return self.node.run(env)
        outer, R, inner = self.lay
        res = np.empty(outer * inner, x._data.dtype)
        E._launch(self.mod, x._data.reshape(-1), res, outer, R, inner, ())
        env[self.out] = _make(res.reshape(self.res_shape), x._dtype)


# Note [Constant factories]
# An integer ``arange`` (GPT-2's position ids) reads no tensor, and its value depends on nothing
# the guards do not fix (its arguments are baked into the node; an integer result ignores the
# default dtype): in a graph of functional and view calls only, where no call can write into
# it, and when the function does not return it, its first value is kept and every later call
# reuses it (34 us of eager arange a call). A dispatch mode active at run time sees the call.
class ConstStep:
    __slots__ = ("node", "out", "value")

    def __init__(self, node):
        self.node, self.out, self.value = node, node.outs[0], None

    def run(self, env) -> None:
        if self.value is None or STATE.td_modes:
            self.node.run(env)
            v = env[self.out]
            if not STATE.td_modes and v.__class__ is Tensor and not v._rg:
                self.value = v
            return
        env[self.out] = self.value


_FACTORIES = ("arange.default", "arange.start", "arange.start_step")


def const_step(node, env, user: set, pure: bool):
    """A ConstStep for ``node`` when Note [Constant factories] allows, else None."""
    op = getattr(node, "op", None)
    if not pure or op is None or node.direct or node.lists or not node.single or node.outs[0] in user:
        return None
    if op.namespace != "aten" or op.__name__ not in _FACTORIES:
        return None
    r = env[node.outs[0]]
    return ConstStep(node) if r.__class__ is Tensor and r._dtype.name == "int64" and r._device is CPU else None


# Note [Constant folds]
# A value made only from constant buffers (GPT-2's causal mask: ``mask[:, :, :t, :t] == 0``)
# is the same at every call while those buffers keep their arrays and versions: an aliasing view
# of them, or a pointwise call with a bool result (a comparison or logical op, whose dtype no
# default dtype changes), in a graph of functional and view calls only, that the function does
# not return. Its step keeps the first result with each root buffer, its array and its version
# counter, and reuses it while all three, and its own version, are unchanged: an in-place write
# to a buffer, a replaced array, a write into the kept value through a view the function
# returned, or an active dispatch mode or forward-AD level runs the call.
class CachedStep:
    __slots__ = ("node", "roots", "key", "value", "version")

    def __init__(self, node, roots):
        self.node, self.roots, self.key, self.value, self.version = node, roots, None, None, None

    def run(self, env) -> None:
        if STATE.td_modes or STATE.fw_level >= 0:
            return self.node.run(env)
        key = self.key
        if key is not None and self.value._vc[0] == self.version:
            for s, (t, a, v) in zip(self.roots, key, strict=True):
                x = env[s]
                if x is not t or x._data is not a or x._vc[0] != v:
                    break
            else:
                env[self.node.outs[0]] = self.value
                return
        self.node.run(env)
        r = env[self.node.outs[0]]
        ts = [env[s] for s in self.roots]
        if r.__class__ is Tensor and not r._rg and all(not t._rg for t in ts):
            self.key, self.value, self.version = [(t, t._data, t._vc[0]) for t in ts], r, r._vc[0]


_CONST_VIEWS = ("alias.default", "slice.Tensor", "view.default", "unsqueeze.default", "expand.default")


def fold_consts(steps: list, env, consts, user: set, pure: bool) -> list:
    """``steps`` with calls on constant buffers alone as CachedSteps (Note [Constant folds]);
    ``consts``: the slots holding constants."""
    if not pure or not consts:
        return steps
    roots = {s: (s,) for s in consts if isinstance(env[s], Tensor) and not env[s]._rg}
    out = []
    for st in steps:
        node = getattr(st, "node", st)
        op = getattr(node, "op", None)
        ins = node.inputs() if op is not None else None
        if not ins or node.lists or not node.single or node.outs[0] in user or any(s not in roots for s in ins):
            out.append(st)
            continue
        r = env[node.outs[0]]
        name = op.__name__ if op.namespace == "aten" else ""
        decl = getattr(op, "pointwise", None)
        if not isinstance(r, Tensor) or r._device is not CPU or r._rg:
            out.append(st)
            continue
        if st is not node:  # a plan view: cheap already, but what it makes is constant too
            roots[node.outs[0]] = tuple(sorted({x for s in ins for x in roots[s]}))
            out.append(st)
            continue
        pointwise = decl is not None and decl.kind == "functional" and r._dtype.name == "bool"
        if name not in _CONST_VIEWS and not pointwise:
            out.append(st)
            continue
        roots[node.outs[0]] = rs = tuple(sorted({x for s in ins for x in roots[s]}))
        out.append(CachedStep(node, rs))
    return out


class SplitStep:
    """split.Tensor (attention's q, k, v): the NumPy slices ``_split_sizes_cpu`` takes, worked
    out at capture, each wrapped by ``_view`` as that kernel wraps it (Note [Plan views])."""

    __slots__ = ("node", "src", "outs", "shape", "keys")

    def __init__(self, node, shape, keys):
        self.node, self.src, self.outs, self.shape, self.keys = node, node.direct[0][1], node.outs, shape, keys

    def run(self, env) -> None:
        x = env[self.src]
        if not _plain(x) or x._data.shape != self.shape:
            return self.node.run(env)
        a = x._data
        for s, key in zip(self.outs, self.keys, strict=True):
            env[s] = _view(x, a[key])


def _split(node, env):
    x = env[node.direct[0][1]]
    size, dim = node.template[1], node.template[2]
    if node.direct[0][0] != 0 or not isinstance(x, Tensor) or size.__class__ is not int or dim.__class__ is not int:
        return None
    a = x._data
    if not a.ndim or size <= 0 or not -a.ndim <= dim < a.ndim:
        return None
    d = dim % a.ndim
    n = a.shape[d]
    starts = list(range(0, n, size)) or [0]
    if len(starts) != len(node.outs):
        return None
    keys = [(slice(None),) * d + (slice(b, min(b + size, n)), Ellipsis) for b in starts]
    return SplitStep(node, a.shape, keys)


def direct_step(node, env):
    """The direct step for ``node`` (a graph Node, with ``env`` the capture's values), or None."""
    op = getattr(node, "op", None)
    if op is ops.aten.split.Tensor and not node.single and not node.lists and len(node.direct) == 1:
        return _split(node, env)
    if op is None or node.lists or not node.single or not node.direct:
        return None
    if op is ops.aten.mm.default or op is ops.aten.bmm.default:
        return _matmul(node, env)
    if op is ops.aten.addmm.default:
        return _addmm(node, env)
    if op is ops.aten.clone.default:
        x = env[node.direct[0][1]]
        if node.template[1] is contiguous_format and isinstance(x, Tensor) and x._dtype.name in _FLOATS:
            return CloneStep(node)
        return None
    if op is ops.aten.sum.dim_IntList:
        return _sum(node, env)
    return None


_FLOATS = ("float32", "float64")


def _matmul(node, env):
    d = dict(node.direct)
    if set(d) != {0, 1}:
        return None
    x, y, r = env[d[0]], env[d[1]], env[node.outs[0]]
    if not all(isinstance(t, Tensor) for t in (x, y, r)) or x._dtype is not y._dtype or x._dtype.name not in _FLOATS:
        return None
    a, b = x._data, y._data
    if a.ndim != b.ndim or a.ndim not in (2, 3) or a.shape[-1] <= 1 or (a.ndim == 3 and a.shape[0] != b.shape[0]):
        return None
    return MatmulStep(node, r._data.shape, x._dtype)


def _addmm(node, env):
    d = dict(node.direct)
    if set(d) != {0, 1, 2} or node.template[3].__class__ is not int or node.template[4].__class__ is not int:
        return None
    if node.template[3] != 1 or node.template[4] != 1:
        return None
    z, x, y, r = env[d[0]], env[d[1]], env[d[2]], env[node.outs[0]]
    if not all(isinstance(t, Tensor) for t in (z, x, y, r)) or x._dtype.name not in _FLOATS:
        return None
    if not (x._dtype is y._dtype is z._dtype is r._dtype):
        return None
    a, b, shape = x._data, y._data, r._data.shape
    if a.ndim != 2 or b.ndim != 2 or len(shape) != 2 or z._data.shape not in (shape, shape[1:]):
        return None
    return AddmmStep(node, shape, x._dtype)


def _sum(node, env):
    x, r = env[node.direct[0][1]], env[node.outs[0]]
    dims, keepdim, dtype = node.template[1], node.template[2], node.template[3]
    if not isinstance(x, Tensor) or not isinstance(r, Tensor) or dtype is not None or not dims:
        return None
    a = x._data
    if x._dtype.name not in _FLOATS or not a.flags.c_contiguous or not a.size or r._dtype is not x._dtype:
        return None
    ds = sorted(d % a.ndim for d in dims) if a.ndim else []
    if not ds or len(set(ds)) != len(ds) or ds[-1] - ds[0] + 1 != len(ds):
        return None  # dims that are not one contiguous range take the transposing layout
    s = a.shape
    lay = (math.prod(s[: ds[0]]), math.prod(s[ds[0] : ds[-1] + 1]), math.prod(s[ds[-1] + 1 :]))
    return SumStep(node, s, lay, r._data.shape)
