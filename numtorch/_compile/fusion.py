"""Fusion: group consecutive pointwise calls of a captured graph into generated kernels.

# Note [Fusion regions]
# A region is a maximal run of *consecutive* graph nodes that are fusable pointwise calls with
# one output shape. Consecutive, so that no other call (an in-place update, a view, a matmul)
# can run between two of its members: the region reads its inputs and writes its outputs at one
# point of the program, as the eager calls would have. A pointwise call of another shape, or a
# view, that reads nothing the run makes is hoisted above it rather than ending it (a causal
# mask's ``eq`` between the scores' scale and masked_fill): the run's calls write only their own
# new outputs, so running it first changes nothing. A node is fusable when its op was declared
# with ``defpointwise`` and still runs that declaration's CPU kernel (no library override), its
# tensor operands are plain CPU tensors, and its operand, compute and result dtypes are in the
# kernels' closed set (bool, int32, int64, float32, float64: float16 and complex keep their own
# paths); integer division-like ops, whose kernels raise on a zero divisor, are left alone. A
# region's outputs are the values later calls or the function's result read; the others never
# reach memory. Regions of one call stay plain calls.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._device import CPU
from .._ops import ops
from .._state import STATE
from .._tensor import PLAIN_SUBCLASSES, Tensor, _make, _view
from ..kernels import PARALLEL_THRESHOLD
from ..ops.shape.inplace import checked_scalar
from ..ops._pointwise import Pointwise, _param, _scalar, big_prefix, flat_parts, kernel_scalar
from ..ops.pointwise._elementwise import CAT, Elementwise, number, scalar_as
from ..ops.shape.core import _plain_contiguous
from ..ops.reduction._reduce import KS as _KS
from ..ops.reduction.scan import _SHORT_ROW, _softmax_impl
from . import chains, codegen
from .direct import const_step, direct_step, fold_consts, fold_views
from .direct_nn import nn_step
from .graph import Node

_OK = {"bool", "int32", "int64", "float32", "float64"}


class FusedOp:
    """One pointwise call inside a region: its expression and where each operand comes from."""

    __slots__ = ("names", "expr", "args", "result", "helper", "shape")

    def __init__(self, names, expr, args, result, shape):
        self.names = names  # helper parameter names: the op's inputs, then its parameters
        self.expr = expr
        self.args = args  # [(kind "in" | "node" | "scalar", index, compute dtype name | None)]
        self.result = result  # result dtype name
        self.shape = shape
        self.helper = ""


def _decl(node, env):
    """(names, expr, [(operand | ("param", value), cast)], result, shape) or None: not fusable."""
    op = node.op
    if op is _MASKED_FILL[0]:
        return _masked_fill(node, env)
    decl = getattr(op, "pointwise", None)  # Note [Pointwise declaration]
    if decl is None or decl.kind != "functional" or op.py_kernels or op.impls.get("cpu") is not decl.cpu:
        return None
    if not node.single or node.lists:
        return None
    pw, in_idx, par_idx = decl.pw, decl.inputs, decl.params
    vals = node.values(env)
    if decl.select is not None:
        pw = pw.get(vals[decl.select]) if isinstance(vals[decl.select], str) else None
        if pw is None:
            return None
    operands = [vals[i] for i in in_idx]
    params = [vals[i] for i in par_idx]
    tens = [x for x in operands if isinstance(x, Tensor)]
    if not tens or any(x.__class__ is not Tensor and x.__class__ not in PLAIN_SUBCLASSES for x in tens):
        return None
    if any(x._device.type != "cpu" or x._dtype.name not in _OK for x in tens):
        return None
    try:
        spec = _elementwise(pw, operands, params) if isinstance(pw, Elementwise) else _plain(pw, operands, params)
    except Exception:
        return None  # whatever the op would refuse, the eager call reports
    if spec is None:
        return None
    names, expr, compute, result, scalars, pvals, wide = spec
    if compute.name not in _OK or result.name not in _OK:
        return None
    out = env[node.outs[0]]
    ops = []
    for name, x, s in zip(names, operands, scalars, strict=False):
        keep = name in wide and compute.category == D._FLOAT and not isinstance(x, Tensor)
        ops.append((x if isinstance(x, Tensor) else ("scalar", s), None if keep else compute.name))
    ops += [(("scalar", p), compute.name) for p in pvals]
    return names, expr, ops, result.name, out._data.shape


# Note [Fused masked_fill]
# masked_fill.Scalar is a selection, ``value if mask else self``, with the value cast to self's
# dtype as eager's kernel casts it (checked_scalar): in a region it is one more pointwise
# expression (attention's causal mask between the scale and the softmax), bitwise eager's.
# Only a floating self of the output's shape and a bool mask that broadcasts to it are fused.
_MASKED_FILL = [ops.aten.masked_fill.Scalar]


def _masked_fill(node, env):
    self, mask, value = node.values(env)[:3]
    out = env[node.outs[0]]
    if not isinstance(self, Tensor) or not isinstance(mask, Tensor) or isinstance(value, Tensor) or out is None:
        return None
    for x in (self, mask):
        if (x.__class__ is not Tensor and x.__class__ not in PLAIN_SUBCLASSES) or x._device.type != "cpu":
            return None
    dt = self._dtype
    if mask._dtype is not D.bool or dt.name not in ("float32", "float64") or self._data.shape != out._data.shape:
        return None
    try:
        v = checked_scalar(value, dt)
    except Exception:
        return None
    return ["self", "mask", "value"], "value if mask else self", [(self, dt.name), (mask, None), (("scalar", float(v)), dt.name)], dt.name, out._data.shape


def _elementwise(pw, operands, params):
    if pw.prep is not None and pw.kparams != pw.params:
        return None  # parameters the kernel receives differ from the op's: keep the op's path
    operands = [x if isinstance(x, Tensor) else number(x, pw, i) for i, x in enumerate(operands)]
    _, compute, result = pw._dtypes(operands)
    if compute.category > D._FLOAT or compute is D.float16:
        return None
    if pw.zero_div is not None and compute.category <= D._INT:
        return None
    kp = pw.prep(compute, operands, list(params)) if pw.prep else params
    v = pw.variants.get(CAT[compute.category])
    if v is None:
        return None
    scalars = [None if isinstance(x, Tensor) else scalar_as(x, compute) for x in operands]
    pvals = [kernel_scalar(p, scalar_as(p, compute), compute) for p in kp]
    return v.inputs + v.params, v.expr, compute, result, scalars, pvals, v.wide


def _plain(pw, operands, params):
    if type(pw) is not Pointwise:
        return None
    compute, result = pw.dtypes(operands)
    if compute.category > D._FLOAT or compute is D.float16:
        return None
    scalars = [None if isinstance(x, Tensor) else kernel_scalar(x, _scalar(x, compute), compute) for x in operands]
    pvals = [_param(p, compute) for p in params]
    return pw.inputs + pw.params, pw.expr, compute, result, scalars, pvals, pw.wide


class Region:
    """A fused run of nodes (Note [Fusion regions]); ``run(env)`` computes its outputs."""

    def __init__(self, nodes, specs, graph_reads, reduce_node=None):
        self.nodes = nodes
        self.reduce = None  # (kind, keepdim): Note [Fused trailing reduction]
        self.reduce_node = reduce_node
        self.inputs: list = []  # slots of region tensor inputs
        self.scalars: list = []
        self.ops: list = []
        self.head = None  # (grad_output, output) inputs: Note [Fused softmax backward]
        if nodes[0].op is _SBD[0]:
            self.inputs.append(dict(nodes[0].direct)[0])
        produced = {n.outs[0]: k for k, n in enumerate(nodes)}
        for n, (names, expr, ops, result, shape) in zip(nodes, specs, strict=True):
            args = []
            for x, cast in ops:
                if x.__class__ is tuple and len(x) == 1:  # the row's product / sum (a head)
                    args.append((x[0], 0, cast))
                    continue
                if x.__class__ is tuple:
                    args.append(("scalar", len(self.scalars), cast))
                    self.scalars.append(x[1])
                    continue
                slot = x  # a slot number (see plan())
                if slot in produced and produced[slot] < len(self.ops):
                    args.append(("node", produced[slot], cast))
                else:
                    if slot not in self.inputs:
                        self.inputs.append(slot)
                    args.append(("in", self.inputs.index(slot), cast))
            self.ops.append(FusedOp(names, expr, args, result, shape))
        self.shape = specs[0][4]
        if nodes[0].op is _SBD[0]:
            d = dict(nodes[0].direct)
            self.head = (self.inputs.index(d[0]), self.inputs.index(d[1]))
        last = len(nodes) - 1
        self.outputs = [k for k, n in enumerate(nodes) if n.outs[0] in graph_reads or (reduce_node and k == last)]
        self.red_outputs = [k for k in self.outputs if k != last] if reduce_node else []
        if reduce_node is not None:
            kind = reduce_node.op.__name__.split(".")[0]
            if kind in ("_softmax", "_log_softmax"):  # Note [Fused trailing softmax]
                self.reduce = ("softmax", kind == "_log_softmax")
            else:
                self.reduce = ("layer_norm", None) if kind == "native_layer_norm" else (kind, reduce_node.template[2])
            if kind == "native_layer_norm":  # Note [Fused layer_norm prologue]: its input is written
                self.red_outputs = list(self.outputs)
        self.out_slots = [nodes[k].outs[0] for k in self.outputs]
        self.out_dtypes = [getattr(D, self.ops[k].result) for k in self.outputs]
        self.pattern = ""
        self.mod = None
        self.failed = False

    def plan_pattern(self, env) -> None:
        n = self.n = int(np.prod(self.shape))
        self.k = self.shape[-1] if self.shape else 1
        letters = [_letter(env[s]._data, n, self.k, self.shape) for s in self.inputs]
        self.pattern = "".join(x or "a" for x in letters)
        # Note [Region layouts]: the capture's operand layouts, which give the pattern at once
        self.layout = [(a.shape, a.strides) if x else None for x, a in zip(letters, (env[s]._data for s in self.inputs))]
        self.dts = [self.out_dtypes[self.outputs.index(i)] for i in self.red_outputs] if self.reduce_node else []
        self.mod = codegen.load(self)
        if self.head is not None:
            self.kr, self.kpr = self.mod.sb, self.mod.psb
            return
        self.kc, self.kp, self.ks = self.mod.c, self.mod.p, self.mod.s
        if self.reduce is not None and self.reduce[0] == "layer_norm":
            self.kr, self.kpr = self.mod.ln, self.mod.pln
        elif self.reduce is not None and self.reduce[0] == "softmax":
            self.kr, self.kpr = self.mod.sm, self.mod.psm
        elif self.reduce is not None:
            self.kr, self.kpr = self.mod.r, self.mod.pr

    def run(self, env) -> None:
        if self.failed:
            return self._run_nodes(env)
        try:
            if self.head is not None:
                return self._run_head(env) or self._run_nodes(env)
            if self.reduce is not None and self._run_reduce(env):
                return
            self._run(env)
        except Exception as e:
            # a generated kernel that does not compile (an expression Numba types differently
            # in a fused loop) must not fail the user's call: the region's own calls are
            # pointwise and write nothing, so they can simply run instead, now and from now on
            from .. import _logging

            _logging.emit("graph_breaks", f"fused kernel failed ({type(e).__name__}: {e}); running its calls")
            self.failed = True
            return self._run_nodes(env)
        if self.reduce_node is not None:
            self.reduce_node.run(env)

    def _run_nodes(self, env) -> None:
        for n in self.nodes:
            n.run(env)
        if self.reduce_node is not None:
            self.reduce_node.run(env)

    def _arrays(self, env):
        """The operands' arrays when their layout gives the planned pattern, else None."""
        arrays = [env[s]._data for s in self.inputs]
        for a, lay in zip(arrays, self.layout):
            if lay is None or a.shape != lay[0] or a.strides != lay[1]:
                break
        else:
            return arrays
        return arrays if "".join(_letter(a, self.n, self.k, self.shape) or "?" for a in arrays) == self.pattern else None

    def _run_reduce(self, env) -> bool:
        shape, n, k = self.shape, self.n, self.k
        arrays = self._arrays(env)
        if arrays is None:
            return False  # another layout: the region, then the reduction's own kernel
        rows = n // k
        dts = self.dts
        outs = [np.empty(shape, d.np) for d in dts]
        if self.reduce[0] == "layer_norm":
            self._run_layer_norm(env, rows, k, arrays, outs, dts)
            return True
        if self.reduce[0] == "softmax":
            self._run_softmax(env, rows, k, arrays, outs, dts)
            return True
        rd = self.out_dtypes[-1]
        red = np.empty(shape[:-1] + ((1,) if self.reduce[1] else ()), rd.np)
        big = n >= PARALLEL_THRESHOLD and big_prefix() == "p_"
        (self.kpr if big else self.kr)(rows, k, *[a.reshape(-1) for a in arrays], *self.scalars,
                                        *[o.reshape(-1) for o in outs], red.reshape(-1))  # fmt: skip
        for i, o, d in zip(self.red_outputs, outs, dts, strict=True):
            env[self.nodes[i].outs[0]] = _make(o, d)
        env[self.reduce_node.outs[0]] = _make(red, rd)
        return True

    def _run_layer_norm(self, env, rows, k, arrays, outs, dts) -> None:
        shape, node = self.shape, self.reduce_node
        dt = dts[-1]
        vals = node.values(env)
        w, b = (np.zeros(1, dt.np) if t is None else np.ascontiguousarray(t._data, dt.np).reshape(-1)
                for t in vals[2:4])  # fmt: skip
        y = np.empty(shape, dt.np)
        stat = shape[:-1] + (1,)
        mean, rstd = np.empty(stat, dt.np), np.empty(stat, dt.np)
        big = rows * k >= PARALLEL_THRESHOLD and rows > 1 and big_prefix() == "p_"
        (self.kpr if big else self.kr)(rows, k, *[a.reshape(-1) for a in arrays], *self.scalars,
                                        *[o.reshape(-1) for o in outs], w, b, vals[2] is not None, vals[3] is not None,
                                        float(vals[4]), y.reshape(-1), mean.reshape(-1), rstd.reshape(-1))  # fmt: skip
        for i, o, d in zip(self.red_outputs, outs, dts, strict=True):
            env[self.nodes[i].outs[0]] = _make(o, d)
        for s, a in zip(node.outs, (y, mean, rstd), strict=True):
            env[s] = _make(a, dt)

    def _run_head(self, env) -> bool:
        shape, n, k = self.shape, self.n, self.k
        arrays = self._arrays(env)
        if arrays is None:
            return False  # another layout: the calls, softmax's backward first
        outs = [np.empty(shape, d.np) for d in self.out_dtypes]
        args = [n // k, k, *[a.reshape(-1) for a in arrays], *self.scalars, *[o.reshape(-1) for o in outs]]
        if n < PARALLEL_THRESHOLD:  # eager's choice in scan._bw_data_cpu: its row kernel, then the calls
            go, y = arrays[self.head[0]], arrays[self.head[1]]
            hv = np.empty(n, y.dtype)
            _KS.softmax_backward_rows(go.reshape(-1), y.reshape(-1), hv, n // k, k, False)
            self.mod.sbx(*args, hv)
        elif n > k and big_prefix() == "p_":
            self.kpr(*args)
        else:
            self.kr(*args, np.empty(k, arrays[self.head[1]].dtype))
        for s, o, d in zip(self.out_slots, outs, self.out_dtypes, strict=True):
            env[s] = _make(o, d)
        return True

    def _run_softmax(self, env, rows, k, arrays, outs, dts) -> None:
        dt = self.out_dtypes[-1]
        y = np.empty(self.shape, dt.np)
        big = rows * k >= PARALLEL_THRESHOLD and rows > 1 and big_prefix() == "p_"
        args = [rows, k, *[a.reshape(-1) for a in arrays], *self.scalars, *[o.reshape(-1) for o in outs]]
        log = self.reduce[1]
        if k <= _SHORT_ROW and rows * k < PARALLEL_THRESHOLD:
            # the scores, then scan._softmax_impl itself on them: its short-row kernel choice
            # (which differs for log_softmax, and is being tuned) stays eager's bits
            pre = np.empty(self.shape, dt.np)
            self.mod.smp(*args, pre.reshape(-1))
            y = _softmax_impl(_make(pre, dt), -1, False, log)._data
        elif big:
            self.kpr(*args, y.reshape(-1), log)
        else:
            self.kr(*args, y.reshape(-1), np.empty(k, dt.np), log)
        for i, o, d in zip(self.red_outputs, outs, dts, strict=True):
            env[self.nodes[i].outs[0]] = _make(o, d)
        env[self.reduce_node.outs[0]] = _make(y, dt)

    def _run(self, env) -> None:
        shape = self.shape
        outs = [np.empty(shape, d.np) for d in self.out_dtypes]
        n = self.n if outs else 0
        if n:
            arrays = self._arrays(env)
            flat = [o.reshape(-1) for o in outs]
            if arrays is not None:
                kern = self.kp if n >= PARALLEL_THRESHOLD and big_prefix() == "p_" else self.kc
                rows = (self.k,) if "r" in self.pattern or "b" in self.pattern else ()
                kern(*rows, *[a.reshape(-1) for a in arrays], *self.scalars, *flat)
            else:
                arrays = [env[s]._data for s in self.inputs]
                args = []
                for a in arrays:
                    args += flat_parts(a, shape)
                self.ks(np.array(shape, np.int64), *args, *self.scalars, *flat)
        for s, o, d in zip(self.out_slots, outs, self.out_dtypes, strict=True):
            env[s] = _make(o, d)


# Note [Region layouts]
# A region's kernels are chosen by its operands' layout letters (``_letter``), which hold as
# long as each operand has the shape and strides it had at capture: a run compares those two
# tuples per operand (a plan is specialized to its guard set, so they match) and works the
# letters out again only when one differs, instead of classifying every operand at every call.
def _letter(a, n, k, shape) -> str | None:
    if a.size == n and a.flags.c_contiguous:
        return "a"
    if a.size == 1:
        return "s"
    if a.ndim and a.shape[-1] == k and a.size == k and a.strides[-1] == a.itemsize:
        return "r"  # a row the op broadcasts over the leading dims (its shape checked at capture)
    if a.size and a.flags.c_contiguous and n % a.size == 0 and _block(a.shape, shape):
        return "b"  # a block of trailing dims repeated over the leading ones (a causal mask)
    return None


def _block(s, shape) -> bool:
    # s without its leading 1s is a suffix of shape: the block repeats every s.size elements
    i = 0
    while i < len(s) and s[i] == 1:
        i += 1
    t = s[i:]
    return 0 < len(t) <= len(shape) and tuple(shape[len(shape) - len(t) :]) == tuple(t)


def plan(graph, env, extra_reads=frozenset(), fold: bool = True, consts=()) -> list:
    """The graph's steps: Nodes and Regions (Note [Fusion regions]); ``env``: the capture's
    values by slot, for dtypes and shapes; ``extra_reads``: slots read after the graph too;
    ``fold``: fold trailing reductions (Note [Fused trailing reduction]); ``consts``: slots of
    constant buffers (Note [Constant folds])."""
    user = {x for x in graph.out_leaves if x.__class__ is int}
    env = _split_addmm(graph, env, (user, set(extra_reads)))
    reads: dict = {}
    for n in graph.nodes:
        for s in n.inputs():
            reads.setdefault(s, []).append(n.index)
    outs = {x for x in graph.out_leaves if x.__class__ is int} | set(extra_reads)
    specs = [_spec_slots(n, env) for n in graph.nodes]
    steps, run, later = [], [], []

    def close(red=None):
        if red is not None and not run:
            steps.append(red)
            red = None
        if len(run) >= 2 or red is not None:
            members = {n.index for n, _ in run} | ({red.index} if red is not None else set())
            used = {n.outs[0] for n, _ in run if n.outs[0] in outs or any(i not in members for i in reads.get(n.outs[0], ()))}
            if used or red is not None:
                r = Region([n for n, _ in run], [s for _, s in run], used, red)
                r.plan_pattern(env)
                steps.append(r)
        else:
            steps.extend(n for n, _ in run)
        steps.extend(later)
        run.clear()
        later.clear()

    for n, sp in zip(graph.nodes, specs, strict=True):
        head = _softmax_backward_head(n, env) if sp is None else None
        if head is not None:  # Note [Fused softmax backward]: a run starts with it
            close()
            run.append((n, head))
            continue
        if sp is None:
            if fold and run and run[0][0].op is not _SBD[0] and (_trailing_reduction(n, run, reads, outs, env) or _trailing_layer_norm(n, run, env)
                                 or _trailing_softmax(n, run, reads, outs)):  # fmt: skip
                close(n)
                continue
            if run and n.op.kind == "view":
                # Note [Fusion regions]: a view reads no data and writes none, so it may run
                # after the region (autograd's detach of a saved result sits between pointwise
                # calls), or before it when it reads nothing the region makes
                (steps if _independent(n, run, later) else later).append(n)
                continue
            close()
            steps.append(n)
            continue
        if run and run[0][1][4] != sp[4] and _independent(n, run, later):
            steps.append(n)  # Note [Fusion regions]: hoisted above the run
            continue
        if run and (run[0][1][4] != sp[4] or any(s in later_outs(later) for s in n.inputs())):
            close()
        run.append((n, sp))
    close()
    pure = all(getattr(n.op, "kind", None) in ("functional", "view") for n in graph.nodes)
    steps = [_view_step(st, env) or direct_step(st, env) or nn_step(st, env) or const_step(st, env, user, pure) or st
             for st in steps]
    steps = fold_consts(steps, env, consts, user, pure)
    return chains.collapse(fold_views(steps, outs), outs)


# Note [Plan views]
# view, _unsafe_view, t, transpose and expand-to-the-same-shape (a batched matmul's operands)
# calls in a plan run as a few NumPy attribute operations
# (shapes and dims resolved at capture) when the eager op's own fast path would run its CPU
# kernel (a plain CPU tensor, no dispatch mode or forward-AD level, no gradient to record):
# the same NumPy view wrapped by ``_view``/``_make`` as those kernels do, without the argument
# normalisation each call repeats (~3 us of a ~5 us view; a GPT-2 step's plans hold ~170).
# A view of a non-contiguous input is NumPy's no-copy reshape, which exists exactly when
# PyTorch's stride computation finds strides (where it does not, the node runs for eager's
# error). Anything else runs the node.
class ViewStep:
    __slots__ = ("node", "src", "out", "kind", "arg")

    def __init__(self, node, kind, arg):
        self.node, self.kind, self.arg = node, kind, arg
        self.src, self.out = node.direct[0][1], node.outs[0]

    def run(self, env) -> None:
        x = env[self.src]
        if ((x.__class__ is not Tensor and x.__class__ not in PLAIN_SUBCLASSES) or x._device is not CPU
                or STATE.td_modes or STATE.fw_level >= 0 or (x._rg and STATE.grad_enabled)):  # fmt: skip
            return self.node.run(env)  # a Parameter's view (a weight's t) is a plain Tensor's
        a, kind = x._data, self.kind
        if kind == "t":
            env[self.out] = _view(x, a.T)
        elif kind == "transpose":
            env[self.out] = _view(x, a.swapaxes(*self.arg))
        elif kind == "expand":
            if a.shape != self.arg:
                return self.node.run(env)
            env[self.out] = _view(x, a.view())  # to its own shape: every stride is kept
        elif not _plain_contiguous(a):
            if kind != "view":
                return self.node.run(env)
            try:  # a strided view PyTorch's stride computation allows (heads split off a q/k/v slice)
                env[self.out] = _view(x, a.reshape(self.arg, copy=False))
            except ValueError:  # not expressible as a view: eager's error
                self.node.run(env)
        elif kind == "view":
            env[self.out] = _view(x, a.reshape(self.arg))
        else:
            env[self.out] = _make(a.reshape(self.arg), x._dtype)


_VIEWS = {"view.default": "view", "_unsafe_view.default": "unsafe", "t.default": "t", "transpose.int": "transpose",
          "expand.default": "expand"}  # fmt: skip


def _view_step(st, env):
    kind = _VIEWS.get(getattr(getattr(st, "op", None), "__name__", None))
    if kind is None or st.op.namespace != "aten" or len(st.direct) != 1 or st.direct[0][0] != 0 or st.lists:
        return None
    x, y = env[st.direct[0][1]], env[st.outs[0]]
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        return None
    if kind == "expand" and (tuple(st.template[1]) != x._data.shape or y._data.shape != x._data.shape):
        return None
    if kind == "transpose":
        nd = x._data.ndim
        if nd == 0:
            return None
        return ViewStep(st, kind, tuple(d % nd for d in st.template[1:3]))
    return ViewStep(st, kind, y._data.shape)


_REDUCTIONS = {"sum.dim_IntList": 3, "mean.dim": 3, "amax.default": None}


def _trailing_reduction(n, run, reads, outs, env) -> bool:
    """Whether ``n`` folds the run's last value over its last dimension, which nothing else reads
    (Note [Fused trailing reduction])."""
    dt_idx = _REDUCTIONS.get(n.op.__name__, False)
    if dt_idx is False or n.op.namespace != "aten" or len(n.direct) != 1 or n.lists:
        return False
    last = run[-1][0].outs[0]
    if n.direct[0] != (0, last) or last in outs or reads.get(last) != [n.index]:
        return False
    shape, result = run[-1][1][4], run[-1][1][3]
    dims = n.template[1]
    if not shape or shape[-1] == 0 or result not in ("float32", "float64"):
        return False
    if dt_idx is not None and n.template[dt_idx] is not None:
        return False
    return list(dims or ()) in ([-1], [len(shape) - 1]) and all(sp[4] == shape for _, sp in run)


_SOFTMAX = ("_softmax.default", "_log_softmax.default")
_SBD = [ops.aten._softmax_backward_data.default]


# Note [Fused softmax backward]
# _softmax_backward_data over the last dimension (grad_output, output y: gy = grad_output * y,
# then gy - y * gy.sum(-1, keepdim=True)) is eager NumPy, three passes and two temporaries. It
# heads a region: per row, ``sb`` / ``psb`` write gy to a row of scratch, sum it as NumPy does
# (kernels/cpu/reduction/pairwise.py, Note [NumPy pairwise sum]) and compute ``gy - y * s`` as
# the region's first value, which the pointwise calls after it (attention's masked_fill and
# scale) read in the same loop. That is eager's NumPy at or above the parallel threshold; below
# it eager runs its own row kernel (Note [Softmax over short rows]), so the region does too and
# ``sbx`` runs the calls after it over that kernel's result. Either way results are eager's bits.
def _softmax_backward_head(n, env):
    """The head spec of ``n`` when it is a fusable softmax backward, else None."""
    if n.op is not _SBD[0] or n.lists or len(n.direct) != 2:
        return None
    d = dict(n.direct)
    go, y, r = env[d.get(0)] if 0 in d else None, env[d.get(1)] if 1 in d else None, env[n.outs[0]]
    if not all(isinstance(t, Tensor) and t.__class__ is Tensor and t._device is CPU for t in (go, y, r)):
        return None
    dt, shape = y._dtype, y._data.shape
    if dt.name not in ("float32", "float64") or go._dtype is not dt or r._dtype is not dt or n.template[3] is not dt:
        return None
    if not shape or not shape[-1] or go._data.shape != shape or r._data.shape != shape:
        return None
    if n.template[2] not in (-1, len(shape) - 1):
        return None
    return ["gy", "y", "s"], "gy - y * s", [(("gy",), None), (d[1], None), (("rs",), None)], dt.name, shape


def _trailing_softmax(n, run, reads, outs) -> bool:
    """Whether ``n`` is (log_)softmax over the last dimension of the run's last value, which
    nothing else reads (Note [Fused trailing softmax])."""
    if n.op.__name__ not in _SOFTMAX or n.op.namespace != "aten" or n.direct != [(0, run[-1][0].outs[0])]:
        return False
    last, shape, result = run[-1][0].outs[0], run[-1][1][4], run[-1][1][3]
    if last in outs or reads.get(last) != [n.index] or n.template[2] or result not in ("float32", "float64"):
        return False
    if not shape or not shape[-1] or any(sp[4] != shape for _, sp in run):
        return False
    return n.template[1] in (-1, len(shape) - 1)


def _trailing_layer_norm(n, run, env) -> bool:
    """Whether ``n`` is native_layer_norm over the last dimension of the run's last value, with
    weight and bias of its dtype (Note [Fused layer_norm prologue])."""
    if n.op is not ops.aten.native_layer_norm.default or n.lists:
        return False
    last, shape, result = run[-1][0].outs[0], run[-1][1][4], run[-1][1][3]
    if dict(n.direct).get(0) != last or result not in ("float32", "float64") or not shape or not shape[-1]:
        return False
    if list(n.template[1] or ()) != [shape[-1]] or any(sp[4] != shape for _, sp in run):
        return False
    for i, s in n.direct:
        t = env[s]
        if i in (2, 3) and (t is None or t._dtype.name != result or t._data.shape != (shape[-1],)
                            or t._device.type != "cpu"):  # fmt: skip
            return False
    return True


def _independent(n, run, later) -> bool:
    """Whether ``n`` reads nothing the run or its deferred views make, so that it may run first."""
    made = {m.outs[0] for m, _ in run} | later_outs(later)
    return not any(s in made for s in n.inputs())


def later_outs(nodes) -> set:
    return {s for n in nodes for s in n.outs}


def _spec_slots(node, env):
    """_decl with tensor operands named by their slots."""
    sp = _decl(node, env)
    if sp is None:
        return None
    names, expr, ops, result, shape = sp
    slot_of = {id(env[s]): s for _, s in node.direct}
    ops = [(x if x.__class__ is tuple else slot_of[id(x)], c) for x, c in ops]
    return names, expr, ops, result, shape


# Note [addmm epilogue]
# ``addmm(bias, m1, m2)`` with beta = alpha = 1 (nn.Linear) whose result only pointwise calls
# read is rewritten to ``mm(m1, m2)`` then ``add.Tensor(mm, bias)``: the bias add then joins the
# pointwise region that follows (bias + GELU, bias + residual) instead of taking a pass of its
# own over the product. Eager addmm adds the broadcast bias to the BLAS product in the same
# dtype, and add.Tensor with alpha = 1 computes the same sum, so results agree bitwise. A linear
# layer on a 3-D input is addmm then one view back to 3-D: when that view is the product's only
# reader, nothing outside the graph sees it, and its readers are pointwise calls, the view moves
# onto the mm result and the bias add writes the view's slot. The graph is rewritten in place
# (new slots for the product and its view), so its eager replay runs the same calls.
def _split_addmm(graph, env: list, keep) -> list:
    readers: dict = {}
    for n in graph.nodes:
        for s in n.inputs():
            readers.setdefault(s, []).append(n)
    nodes, env, moved = [], list(env), {}
    for n in graph.nodes:
        if n.index in moved:
            nodes += moved.pop(n.index)
            continue
        view = _addmm_view(n, readers, env, keep)
        if view is None and not _addmm_split(n, readers.get(n.outs[0], ()), env):
            nodes.append(n)
            continue
        slots = dict(n.direct)
        mid = _new_slot(graph, env, env[n.outs[0]])
        nodes.append(Node(ops.aten.mm.default, [None, None], [(0, slots[1]), (1, slots[2])], [], [mid], True, 0))
        if view is None:
            nodes.append(Node(ops.aten.add.Tensor, [None, None, 1], [(0, mid), (1, slots[0])], [], [n.outs[0]], True, 0))
            continue
        vout = view.outs[0]
        vmid = _new_slot(graph, env, env[vout])
        moved[view.index] = [
            Node(view.op, view.template, [(0, mid)], [], [vmid], True, 0),
            Node(ops.aten.add.Tensor, [None, None, 1], [(0, vmid), (1, slots[0])], [], [vout], True, 0),
        ]
    for i, n in enumerate(nodes):
        n.index = i
    graph.nodes = nodes
    return env


def _addmm_split(n, rs, env) -> bool:
    out = n.outs[0]
    return (n.op is ops.aten.addmm.default and n.template[3] == 1 and n.template[4] == 1 and bool(rs)
            and not n.lists and all(_functional_pointwise(r) is not None for r in rs) and env[out] is not None
            and env[out]._dtype.name in ("float32", "float64"))  # fmt: skip


def _addmm_view(n, readers, env, keep):
    """The view node that is the only reader of addmm ``n`` (Note [addmm epilogue]), or None."""
    rs = readers.get(n.outs[0], ())
    if len(rs) != 1 or n.outs[0] in keep[0] or n.outs[0] in keep[1]:
        return None
    v = rs[0]
    if getattr(v.op, "__name__", None) not in ("view.default", "_unsafe_view.default") or v.direct != [(0, n.outs[0])]:
        return None
    if v.outs[0] in keep[0] or v.lists or env[v.outs[0]] is None:
        return None
    return v if _addmm_split(n, readers.get(v.outs[0], ()), env) else None


def _new_slot(graph, env: list, like) -> int:
    s = graph.n_slots
    graph.n_slots += 1
    env.append(_make(np.empty(like._data.shape, like._dtype.np), like._dtype))
    return s


def _functional_pointwise(node):
    decl = getattr(node.op, "pointwise", None)
    return decl if decl is not None and decl.kind == "functional" else None
