"""The backward engine: dependency counting over the graph from the roots, one ready queue,
gradients summed per input edge (Note [Recording at the Autograd key] makes the graph)."""

from __future__ import annotations

import numpy as np

from .._size import Size
from .._state import ANOMALY, STATE
from .._tensor import Tensor
from . import _hooks as _tensor_hooks
from ._engine import OpNode, _sum_below_tf
from .anomaly_mode import _CHECK_NAN
from .graph import GRAPH_TASK, TASK_IDS, AccumulateGrad


def run_backward(roots, root_grads, keep_graph: bool, create_graph: bool, inputs=None, accumulate=True):
    """Propagate ``root_grads`` from the ``roots`` edges; return captured grads for ``inputs`` edges."""
    targets = {}
    if inputs is not None:
        for i, e in enumerate(inputs):
            targets.setdefault((id(e[0]), e[1]), []).append(i)
    if len(roots) == 1:  # backward()'s usual call: no set, dict or list built per root
        (root, nr), g = roots[0], root_grads[0]
        deps, needed = (_root_dependencies(root), None) if inputs is None else _dependencies((root,), inputs)
        buf = [None] * root._nout
        buf[nr] = g
        buffers = {root: buf}
        outer_task = GRAPH_TASK[0]
        GRAPH_TASK[0] = (next(TASK_IDS), {root}, deps, needed)  # Note [Graph task]
        ready = [root] if root not in deps else []
    else:
        deps, needed = _dependencies([r[0] for r in roots], inputs)
        outer_task = GRAPH_TASK[0]
        GRAPH_TASK[0] = (next(TASK_IDS), {r[0] for r in roots}, deps, needed)  # Note [Graph task]
        buffers = {}
        for (node, nr), g in zip(roots, root_grads):
            buf = buffers.setdefault(node, [None] * node._nout)
            buf[nr] = g if buf[nr] is None else _sum_below_tf(buf[nr], g)
        ready = [n for n in buffers if deps.get(n, 0) == 0]
    buf = g = None
    captured = [None] * (len(inputs) if inputs is not None else 0)
    st, acc_cls, acc_fn = STATE, AccumulateGrad, _tensor_hooks.accumulate  # locals: read per node
    pop, push, take, find = ready.pop, ready.append, buffers.pop, buffers.get
    prev = st.grad_enabled
    st.grad_enabled = create_graph
    try:
        while ready:
            node = pop()
            grads = take(node)
            if node._pre_hooks:
                grads = _tensor_hooks.run_pre_hooks(node, grads)
            if targets:
                for nr, g in enumerate(grads):
                    for i in targets.get((id(node), nr), ()):
                        captured[i] = g
            if node.__class__ is acc_cls:
                if accumulate and (inputs is None or (id(node), 0) in targets) and grads[0] is not None:
                    g = grads[0]
                    grads = None  # the buffer's reference goes: the leaf may take g's storage
                    acc_fn(node.variable, g, create_graph)
                    g = None
                continue
            if needed is not None and node not in needed:
                continue
            if node._hooks is None and not st.anomaly:  # _call_node's common case, inlined
                grad_inputs = node.apply(*grads)
                if grad_inputs.__class__ is not tuple:
                    grad_inputs = (grad_inputs,)
                metas = node._input_meta  # _validate's common case, inlined: nothing to fix
                if len(metas) == len(grad_inputs):
                    for g, m in zip(grad_inputs, metas):
                        if g is not None and m is not None and (
                            g._data.shape != m[0] or g._dtype is not m[1]
                        ):
                            grad_inputs = _validate(node, grad_inputs)
                            break
                else:
                    grad_inputs = _validate(node, grad_inputs)
            else:
                grad_inputs = _call_node(node, grads)
            grads = None
            if not keep_graph:
                node._release()
            for (nx, nr), g in zip(node.next_functions, grad_inputs):
                if nx is None:
                    continue
                if g is not None:
                    buf = find(nx)
                    if buf is None:
                        buf = buffers[nx] = [None] * nx._nout
                    buf[nr] = g if buf[nr] is None else _sum_below_tf(buf[nr], g)
                d = deps[nx] - 1
                deps[nx] = d
                if d == 0:
                    if nx in buffers:
                        push(nx)
                    else:
                        _skip(nx, deps, buffers, ready)
            # no stale references: Note [Stealing the incoming gradient]
            grad_inputs = buf = g = m = None
    finally:
        st.grad_enabled = prev
        GRAPH_TASK[0] = outer_task
    return captured


def _skip(node, deps, buffers, ready) -> None:
    # a node that received no gradient at all: its inputs get none from it either
    stack = [node]
    while stack:
        n = stack.pop()
        for nx, _ in n.next_functions:
            if nx is None:
                continue
            deps[nx] -= 1
            if deps[nx] == 0:
                if nx in buffers:
                    ready.append(nx)
                else:
                    stack.append(nx)


def _dependencies(root_nodes, inputs):
    if inputs is None and len(root_nodes) == 1:
        return _root_dependencies(root_nodes[0]), None
    deps: dict = {}
    seen = set()
    stack = []
    for n in root_nodes:  # two outputs of one node are two roots but one node
        if n is not None and n not in seen:
            seen.add(n)
            stack.append(n)
    order = list(stack) if inputs is not None else None
    while stack:
        for nx, _ in stack.pop().next_functions:
            if nx is None:
                continue
            if nx in deps:  # seen already: only its count changes
                deps[nx] += 1
                continue
            deps[nx] = 1
            if nx not in seen:  # a root reached again is seen but has no count
                seen.add(nx)
                stack.append(nx)
                if order is not None:
                    order.append(nx)
    if inputs is None:
        return deps, None
    target_nodes = {e[0] for e in inputs}
    needed = set()
    # reverse topological sweep: a node is needed if any successor is a target or needed
    for n in reversed(_topo(order)):
        if n in target_nodes or any(nx in needed or nx in target_nodes for nx, _ in n.next_functions if nx is not None):
            needed.add(n)
    return deps, needed


def _root_dependencies(root) -> dict:
    # _dependencies of one root and no inputs: a graph is acyclic, so its root is never reached
    # again and the counts themselves tell which nodes were seen (no set beside them)
    deps: dict = {}
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        for nx, _ in pop().next_functions:
            if nx is None:
                continue
            d = deps.get(nx)
            if d is None:
                deps[nx] = 1
                push(nx)
            else:
                deps[nx] = d + 1
    return deps


def _topo(nodes):
    index = {n: i for i, n in enumerate(nodes)}
    visited, out = set(), []
    for root in nodes:
        if root in visited:
            continue
        stack = [(root, iter(root.next_functions))]
        visited.add(root)
        while stack:
            n, it = stack[-1]
            for nx, _ in it:
                if nx is not None and nx in index and nx not in visited:
                    visited.add(nx)
                    stack.append((nx, iter(nx.next_functions)))
                    break
            else:
                stack.pop()
                out.append(n)
    return list(reversed(out))


def _call_node(node, grads):
    hooks = node._hooks
    try:
        grad_inputs = node.apply(*grads)
    except RuntimeError as e:
        if STATE.anomaly & ANOMALY and node._trace:
            raise RuntimeError(f"{e}\n\nTraceback of forward call that caused the error:\n{node._trace}") from e
        raise
    if not isinstance(grad_inputs, tuple):
        grad_inputs = (grad_inputs,)
    grad_inputs = _validate(node, grad_inputs)
    if STATE.anomaly & ANOMALY and _CHECK_NAN[0]:
        _check_nan(node, grad_inputs)
    if hooks:
        for h in hooks:
            r = h(grad_inputs, tuple(grads))
            if r is not None:
                grad_inputs = tuple(r)
    return grad_inputs


def _validate(node, grad_inputs):
    metas = node._input_meta
    if len(metas) == len(grad_inputs):  # fast path: every gradient has its input's shape/dtype
        for g, m in zip(grad_inputs, metas):
            if g is not None and m is not None and (g._data.shape != m[0] or g._dtype is not m[1]):
                break
        else:
            return grad_inputs
    # Note [Reducing broadcast gradients]: a broadcast input's gradient (x * b with b of shape
    # (1, n), a bias, a 0-d operand) reaches here with the output's shape. Each slot is tested
    # by plain loops (no list copy, enumerate, or _expandable's zip/reversed/all generator):
    # those cost ~1.5 us of every broadcast input's gradient, as much as its sum_to.
    out = None
    i = 0
    n = len(metas)
    for g in grad_inputs:
        if g is None or i >= n:
            i += 1
            continue
        m = metas[i]
        if m is None:
            i += 1
            continue
        h = g
        shape = m[0]
        if g._data.shape != shape:
            if not _expandable(shape, g._data.shape):
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g._data.shape)} but expected shape compatible with {list(shape)}"
                )
            h = _sum_to(g, shape)
        dtype = m[1]
        if h._dtype is not dtype:
            if h._dtype.is_complex and not dtype.is_complex:
                if not isinstance(node, OpNode):
                    raise RuntimeError(
                        "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                        "grad_is_complex) to be true, but got false.  (Could this error message be "
                        "improved?  If so, please report an enhancement request to PyTorch.)"
                    )
                h = h.real.to(dtype)  # a real input of a complex op: PyTorch's handle_r_to_c
            else:
                h = h.to(dtype)
        if h is not g:
            if out is None:
                out = list(grad_inputs)
            out[i] = h
        i += 1
    return grad_inputs if out is None else tuple(out)


def _sum_to(g, shape):
    # at::sum_to: Tensor.sum_to_size's own calls (sum over the broadcast dims, keepdim; a
    # reshape when dims lead) without its binding, ~1.3 us of each broadcast input's gradient
    if g.__class__ is not Tensor:
        return g.sum_to_size(Size(shape))
    have = g._data.shape
    lead = len(have) - len(shape)
    dims = list(range(lead))  # a loop, not a generator: ~0.5 us less
    i = lead
    for s in shape:
        if s == 1 and have[i] != 1:
            dims.append(i)
        i += 1
    if lead and lead == len(dims) and not STATE.td_modes:
        # Note [Summing leading dims away]: only leading dims to sum (a bias's gradient): the
        # same reduction without keepdim is already of ``shape``, the same values (keepdim only
        # shapes the result), with no reshape after it: ~1.5 us of a 3 us sum_to. A dispatch
        # mode sees at::sum_to's own calls (sum with keepdim, then the reshape), as before.
        return g.sum(dims[0] if lead == 1 else tuple(dims))
    if len(dims) == 1:
        g = g.sum(dims[0], keepdim=True)
    elif dims:
        g = g.sum(tuple(dims), keepdim=True)
    return g.reshape(shape) if lead else g


def _expandable(shape, target) -> bool:
    # from the last dim, as at::is_expandable_to; a plain loop (a zip/all generator cost ~0.8 us)
    k = len(target) - len(shape)
    if k < 0:
        return False
    for s in shape:
        if s != 1 and s != target[k]:
            return False
        k += 1
    return True


def _check_nan(node, grad_inputs) -> None:
    for i, g in enumerate(grad_inputs):
        if g is not None and g._dtype.category >= 2 and np.isnan(g._host()).any():
            msg = f"Function '{node.name()}' returned nan values in its {i}th output."
            if node._trace:
                msg += f"\n\nTraceback of forward call that caused the error:\n{node._trace}"
            raise RuntimeError(msg)
