"""The captured graph: aten calls on numbered value slots, and its eager interpreter.

# Note [Captured graph]
# A graph is a straight list of aten calls recorded below autograd (capture.py). Values live in
# numbered slots: first the call's flattened tensor arguments, then the constants (tensors the
# function reached that no recorded op produced: module parameters, globals, ``tensor([...])``
# literals, held by reference so that in-place updates to them are seen), then each node's
# outputs. A node keeps its schema-ordered argument values with each tensor replaced by its
# slot, so replaying a node is one list copy, a few slot reads and ``op.fast`` (the full
# dispatcher: autograd, modes and subclasses apply to replayed calls as to eager ones).
"""

from __future__ import annotations

from ..utils._pytree import tree_unflatten


class Node:
    """One aten call: ``op.fast(*vals)`` with tensor slots substituted, outputs to ``outs``."""

    __slots__ = ("op", "template", "direct", "lists", "outs", "single", "index")

    def __init__(self, op, template, direct, lists, outs, single, index):
        self.op = op
        self.template = template  # schema-ordered values, None where a tensor goes
        self.direct = direct  # [(position, slot)]: tensor arguments
        self.lists = lists  # [(position, [slot | (value,)], type)]: tensor-list arguments
        self.outs = outs  # output slots, in the order the result flattens
        self.single = single  # the op returns one Tensor (not a tuple)
        self.index = index  # position in the graph

    def values(self, env: list) -> list:
        vals = self.template.copy()
        for i, s in self.direct:
            vals[i] = env[s]
        for i, items, tp in self.lists:
            vals[i] = tp(env[x] if x.__class__ is int else x[0] for x in items)
        return vals

    def inputs(self) -> list:
        """Every slot this node reads."""
        r = [s for _, s in self.direct]
        for _, items, _ in self.lists:
            r += [x for x in items if x.__class__ is int]
        return r

    def run(self, env: list) -> None:
        self.store(env, self.op.fast(*self.values(env)))

    def store(self, env: list, result) -> None:
        if self.single:
            env[self.outs[0]] = result
        else:
            for s, v in zip(self.outs, result, strict=True):
                env[s] = v


class Graph:
    """A captured call: input count, constants, nodes, and how to rebuild the output."""

    def __init__(self, n_inputs: int, consts: list, nodes: list, n_slots: int, out_leaves: list, out_spec):
        self.n_inputs = n_inputs
        self.consts = consts  # [(slot, tensor)]
        self.nodes = nodes
        self.n_slots = n_slots
        self.out_leaves = out_leaves  # [slot | (python value,)]
        self.out_spec = out_spec

    def new_env(self, tensors: list) -> list:
        env = [None] * self.n_slots
        env[: self.n_inputs] = tensors
        for s, t in self.consts:
            env[s] = t
        return env

    def output(self, env: list):
        leaves = [env[x] if x.__class__ is int else x[0] for x in self.out_leaves]
        return tree_unflatten(leaves, self.out_spec)

    def run_eager(self, tensors: list):
        """Replay every node through the dispatcher (backend="eager", and calls needing grad)."""
        env = self.new_env(tensors)
        for n in self.nodes:
            n.store(env, n.op.fast(*n.values(env)))
        return self.output(env)

    def format(self) -> str:
        """The graph as text, one aten call per line (NUMTORCH_LOGS=graph_code)."""
        lines = [f"graph({', '.join(f'%{i}' for i in range(self.n_inputs))}):"]
        for s, t in self.consts:
            lines.append(f"  %{s} = constant {tuple(t.shape)} {t.dtype}")
        for n in self.nodes:
            args = _show_args(n)
            outs = ", ".join(f"%{s}" for s in n.outs)
            lines.append(f"  {outs} = {n.op}({args})")
        ret = ", ".join(f"%{x}" if x.__class__ is int else repr(x[0]) for x in self.out_leaves)
        lines.append(f"  return ({ret})")
        return "\n".join(lines)


def _show_args(n: Node) -> str:
    vals = [repr(v) for v in n.template]
    for i, s in n.direct:
        vals[i] = f"%{s}"
    for i, items, _ in n.lists:
        vals[i] = "[" + ", ".join(f"%{x}" if x.__class__ is int else repr(x[0]) for x in items) + "]"
    return ", ".join(vals)
