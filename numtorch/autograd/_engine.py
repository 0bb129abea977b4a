"""The Autograd dispatch key (recording) and the graph nodes of registered ops; the backward
pass is in _backward.

# Note [Recording at the Autograd key]
# autograd_call runs the op below the Autograd key with grad mode off, then, if any input
# requires grad, creates one node holding the op's derivative formulas, the saved values its
# formulas name (Note [Saved tensors are inferred from backward's parameters]) and one edge per
# tensor argument. In-place ops save a copy of the values they overwrite and re-point the
# mutated tensor's history at the new node.
"""

from __future__ import annotations

import weakref

import numpy as np

from .._C import ALL_DISABLED, TF_STATE
from .._device import CPU
from .._dispatch import below_autograd
from .._state import ANOMALY, SAVED_HOOKS, STATE
from .._tensor import Tensor, _make
from ..ops._registry import OUT_NOT_DIFFERENTIABLE, SIZES, Derivative, saved_index, saved_plan, saved_property  # noqa: E402,F401
from .._size import Size
from ._apply_gen import _formula_plan, gen_apply
from .graph import (_FREED, GONE, AccumulateGrad, Node, SavedTensor, grad_accumulator,
                    gradient_edge, pack)  # fmt: skip


class OpNode(Node):
    """A node for a registered op; one subclass per op gives PyTorch's names (AddBackward0)."""

    __slots__ = ("_deriv", "_saved", "_slots", "_out_meta")
    _nout = 1  # set per node only for multi-output ops

    def apply(self, *grads):
        # Note [Derivative formulas are below the Python API]: PyTorch's formulas are C++, so
        # a mode active during backward, or a __torch_function__ subclass among the saved
        # values, never sees the ops a formula is written with.
        gen = self._deriv.__dict__.get("_gen")  # Note [Generated node apply], without _apply's frame
        saved = self._saved
        if gen is None or gen[0] is not self._slots or saved is None:
            gen = _VIA_APPLY
        else:
            for g in grads:
                if g is None:  # _apply fills it with zeros first
                    gen = _VIA_APPLY
                    break
        tf = TF_STATE[0]
        if tf == ALL_DISABLED:
            return gen[1](self, saved, grads)
        TF_STATE[0] = ALL_DISABLED
        try:
            return gen[1](self, saved, grads)
        finally:
            TF_STATE[0] = tf

    def _apply(self, grads):
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        missing = False
        for g in grads:
            if g is None:
                if self._deriv.undefined_grads:  # the formulas take None (the generated apply cannot)
                    missing = True
                else:
                    grads = [g if g is not None else _zeros(m) for g, m in zip(grads, self._out_meta)]
                break
        gen = self._deriv.__dict__.get("_gen")  # Note [Generated node apply]
        if gen is not None and gen[0] is self._slots and not missing:
            return gen[1](self, saved, grads)
        nf = self.next_functions
        slots = self._slots
        result = [None] * len(nf)
        for key, fn, params, joint in _formula_plan(self._deriv):
            if joint:
                targets = [slots[k] for k in key]
                if not _any_needed(self, targets):
                    continue
            else:
                targets = slots[key]
                if targets.__class__ is int:
                    if nf[targets][0] is None:
                        continue
                elif not _any_needed(self, targets):
                    continue
            args = []
            for p in params:
                if p == "grad":
                    args.append(grads[0])
                elif p == "grads":
                    args.append(tuple(grads))
                elif p == "grad_input_mask":  # Note [Joint formulas' grad_input_mask]
                    args.append([_any_needed(self, slots[k]) for k in key] if joint else [True])
                else:
                    v = saved[p]
                    c = v.__class__
                    if v is GONE:
                        raise RuntimeError(_FREED)
                    if c is SavedTensor:
                        v = v.unpack(self)
                    elif c is list or c is tuple:
                        v = _unpack(v, self)
                    args.append(v)
            out = fn(*args)
            if joint:
                for k, g in zip(key, out):
                    _store(result, slots[k], g)
            elif targets.__class__ is int:
                result[targets] = out
            else:
                _store(result, targets, out)
        return tuple(result)

    def _release(self) -> None:
        # Note [Only saved tensors are freed]. The node's own dict is written in place (only its
        # tensor entries change) and a sequence is scanned inline: a saved size tuple cost ~1 us
        # in saved_tensorish's generator, and every node saves one per reduction or broadcast.
        s = self._saved
        if s:
            ts = self._slots
            for k, v in s.items():
                c = v.__class__
                if c is SavedTensor or k in ts or k == "result":
                    s[k] = GONE
                elif c in _KEPT:
                    continue
                elif c is tuple or c is list or isinstance(v, (list, tuple)):
                    for x in v:
                        if x.__class__ is SavedTensor:
                            s[k] = GONE
                            break


# values _release keeps without a look inside (GONE: a node released before)
_KEPT = frozenset((int, float, bool, type(None), Size, str, object))


_VIA_APPLY = (None, lambda node, saved, grads: node._apply(grads))


def _sum_below_tf(a, b):
    # the engine's own sums are C++ in PyTorch (Note [Derivative formulas are below the Python API])
    tf = TF_STATE[0]
    TF_STATE[0] = ALL_DISABLED
    try:
        return a + b
    finally:
        TF_STATE[0] = tf


def _zeros(meta) -> Tensor:
    if meta is None:  # an output that is None (an undefined tensor, e.g. a masked backward output)
        return None
    shape, dtype, _device = meta
    return _make(np.zeros(shape, dtype.np), dtype)


def _tensor_list(v) -> bool:
    """A list or tuple of tensors to save one by one, a Tensor?[] (index_put's indices) holding
    None beside them included; the first element decides for every other list (sizes, dims)
    without a scan."""
    return (
        isinstance(v, (list, tuple))
        and len(v) > 0
        and (isinstance(v[0], Tensor) or v[0] is None and any(isinstance(t, Tensor) for t in v))
    )


def _unpack(v, node):
    if isinstance(v, SavedTensor):
        return v.unpack(node)
    if isinstance(v, list) and v and (  # None in a Tensor?[]: as _save_inputs
        isinstance(v[0], SavedTensor) or v[0] is None and any(isinstance(s, SavedTensor) for s in v)
    ):
        return [s.unpack(node) if isinstance(s, SavedTensor) else s for s in v]
    if isinstance(v, tuple) and any(isinstance(s, SavedTensor) for s in v):  # ``results``
        return tuple(s.unpack(node) if isinstance(s, SavedTensor) else s for s in v)
    return v


# Note [Joint formulas' grad_input_mask]
# A joint formula (one key naming several inputs) runs when any of its inputs needs a gradient;
# one that names ``grad_input_mask``, as derivatives.yaml's convolution formula does, gets one
# bool per name of its key (that input's edge is defined) and computes only those gradients,
# so ConvolutionBackward0 of a first layer makes no grad_input (its GEMM and col2im).
def _any_needed(node, t) -> bool:
    nf = node.next_functions
    if isinstance(t, int):
        return nf[t][0] is not None
    if isinstance(t, range):
        return any(nf[i][0] is not None for i in t)
    return any(_any_needed(node, x) for x in t)


def _store(result, slot, g) -> None:
    if slot is None:
        return
    if isinstance(slot, range):
        for i, gi in zip(slot, g):
            result[i] = gi
    else:
        result[slot] = g


_NODE_CLASSES: dict = {}


def _node_class(deriv):
    cls = _NODE_CLASSES.get(id(deriv))
    if cls is None:
        cls = _NODE_CLASSES[id(deriv)] = type(deriv.node_name, (OpNode,), {"__slots__": ()})
    return cls


def _forward_ad_call(op, vals):
    from . import forward_ad

    if forward_ad.has_tangent(op, vals):
        return forward_ad.jvp_call(op, vals, _record_reverse)
    return _record_reverse(op, vals)


def _record_reverse(op, vals):
    return _record(op, vals, False)


class _Plan:
    """What recording an op without tensor-list arguments needs, computed once per op."""

    __slots__ = ("deriv", "tidx", "slots", "saves", "props", "node_cls", "inplace", "generic")


def _plan(op):
    deriv = op.autograd
    args = op._schema.arguments
    p = _Plan()
    p.deriv = deriv  # a formula registered later (numtorch.library) invalidates the plan
    p.generic = bool(op.list_idx)
    p.tidx = tuple(i for i, a in enumerate(args) if a.is_tensor)
    p.slots = {args[i].name: k for k, i in enumerate(p.tidx)}
    gen = deriv.__dict__.get("_gen")
    if gen is not None and gen[0] == p.slots:
        # a plan made again (a regenerated fast path, record_output) keeps the slots object the
        # node class's generated apply tests for (Note [Generated node apply])
        p.slots = gen[0]
    p.inplace = op.kind == "inplace"
    p.saves, p.props = saved_plan(args, deriv, op.self_idx if p.inplace else -1)
    p.node_cls = _node_class(deriv)
    if not p.generic:
        fn = gen_apply(deriv, p.slots, _formula_plan(deriv))
        if fn is not None:
            deriv.__dict__["_gen"] = (p.slots, fn)  # holds the dict: its identity stays unique
            if "apply" not in p.node_cls.__dict__:  # Note [Generated node apply]: the method too
                env = {"_OP_APPLY": OpNode.apply, "_TF": TF_STATE, "_ALL": ALL_DISABLED}
                p.node_cls.apply = gen_apply(deriv, p.slots, _formula_plan(deriv), env)
    op.__dict__["_ag_plan"] = p
    return p


_NO_EDGE = (None, 0)
# non-tensor values the dispatcher's fast path also lets through
_PLAIN_NON_TENSOR = frozenset((int, float, bool, complex, type(None)))
_new = object.__new__
_weakref = weakref.ref


def _record(op, vals, fw=True):
    """The Autograd key (``autograd_call``): forward-AD tangents if a level is active, then the
    reverse-mode node."""
    deriv = op.autograd
    st = STATE
    if deriv.__class__ is not Derivative and deriv is not OUT_NOT_DIFFERENTIABLE:
        return deriv.call(op, vals)  # Note [Custom-op autograd kernel]
    if fw and st.fw_level >= 0 and deriv is not OUT_NOT_DIFFERENTIABLE:
        return _forward_ad_call(op, vals)
    if deriv is OUT_NOT_DIFFERENTIABLE or not st.grad_enabled:
        return _record_generic(op, vals)
    plan = op.__dict__.get("_ag_plan")
    if plan is None or plan.deriv is not deriv:
        plan = _plan(op)
    if plan.generic or plan.inplace:
        return _record_generic(op, vals)
    edges, metas, live, plain = [], [], False, True
    for i in plan.tidx:
        v = vals[i]
        if v.__class__ is Tensor:
            if v._device is not CPU:
                plain = False
        elif v.__class__ not in _PLAIN_NON_TENSOR:
            plain = False
        if isinstance(v, Tensor):
            fn = v._grad_fn
            if fn is not None:
                edges.append((fn, v._out_nr))
                live = True
            elif v._rg:
                ref = v.__dict__.get("_acc_ref")  # grad_accumulator, inlined
                acc = ref() if ref is not None else None
                edges.append((acc if acc is not None else grad_accumulator(v), 0))
                live = True
            else:
                edges.append(_NO_EDGE)
            metas.append((v._data.shape, v._dtype, v._device))
        else:
            edges.append(_NO_EDGE)
            metas.append(None)
    if not live:
        st.grad_enabled = False
        try:
            return below_autograd(op, vals)
        finally:
            st.grad_enabled = True
    saved = {}
    for name, idx, tname, _ in plan.saves:
        v = vals[idx]
        c = v.__class__
        if c in _PLAIN_NON_TENSOR:
            saved[name] = v
        elif c is Tensor or isinstance(v, Tensor):
            sv = _new(SavedTensor)
            sv.tensor, sv.version, sv.is_output, sv.tname = v, v._vc[0], False, tname
            if st.anomaly & SAVED_HOOKS:
                pack(sv, v)
            saved[name] = sv
        elif _tensor_list(v):
            saved[name] = [SavedTensor(t) if isinstance(t, Tensor) else t for t in v]
        else:
            saved[name] = list(v) if isinstance(v, list) else v
    for name, idx in plan.props:
        saved[name] = saved_property(vals[idx], name)
    impl = op.impls.get("cpu") if plain and not st.td_modes else None
    st.grad_enabled = False
    try:
        # plain CPU tensors and no dispatch mode: nothing between here and the kernel
        out = impl(*vals) if impl is not None else below_autograd(op, vals)
    finally:
        st.grad_enabled = True
    cls = plan.node_cls
    node = _new(cls)
    node.next_functions = tuple(edges)
    node._input_meta = tuple(metas)
    node._deriv = deriv
    node._slots = plan.slots
    node._saved = saved
    if st.anomaly & ANOMALY:
        import traceback

        node._trace = "".join(traceback.format_stack()[:-3])
    if out.__class__ is Tensor:  # the common case: one plain output
        node._out_meta = ((out._data.shape, out._dtype, out._device),)
        if out._dtype.category >= 2:
            for i in plan.tidx:
                if vals[i] is out:  # an input returned as is: a new tensor with this history
                    out = _make(out._data, out._dtype, Tensor, out._device, vc=out._vc)
                    break
            out._grad_fn = node
            out._rg = True
        if deriv.saves_result:
            saved["result"] = SavedTensor(out, node, 0)
        return out
    return _finish_outputs(op, vals, deriv, node, out, saved, False)


# Note [Generated recording]
# With grad mode on, no dispatch mode, forward-AD level or anomaly mode, and every tensor argument
# a plain CPU tensor (or a number / None), _record's work is fixed per op: which arguments give
# edges, which are saved and how, the node class. recorder_lines() writes that work out as
# straight-line code with one block per argument; op.fast inlines it (Note [Per-op fast path])
# and view fast paths call record_output() (Note [Reshape fast path]) with the view they built.
# Both make the node _record makes; multi-output ops go to _finish_outputs as there.
def recordable(op) -> bool:
    """Whether op's recording can be generated (no tensor lists, not in-place, differentiable)."""
    d = op.autograd
    return d.__class__ is Derivative and not op.list_idx and op.kind in (
        "functional",
        "view",
    )


def recorder_lines(op, args, first: int, ns: dict) -> list:
    """Lines recording ``op`` around ``_o``: the caller's lines up to ``{FORWARD}`` compute it.
    ``args`` name the schema arguments; only ``args[first]`` is known to be a Tensor."""
    deriv = op.autograd
    plan = _plan(op)
    ns.update({"_new": _new, "_ST": SavedTensor, "_NO": _NO_EDGE, "_AG": AccumulateGrad, "_wr": _weakref,
               "_D": deriv, "_NC": plan.node_cls, "_SL": plan.slots, "_fin": _finish_outputs,
               "_make": _make, "_SvT": SavedTensor, "_sval": _save_value, "_PNT": _PLAIN_NON_TENSOR,
               "_CPU": CPU, "_T": Tensor})  # fmt: skip
    L = []
    for i in plan.tidx:
        x, e, m = args[i], f"_e{i}", f"_m{i}"
        body = [
            f"_f = {x}._grad_fn",
            "if _f is not None:",
            f"    {e} = (_f, {x}._out_nr)",
            f"elif {x}._rg:",  # grad_accumulator, inlined
            f"    _d = {x}.__dict__",
            "    _a = _d.get('_acc_ref')",
            "    _a = _a() if _a is not None else None",
            "    if _a is None:",
            "        _a = _new(_AG)",
            "        _a.next_functions = ()",
            f"        _a.variable = {x}",
            "        _d['_acc_ref'] = _wr(_a)",
            f"    {e} = (_a, 0)",
            "else:",
            f"    {e} = _NO",
            f"{m} = ({x}._data.shape, {x}._dtype, _CPU)",
        ]
        if i != first:  # a number or None there has no edge
            L.append(f"if {x}.__class__ is _T or {x}.__class__ not in _NT:")
            body = ["    " + b for b in body] + ["else:", f"    {e} = _NO", f"    {m} = None"]
        L += body
    entries = []
    for name, idx, tname, _ in plan.saves:
        x, s = args[idx], f"_s{idx}"
        ns[f"_tn{idx}"] = tname
        if idx in plan.tidx:
            body = [f"{s} = _new(_ST)", f"{s}.tensor = {x}", f"{s}.version = {x}._vc[0]",
                    f"{s}.is_output = False", f"{s}.tname = _tn{idx}"]  # fmt: skip
            if idx != first:
                L.append(f"if {x}.__class__ is _T or {x}.__class__ not in _NT:")
                body = ["    " + b for b in body] + ["else:", f"    {s} = {x}"]
            L += body
        else:
            L.append(f"{s} = {x} if {x}.__class__ in _PNT else _sval({x}, _tn{idx})")
        entries.append(f"{name!r}: {s}")
    # the shape tuple, not Tensor.shape's Size (~0.15 us): formulas read it as a sequence, and
    # grad_fn._saved_*_sizes gives a tuple either way
    entries += [f"{name!r}: {args[idx]}._data.shape" if name.endswith(SIZES)
                else f"{name!r}: ({args[idx]}._dtype, {args[idx]}._device)" for name, idx in plan.props]
    L.append(f"_sv = {{{', '.join(entries)}}}")
    L.append("{FORWARD}")
    tens = [args[i] for i in plan.tidx]
    L += [
        "_n = _new(_NC)",
        f"_n.next_functions = ({''.join(f'_e{i}, ' for i in plan.tidx)})",
        f"_n._input_meta = ({''.join(f'_m{i}, ' for i in plan.tidx)})",
        "_n._deriv = _D",
        "_n._slots = _SL",
        "_n._saved = _sv",
        "if _o.__class__ is not _T:",
        *_tuple_lines(op, deriv, tens),
        f"    return _fin(_op, [{', '.join(args)}], _D, _n, _o, _sv, False)",
        "_n._out_meta = ((_o._data.shape, _o._dtype, _o._device),)",
        "if _o._dtype.category >= 2:",
        f"    if {' or '.join(f'_o is {x}' for x in tens)}:",
        "        _o = _make(_o._data, _o._dtype, _T, _o._device, vc=_o._vc)",
        "    _o._grad_fn = _n",
        "    _o._rg = True",
    ]
    if deriv.saves_result:  # SavedTensor(_o, _n, 0), inlined
        L += ["_r = _new(_ST)", "_r.tensor = (_o._data, _o._dtype, _o._device, _o._vc)",
              "_r.version = _o._vc[0]", "_r.is_output = True", "_r.tname = ''", "_r.out_nr = 0",
              "_r.rg = _o._rg", "_sv['result'] = _r"]  # fmt: skip
    L.append("return _o")
    return L


def _tuple_lines(op, deriv, tens) -> list:
    # _finish_outputs for a plain tuple of plain tensors, written out per output (layer_norm's
    # three, nll_loss's two): what it does, in its order (grad_fn on every differentiable
    # output first, then the saved results, which read it)
    rets = op._schema.returns
    k = len(rets)
    names = deriv.result_names
    if k < 2 or any(r.type != "Tensor" for r in rets) or "result" in names or "results" in names:
        return []
    outs = [f"_o{i}" for i in range(k)]
    test = " and ".join(f"{o}.__class__ is _T" for o in outs)
    L = [f"if _o.__class__ is tuple and len(_o) == {k}:", f"    {', '.join(outs)}, = _o", f"    if {test}:",
         f"        _n._nout = {k}",
         f"        _n._out_meta = [{', '.join(f'({o}._data.shape, {o}._dtype, {o}._device)' for o in outs)}]"]  # fmt: skip
    diff = deriv.out_diff
    for i, o in enumerate(outs):
        if diff is not None and not diff[i]:
            continue
        L += [f"        if {o}._dtype.category >= 2:",
              f"            if {' or '.join(f'{o} is {x}' for x in tens)}:",
              f"                {o} = _make({o}._data, {o}._dtype, _T, {o}._device, vc={o}._vc)",
              f"            {o}._grad_fn = _n", f"            {o}._rg = True"]  # fmt: skip
        if i:
            L.append(f"            {o}._out_nr = {i}")
    for n in sorted(names):
        i = int(n[6:])
        L.append(f"        _sv[{n!r}] = _SvT({outs[i]}, _n, {i})")
    L.append(f"        return ({', '.join(outs)},)")
    return ["    " + x for x in L]


def record_output(op):
    """``rec(out, *vals)``: record ``op`` for ``out``, a result the caller computed itself from
    ``vals`` (plain CPU tensors, grad mode on, no mode, no forward AD, no anomaly mode)."""
    rec = op.__dict__.get("_rec_out")
    if rec is None or rec.deriv is not op.autograd:
        args = [f"x{i}" for i in range(op.nargs)]
        ns = {"_op": op, "_NT": frozenset(_PLAIN_NON_TENSOR)}
        first = op.tensor_idx[0]
        lines = recorder_lines(op, args, first, ns)
        lines.remove("{FORWARD}")
        src = f"def rec(_o, {', '.join(args)}):\n" + "".join(f"    {x}\n" for x in lines)
        exec(compile(src, f"<numtorch record {op}>", "exec"), ns)
        rec = ns["rec"]
        rec.deriv = op.autograd
        op.__dict__["_rec_out"] = rec
    return rec


def _save_value(v, tname):
    # a non-tensor schema argument: as _record saves it
    if isinstance(v, Tensor):  # rare (a tensor where the schema has a number): the constructor packs
        return SavedTensor(v, tname=tname)
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], Tensor):
        return [SavedTensor(t) for t in v]
    return list(v) if isinstance(v, list) else v


def _finish_outputs(op, vals, deriv, node, out, saved, inplace, view_base_edge=None):
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != 1:
        node._nout = len(outs)
    metas, results = [], []
    diff = deriv.out_diff if deriv.__class__ is Derivative else None
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor):
            metas.append(None)
            results.append(o)
            continue
        metas.append((o._data.shape, o._dtype, o._device))
        if o._dtype.category >= 2 and (diff is None or diff[k]):
            if not inplace:
                for v in vals:
                    if o is v:  # an input returned as is: a new tensor with this history
                        o = _make(o._data, o._dtype, Tensor, o._device, vc=o._vc)
                        break
            o._grad_fn = node
            o._rg = True
            if k:
                o._out_nr = k
        results.append(o)
    node._out_meta = metas
    if inplace and vals[op.self_idx]._base is not None:
        from ._copy_slices import rebase

        slot = node._slots[op._schema.arguments[op.self_idx].name]
        rebase(node, vals[op.self_idx], view_base_edge, slot)
    if deriv.saves_result:
        _save_results(deriv, node, saved, results)
    if isinstance(out, tuple):
        return type(out)(*results) if hasattr(out, "_fields") else tuple(results)
    return results[0]


def _save_results(deriv, node, saved, results) -> None:
    names = deriv.__dict__.get("_numbered")  # (name, output index) of result0, result1, ...
    if names is None:
        names = deriv._numbered = tuple((n, int(n[6:])) for n in deriv.result_names if n[6:].isdigit())
    if "result" in deriv.result_names or len(results) == 1:
        saved["result"] = SavedTensor(results[0], node, 0)
    for n, k in names:
        o = results[k]
        saved[n] = SavedTensor(o, node, k) if isinstance(o, Tensor) else o
    if len(results) > 1 and "results" in deriv.result_names:
        saved["results"] = tuple(
            SavedTensor(o, node, k) if isinstance(o, Tensor) else o for k, o in enumerate(results)
        )


def _record_generic(op, vals):
    """Any op (tensor-list arguments included): slots are computed per call."""
    deriv = op.autograd
    st = STATE
    if deriv is OUT_NOT_DIFFERENTIABLE:
        if st.grad_enabled:
            raise RuntimeError(
                f"{op._schema.name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        return below_autograd(op, vals)
    if not st.grad_enabled:
        return below_autograd(op, vals)
    args = op._schema.arguments
    edges, metas, slots = [], [], {}
    for i, a in enumerate(args):
        v = vals[i]
        if a.is_tensor:
            slots[a.name] = len(edges)
            if isinstance(v, Tensor):
                edges.append(gradient_edge(v) or (None, 0))
                metas.append((v._data.shape, v._dtype, v._device))
            else:
                edges.append((None, 0))
                metas.append(None)
        elif a.is_tensor_list:
            start = len(edges)
            for t in v:
                edges.append(gradient_edge(t) if isinstance(t, Tensor) else None or (None, 0))
                metas.append((t._data.shape, t._dtype, t._device) if isinstance(t, Tensor) else None)
            slots[a.name] = range(start, len(edges))
    edges = [e if e is not None else (None, 0) for e in edges]
    inplace = op.kind == "inplace"
    if inplace:
        target = vals[op.self_idx]
        if target._grad_fn is None and target._rg:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        base = target._base
        if base is not None and target._rg and base._grad_fn is None and base._rg:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
            )
    view_base_edge = None
    if inplace and target._base is not None:
        from ._copy_slices import base_edge

        msg = target.__dict__.get("_fn_view_msg")
        if msg is not None and (target._rg or any(e[0] is not None for e in edges)):
            raise RuntimeError(msg)

        view_base_edge = base_edge(target)
        if view_base_edge is not None and edges[slots[args[op.self_idx].name]][0] is None:
            edges[slots[args[op.self_idx].name]] = view_base_edge
    saved = _save_inputs(op, deriv, vals, inplace)
    st.grad_enabled = False
    try:
        out = below_autograd(op, vals)
    finally:
        st.grad_enabled = True
    if all(e[0] is None for e in edges):
        return out
    node = _node_class(deriv)(edges, metas)
    node._deriv = deriv
    node._slots = slots
    node._saved = saved
    if st.anomaly & ANOMALY:
        import traceback

        node._trace = "".join(traceback.format_stack()[:-3])
    return _finish_outputs(op, vals, deriv, node, out, saved, inplace, view_base_edge)


def _save_inputs(op, deriv, vals, inplace):
    saved = {}
    names = op._schema.arguments
    for name in deriv.saved:
        idx = saved_index(names, name)
        v = vals[idx] if names[idx].name == name else saved_property(vals[idx], name)  # Note [Saving sizes only]
        if isinstance(v, Tensor):
            if inplace and idx == op.self_idx:
                v = _make(v._data.copy(), v._dtype, Tensor, v._device)
            saved[name] = SavedTensor(v, tname=f", which is input '{name}' of {deriv.node_name}")
        elif _tensor_list(v):
            saved[name] = [SavedTensor(t) if isinstance(t, Tensor) else t for t in v]
        else:
            saved[name] = list(v) if isinstance(v, list) else v
    return saved


autograd_call = _record  # the dispatcher's entry (one frame less than a wrapper)
