"""Direct plan steps for a language model's head and tail: cat, embedding and its backward,
(log_)softmax over short last-dim rows and its backward, nll_loss and its backward, and
same-shape float adds (gradient sums) (Note [Direct nn steps]).

# Note [Direct nn steps]
# As Note [Direct steps] does for matrix products: a plan is specialized to its guard set, so
# the checks and layout choices an eager call of these ops repeats (dim wrapping, the layout
# of a softmax's rows, the dtype and shape checks of cat and nll_loss) are done once, when the
# plan is built, and a step calls exactly the CPU kernels the eager call would have called, in
# the same order, so results are bitwise eager's (softmax calls scan's eager implementation
# itself: its row-kernel choice is being tuned, and must stay eager's); in a whole GPT-2 step,
# cache-cold, each saves 10-25 us of its node's. What can still differ at run time is checked there: a plain CPU tensor of
# the captured dtype and shape (no dispatch mode or forward-AD level: direct._plain), and for
# the ops that index with their data (embedding, nll_loss), that every index is in range.
# Anything else runs the node, which raises eager's error or takes eager's other path.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._ops import ops
from .._tensor import _make
from ..kernels import lazy
from ..ops.reduction import scan as _scan
from ..ops.reduction._reduce import PARALLEL_THRESHOLD
from ..ops.reduction.scan import _SHORT_ROW
from .direct import _plain

_KL = lazy("numtorch.kernels.cpu.nn.loss")
_KE = lazy("numtorch.kernels.cpu.nn.layers")
_FLOATS = ("float32", "float64")
_NONE, _MEAN, _SUM = 0, 1, 2  # at::Reduction


def _same(x, shape, dt) -> bool:
    return _plain(x) and x._dtype is dt and x._data.shape == shape


def _in_range(idx: np.ndarray, n: int) -> bool:
    return not idx.size or (int(idx.min()) >= 0 and int(idx.max()) < n)


class CatStep:
    """cat of same-dtype tensors: ``_cat_cpu``'s one concatenate into a fresh C-order array."""

    __slots__ = ("node", "srcs", "out", "shapes", "dt", "dim", "shape")

    def __init__(self, node, srcs, shapes, dt, dim, shape):
        self.node, self.srcs, self.out = node, srcs, node.outs[0]
        self.shapes, self.dt, self.dim, self.shape = shapes, dt, dim, shape

    def run(self, env) -> None:
        xs = [env[s] for s in self.srcs]
        for x, shape in zip(xs, self.shapes, strict=True):
            if not _same(x, shape, self.dt):
                return self.node.run(env)
        out = np.empty(self.shape, self.dt.np)
        np.concatenate([x._data for x in xs], axis=self.dim, out=out, casting="unsafe")
        env[self.out] = _make(out, self.dt)


class SoftmaxStep:
    """_softmax / _log_softmax over C-contiguous last-dim rows of at most _SHORT_ROW elements,
    below the parallel threshold: ``scan._softmax_impl`` itself, without the dispatcher (its
    kernel choice is eager's by construction, whatever row kernels it picks)."""

    __slots__ = ("node", "src", "out", "shape", "dt", "log")

    def __init__(self, node, shape, dt, log):
        self.node, self.src, self.out = node, node.direct[0][1], node.outs[0]
        self.shape, self.dt, self.log = shape, dt, log

    def run(self, env) -> None:
        x = env[self.src]
        if not _same(x, self.shape, self.dt) or not x._data.flags.c_contiguous:
            return self.node.run(env)
        env[self.out] = _scan._softmax_impl(x, -1, False, self.log)


class SoftmaxBackwardStep:
    """_softmax_backward_data / _log_softmax_backward_data over last-dim rows below the parallel
    threshold, grad and output of one dtype: ``scan._bw_data_cpu`` itself."""

    __slots__ = ("node", "g", "y", "out", "shape", "dt", "log")

    def __init__(self, node, shape, dt, log):
        d = dict(node.direct)
        self.node, self.g, self.y, self.out = node, d[0], d[1], node.outs[0]
        self.shape, self.dt, self.log = shape, dt, log

    def run(self, env) -> None:
        g, y = env[self.g], env[self.y]
        if not _same(g, self.shape, self.dt) or not _same(y, self.shape, self.dt):
            return self.node.run(env)
        env[self.out] = _scan._bw_data_cpu(g, y, -1, self.dt, self.log)


class EmbeddingStep:
    """embedding of a 2-D weight by int64 indices: ``_embedding_cpu``'s np.take."""

    __slots__ = ("node", "w", "idx", "out", "wshape", "ishape", "dt")

    def __init__(self, node, wshape, ishape, dt):
        d = dict(node.direct)
        self.node, self.w, self.idx, self.out = node, d[0], d[1], node.outs[0]
        self.wshape, self.ishape, self.dt = wshape, ishape, dt

    def run(self, env) -> None:
        w, i = env[self.w], env[self.idx]
        if not _same(w, self.wshape, self.dt) or not _same(i, self.ishape, D.int64):
            return self.node.run(env)
        idx = i._data
        if not _in_range(idx, self.wshape[0]):
            return self.node.run(env)  # eager's IndexError
        out = np.take(w._data, idx.reshape(-1), axis=0).reshape(self.ishape + (self.wshape[1],))
        env[self.out] = _make(out, self.dt)


class EmbeddingBackwardStep:
    """embedding_dense_backward of a float32/64 gradient: ``_embedding_backward_cpu``'s kernel."""

    __slots__ = ("node", "g", "idx", "out", "gshape", "ishape", "dt", "V", "pad", "freq")

    def __init__(self, node, gshape, ishape, dt):
        d = dict(node.direct)
        self.node, self.g, self.idx, self.out = node, d[0], d[1], node.outs[0]
        self.gshape, self.ishape, self.dt = gshape, ishape, dt
        self.V, self.pad, self.freq = int(node.template[2]), int(node.template[3]), bool(node.template[4])

    def run(self, env) -> None:
        g, i = env[self.g], env[self.idx]
        if not _same(g, self.gshape, self.dt) or not _same(i, self.ishape, D.int64):
            return self.node.run(env)
        idx = np.ascontiguousarray(i._data).reshape(-1)
        if not _in_range(idx, self.V):
            return self.node.run(env)
        Dn = self.gshape[-1]
        out = np.empty(self.V * Dn, self.dt.np)
        _KE.embedding_backward(np.ascontiguousarray(g._data).reshape(-1), idx, out, Dn, self.pad, self.freq)
        env[self.out] = _make(out.reshape(self.V, Dn), self.dt)


class NllStep:
    """nll_loss_forward of (N, C) float32/64 scores, int64 targets, no weight, mean or sum:
    ``loss._nll_forward``'s kernel and total."""

    __slots__ = ("node", "x", "t", "outs", "xshape", "dt", "red", "ii")

    def __init__(self, node, xshape, dt):
        d = dict(node.direct)
        self.node, self.x, self.t, self.outs = node, d[0], d[1], node.outs
        self.xshape, self.dt, self.red, self.ii = xshape, dt, node.template[3], int(node.template[4])

    def run(self, env) -> None:
        x, t = env[self.x], env[self.t]
        if not _same(x, self.xshape, self.dt) or not _same(t, self.xshape[:1], D.int64):
            return self.node.run(env)
        ta = np.ascontiguousarray(t._data)
        if not _in_range(ta, self.xshape[1]):
            return self.node.run(env)  # eager's IndexError, or an ignore_index outside [0, C)
        npdt = self.dt.np
        xa = np.ascontiguousarray(x._data).reshape(-1)
        per = np.empty(ta.size, npdt)
        tw = _KL.nll_loss(xa, ta, np.empty(0, npdt), self.xshape[1], 1, self.ii, per) if ta.size else 0.0
        if self.red == _SUM:
            out = np.array(_KL.total(per) if per.size else 0.0, npdt)
        else:
            out = np.array(_KL.total(per) / tw if tw else np.nan, npdt)
        env[self.outs[0]] = _make(out, self.dt)
        env[self.outs[1]] = _make(np.array(tw, npdt), self.dt)


class NllBackwardStep:
    """nll_loss_backward matching NllStep: ``loss._nll_backward``'s kernel."""

    __slots__ = ("node", "g", "x", "t", "tw", "out", "xshape", "gshape", "dt", "red", "ii")

    def __init__(self, node, xshape, gshape, dt):
        d = dict(node.direct)
        self.node, self.g, self.x, self.t, self.tw, self.out = node, d[0], d[1], d[2], d[6], node.outs[0]
        self.xshape, self.gshape, self.dt = xshape, gshape, dt
        self.red, self.ii = node.template[4], int(node.template[5])

    def run(self, env) -> None:
        g, x, t, tw = env[self.g], env[self.x], env[self.t], env[self.tw]
        if (not _same(g, self.gshape, self.dt) or not _same(x, self.xshape, self.dt)
                or not _same(t, self.xshape[:1], D.int64) or not _same(tw, (), self.dt)):  # fmt: skip
            return self.node.run(env)
        ta = np.ascontiguousarray(t._data)
        if not _in_range(ta, self.xshape[1]):
            return self.node.run(env)
        scale = 1.0
        if self.red == _MEAN:
            w = float(tw._data)
            scale = 1.0 / w if w else math.nan
        npdt = self.dt.np
        gi = np.zeros(math.prod(self.xshape), npdt)
        ga = np.ascontiguousarray(g._data).reshape(-1)
        if ta.size and ga.size:
            _KL.nll_loss_backward(ga, ta, np.empty(0, npdt), self.xshape[1], 1, self.ii, scale, gi)
        env[self.out] = _make(gi.reshape(self.xshape), self.dt)


class AddStep:
    """add.Tensor of two float tensors of one dtype and shape, alpha 1: one rounded IEEE sum per
    element, as eager's kernel computes it, so NumPy's add gives its bits."""

    __slots__ = ("node", "x", "y", "out", "shape", "dt")

    def __init__(self, node, shape, dt):
        d = dict(node.direct)
        self.node, self.x, self.y, self.out, self.shape, self.dt = node, d[0], d[1], node.outs[0], shape, dt

    def run(self, env) -> None:
        x, y = env[self.x], env[self.y]
        if not _same(x, self.shape, self.dt) or not _same(y, self.shape, self.dt):
            return self.node.run(env)
        r = np.empty(self.shape, self.dt.np)
        np.add(x._data, y._data, out=r)
        env[self.out] = _make(r, self.dt)


def _float(t) -> bool:
    return t._dtype.name in _FLOATS


def _tensor(env, node, pos):
    from .._tensor import Tensor

    s = dict(node.direct).get(pos)
    t = env[s] if s is not None else None
    return t if isinstance(t, Tensor) else None


def nn_step(node, env):
    """The direct step for ``node`` when Note [Direct nn steps] allows, else None."""
    op = getattr(node, "op", None)
    if op is None or op.namespace != "aten":
        return None
    name = op.__name__
    try:
        make = _MAKERS.get(name)
        return make(node, env) if make is not None else None
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None  # an argument of another form than the steps take: the node runs


def _cat(node, env):
    if not node.single or len(node.lists) != 1 or node.direct or node.lists[0][0] != 0:
        return None
    items = node.lists[0][1]
    if len(items) < 2 or any(x.__class__ is not int for x in items) or node.template[1].__class__ is not int:
        return None
    xs = [env[s] for s in items]
    r = env[node.outs[0]]
    dt = xs[0]._dtype
    if any(x._dtype is not dt for x in xs) or dt.name not in ("float32", "float64", "int64", "int32", "bool"):
        return None
    nd = xs[0]._data.ndim
    if nd == 0 or any(x._data.ndim != nd or x._data.size == 0 for x in xs) or not -nd <= node.template[1] < nd:
        return None
    d = node.template[1] % nd
    if r._data.shape != _cat_shape([x._data.shape for x in xs], d):
        return None
    return CatStep(node, list(items), [x._data.shape for x in xs], dt, d, r._data.shape)


def _cat_shape(shapes, d):
    first = shapes[0]
    if any(len(s) != len(first) or any(a != b for k, (a, b) in enumerate(zip(first, s)) if k != d) for s in shapes):
        return None
    return first[:d] + (sum(s[d] for s in shapes),) + first[d + 1 :]


def _softmax(node, env):
    x = _tensor(env, node, 0)
    if x is None or not node.single or not _float(x) or node.template[2] is not False:
        return None
    shape = x._data.shape
    dim = node.template[1]
    if not shape or dim.__class__ is not int or dim % len(shape) != len(shape) - 1 or not x._data.size:
        return None
    if shape[-1] > _SHORT_ROW or x._data.size >= PARALLEL_THRESHOLD:
        return None
    return SoftmaxStep(node, shape, x._dtype, op_log(node))


def op_log(node) -> bool:
    return node.op.__name__.startswith("_log_softmax")


def _softmax_bw(node, env):
    g, y = _tensor(env, node, 0), _tensor(env, node, 1)
    if g is None or y is None or not node.single or not _float(y) or g._dtype is not y._dtype:
        return None
    shape = y._data.shape
    dim = node.template[2]
    if not shape or g._data.shape != shape or dim.__class__ is not int or dim % len(shape) != len(shape) - 1:
        return None
    if not y._data.size or y._data.size >= PARALLEL_THRESHOLD:
        return None
    return SoftmaxBackwardStep(node, shape, y._dtype, op_log(node))


def _embedding(node, env):
    w, i = _tensor(env, node, 0), _tensor(env, node, 1)
    if w is None or i is None or not node.single or not _float(w) or i._dtype is not D.int64:
        return None
    if w._data.ndim != 2 or node.template[4] is not False:
        return None
    return EmbeddingStep(node, w._data.shape, i._data.shape, w._dtype)


def _embedding_bw(node, env):
    g, i = _tensor(env, node, 0), _tensor(env, node, 1)
    if g is None or i is None or not node.single or not _float(g) or i._dtype is not D.int64:
        return None
    if g._data.ndim < 1 or g._data.shape[:-1] != i._data.shape:
        return None
    if any(v.__class__ not in (int, bool) for v in node.template[2:5]):
        return None
    return EmbeddingBackwardStep(node, g._data.shape, i._data.shape, g._dtype)


def _nll(node, env):
    x, t = _tensor(env, node, 0), _tensor(env, node, 1)
    if x is None or t is None or node.single or len(node.outs) != 2 or not _float(x) or t._dtype is not D.int64:
        return None
    if x._data.ndim != 2 or t._data.shape != x._data.shape[:1] or 2 in dict(node.direct):
        return None
    if node.template[2] is not None or node.template[3] not in (_MEAN, _SUM) or node.template[4].__class__ is not int:
        return None
    return NllStep(node, x._data.shape, x._dtype)


def _nll_bw(node, env):
    g, x, t, tw = (_tensor(env, node, k) for k in (0, 1, 2, 6))
    if g is None or x is None or t is None or tw is None or not node.single or not _float(x):
        return None
    if g._dtype is not x._dtype or tw._dtype is not x._dtype or t._dtype is not D.int64 or 3 in dict(node.direct):
        return None
    if x._data.ndim != 2 or t._data.shape != x._data.shape[:1] or tw._data.shape != () or g._data.shape != ():
        return None
    if node.template[3] is not None or node.template[4] not in (_MEAN, _SUM) or node.template[5].__class__ is not int:
        return None
    return NllBackwardStep(node, x._data.shape, g._data.shape, x._dtype)


def _add(node, env):
    x, y = _tensor(env, node, 0), _tensor(env, node, 1)
    if x is None or y is None or not node.single or not _float(x) or x._dtype is not y._dtype:
        return None
    if x._data.shape != y._data.shape or node.template[2] != 1 or node.template[2].__class__ is not int:
        return None
    op = node.op
    if op.py_kernels or getattr(getattr(op, "pointwise", None), "cpu", None) is not op.impls.get("cpu"):
        return None  # a library override of add: its kernel runs
    return AddStep(node, x._data.shape, x._dtype)


_MAKERS = {
    "add.Tensor": _add,
    "cat.default": _cat,
    "_softmax.default": _softmax,
    "_log_softmax.default": _softmax,
    "_softmax_backward_data.default": _softmax_bw,
    "_log_softmax_backward_data.default": _softmax_bw,
    "embedding.default": _embedding,
    "embedding_dense_backward.default": _embedding_bw,
    "nll_loss_forward.default": _nll,
    "nll_loss_backward.default": _nll_bw,
}
assert all(getattr(ops.aten, k.split(".")[0], None) is not None for k in _MAKERS)
