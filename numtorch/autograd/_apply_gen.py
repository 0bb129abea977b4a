"""Generated backward-node bodies (Note [Generated node apply])."""

from __future__ import annotations

from .graph import _FREED, GONE, SavedTensor

# Note [Generated node apply]
# OpNode._apply interprets its Derivative's formula plan for every node: per formula it looks
# up the target slot, tests the edge, walks the parameter names and branches on each saved
# value's kind. For the nodes _record's plan makes (no tensor-list arguments, so every slot is
# an int), that work is fixed per op: gen_apply() writes it out once as straight-line code,
# keyed on the plan's slots dict (the same object for every node of that op), and _apply calls
# it when a node's slots are that dict. Semantics are _apply's exactly: the same formulas in
# the same order, each saved value unpacked (version check, saved-tensor hooks) per use.


# The same body also comes as the node class's ``apply`` method (``method=``): OpNode.apply's
# checks (this plan's slots, saved values not freed, no missing gradient) and its torch-function
# guard written around it, so the engine's ``node.apply(*grads)`` runs one frame per node.
# A missing gradient makes _apply fill it with zeros first; when every formula reads only the
# first output's gradient (``grad``), the others are never read, so only that one is tested: a
# multi-output op whose other outputs are indices (topk, sort, max.dim) keeps the generated body.
_METHOD_HEAD = [
    "def apply(node, *grads):",
    "    saved = node._saved",
    "    if node._slots is not _SLOTS or saved is None:",
    "        return _OP_APPLY(node, *grads)",
    "{MISSING}",
    "    _tf = _TF[0]",
    "    _TF[0] = _ALL",
    "    try:",
]
_ANY_MISSING = ["    for _g in grads:", "        if _g is None:", "            return _OP_APPLY(node, *grads)"]
_FIRST_MISSING = ["    if grads[0] is None:", "        return _OP_APPLY(node, *grads)"]


def gen_apply(deriv, slots: dict, plan: tuple, method: dict | None = None):
    """A function ``(node, saved, grads) -> tuple`` equivalent to the rest of OpNode._apply for
    nodes whose ``_slots`` is ``slots``, or None when the plan has a shape only _apply handles.
    ``method``: {_OP_APPLY, _TF, _ALL} to make the node class's ``apply(node, *grads)`` instead."""
    if not all(v.__class__ is int for v in slots.values()):
        return None
    ns = {"_ST": SavedTensor, "_GONE": GONE, "_FREED": _FREED, "_unpack": _unpack_seq}
    L = [
        "def apply(node, saved, grads):",
        "    nf = node.next_functions",
        "    res = [None] * len(nf)",
    ]
    for i, (key, fn, params, joint) in enumerate(plan):
        keys = key if joint else (key,)
        if not all(k in slots for k in keys):
            return None
        ks = [slots[k] for k in keys]
        ns[f"_f{i}"] = fn
        L.append(f"    if {' or '.join(f'nf[{k}][0] is not None' for k in ks)}:")
        args = []
        for j, p in enumerate(params):
            if p == "grad":
                args.append("grads[0]")
            elif p == "grads":
                args.append("tuple(grads)")
            elif p == "grad_input_mask":  # Note [Joint formulas' grad_input_mask] (_engine.py)
                args.append(f"[{', '.join(f'nf[{k}][0] is not None' for k in ks)}]")
            else:
                v = f"_a{j}"
                L += [
                    f"        {v} = saved[{p!r}]",
                    f"        if {v}.__class__ is _ST:",
                    f"            {v} = {v}.unpack(node)",
                    f"        elif {v} is _GONE:",
                    "            raise RuntimeError(_FREED)",
                    f"        elif {v}.__class__ is list or {v}.__class__ is tuple:",
                    f"            {v} = _unpack({v}, node)",
                ]
                args.append(v)
        call = f"_f{i}({', '.join(args)})"
        raw = getattr(fn, "real_formula", None)
        if raw is not None and params[fn.grad_index] == "grad":  # holomorphic's real case, one frame less
            ns[f"_r{i}"] = raw
            g = "grads[0]"
            call = f"(_r{i} if {g} is None or not {g}._dtype.is_complex else _f{i})({', '.join(args)})"
        if joint:
            L.append(f"        for _k, _g in zip({tuple(ks)!r}, {call}):")
            L.append("            res[_k] = _g")
        else:
            L.append(f"        res[{ks[0]}] = {call}")
    L.append("    return tuple(res)")
    if method is not None:
        ns.update(method, _SLOTS=slots)
        first = all("grads" not in params for _, _, params, _ in plan)
        i = _METHOD_HEAD.index("{MISSING}")
        head = _METHOD_HEAD[:i] + (_FIRST_MISSING if first else _ANY_MISSING) + _METHOD_HEAD[i + 1:]
        L = head + ["    " + x for x in L[1:]] + ["    finally:", "        _TF[0] = _tf"]
    exec(compile("\n".join(L) + "\n", f"<numtorch apply {deriv.node_name}>", "exec"), ns)
    return ns["apply"]


def _formula_plan(deriv):
    """(key, formula, parameter names, joint) per formula, cached on the Derivative: formulas
    are called positionally (their parameters are named after what they need, in order)."""
    plan = deriv.__dict__.get("_plan")
    if plan is None:
        import inspect

        plan = []
        for key, fn in deriv.formulas.items():
            params = deriv.params[key]
            kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
            if kinds - {inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY}:
                fn = _by_keyword(fn, params)
            plan.append((key, fn, params, isinstance(key, tuple)))
        plan = deriv.__dict__["_plan"] = tuple(plan)
    return plan


def _by_keyword(fn, params):
    def call(*args):
        return fn(**dict(zip(params, args)))

    return call


def _unpack_seq(v, node):
    # a list or tuple value: as _engine._unpack. A tuple is scanned by a plain loop: nearly all
    # are saved sizes, and any()'s generator cost ~0.5 us of every reduction's backward
    if v.__class__ is list:
        if v and (  # None in a Tensor?[]
            isinstance(v[0], SavedTensor) or v[0] is None and any(isinstance(s, SavedTensor) for s in v)
        ):
            return [s.unpack(node) if isinstance(s, SavedTensor) else s for s in v]
        return v
    if isinstance(v, tuple):
        for s in v:
            if isinstance(s, SavedTensor):  # ``results``
                return tuple(s.unpack(node) if isinstance(s, SavedTensor) else s for s in v)
    return v
