"""A Numba ``@njit`` function registered directly as a custom op's CPU kernel.

# Note [Numba kernels as op kernels]
# ``custom_op`` on an ``@njit`` function (or ``register_kernel("cpu", njit_fn)``) makes the
# compiled function itself the op's CPU kernel: it receives each Tensor argument's NumPy array
# (Tensor[] as a tuple of arrays, a dtype as its NumPy dtype, int[]/float[] as tuples, other
# values as they are). A Numba function cannot receive a Tensor, so giving this registration a
# meaning takes nothing away. It has two forms, told apart by its parameter count:
# - it returns its outputs (an array, a tuple of arrays, or None): what ``custom_op`` on the
#   function itself gives. Fresh Numba-allocated arrays (their base is Numba's MemInfo, so they
#   own their memory and have positive strides) become tensors without from_numpy's checks;
#   anything else goes through from_numpy (a Python scalar: a 0-d tensor).
# - it takes its Tensor outputs as trailing parameters (``kernel(x, out)``): numtorch allocates
#   them from the op's fake function, which runs once per argument metadata (shapes, strides,
#   dtypes, other values); the plan for a single C-contiguous output keeps, after the first
#   call, Numba's compiled entry point for those types (Note [Compiled kernel entry]), since
#   the plan's key fixes every argument's type. This is the built-in ops' own call (np.empty,
#   the compiled entry, one Tensor made): an 8-element call costs ~1.1x the built-in sin.
# A Python kernel body spends on every call what this removes (Tensor.numpy, np.empty_like,
# Numba's type dispatch, from_numpy's checks: together about one built-in op). The generated
# call (Note [Custom-op fast call]) passes ``t._data`` straight to the kernel and records
# autograd around it. A Numba typing error is reported as the op's kernel failing to compile
# for the arguments' types, naming the op, not as a bare Numba traceback.
"""

from __future__ import annotations

import sys

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make

_FROM_NP = D._FROM_NP


class _NotLoaded:  # stands in for Numba's MemInfo class until a Numba kernel is registered
    pass


_MI = _NotLoaded


def is_numba_cpu(fn) -> bool:
    """Whether ``fn`` is a Numba CPU dispatcher (``@numba.njit``/``@numba.jit``)."""
    nb = sys.modules.get("numba")  # a Numba function exists only once numba is imported
    return nb is not None and isinstance(fn, nb.core.registry.CPUDispatcher)


def _arr(t):
    # a CPU kernel sees CPU tensors, and never a conjugate bit (Note [Conjugate views])
    return t._data


def _conv(typ: str):
    """How a value of schema type ``typ`` reaches the Numba function (None: as it is)."""
    base, opt = (typ[:-1], True) if typ.endswith("?") else (typ, False)
    if base == "Tensor":
        f = _arr
    elif base.startswith("Tensor"):  # Tensor[] / Tensor?[]
        f = lambda v: tuple(None if t is None else _arr(t) for t in v)  # noqa: E731
    elif base == "ScalarType":
        f = lambda v: v.np  # noqa: E731
    elif base == "Device":
        f = str
    elif base.endswith("]"):  # int[] / float[] / bool[]: Numba types a tuple, not a list
        f = lambda v: tuple(v) if isinstance(v, (list, tuple)) else v  # noqa: E731
    else:
        return None
    return (lambda v: None if v is None else f(v)) if opt else f


def fresh_tensor(r, k):
    """``k.wrap(r)`` for one Tensor output, with the common case first: a fresh Numba array."""
    if r.__class__ is np.ndarray and r.base.__class__ is _MI:
        dt = _FROM_NP.get(r.dtype)
        if dt is not None:
            return _make(r, dt)
    return to_tensor(r, k.op)


def to_tensor(r, op):
    """A kernel's returned array as a tensor (a fresh Numba allocation needs no checks)."""
    if r.__class__ is np.ndarray:
        dt = D._FROM_NP.get(r.dtype)
        if dt is not None and r.base.__class__ is _MI:
            return _make(r, dt)
    elif isinstance(r, (int, float, complex, bool, np.generic)):
        r = np.asarray(r)  # a 0-d result: Numba returns a Python scalar
    elif not isinstance(r, np.ndarray):
        raise RuntimeError(f"{op}: the Numba kernel returned {type(r).__name__}; expected an array for each Tensor output")
    from ..ops.factory.core import from_numpy

    return from_numpy(r)


class NumbaKernel:
    """The kernel entry of a Numba function registered for a custom op (Note [Numba kernels as
    op kernels]): schema-ordered values in, tensors out; mutated arguments' version counters
    bumped after the call. ``nout``: how many outputs the function takes as trailing
    parameters (0: it returns them), allocated by ``allocate``."""

    __slots__ = ("op", "fn", "conv", "mutated", "nret", "nout", "plans", "fast", "__wrapped__")

    def __init__(self, op, fn):
        global _MI
        import inspect

        from numba.core.runtime import _nrt_python

        _MI = _nrt_python._MemInfo
        s = op._schema
        self.op, self.fn, self.__wrapped__ = op, fn, fn
        self.conv = tuple(_conv(a.type) for a in s.arguments)
        self.mutated = tuple(i for i, a in enumerate(s.arguments) if a.is_write)
        self.nret = len(s.returns)
        self.plans: dict = {}
        self.fast: dict = {}
        nparams, nargs = len(inspect.signature(fn.py_func).parameters), len(s.arguments)
        self.nout = nparams - nargs
        if nparams != nargs and (nparams != nargs + self.nret or any(r.type != "Tensor" for r in s.returns)):
            raise TypeError(
                f"{s.namespace}::{s.name}: the Numba kernel '{fn.__name__}' takes {nparams} parameters; the "
                f"op's schema has {nargs} arguments (a kernel that returns its outputs) and {self.nret} "
                f"Tensor outputs (a kernel that takes them as {nargs + self.nret} parameters)"
            )

    def __call__(self, *vals):
        args = [v if c is None else c(v) for c, v in zip(self.conv, vals)]
        if self.nout:
            key = plan_key(args)
            outs = self.allocate(vals, args, key)
            full = args + [o[0] for o in outs]
            call_kernel(self, full)
            p = self.fast.get(key) if key is not None else None
            if p is not None and p[3] is self.fn:
                self.fast[key] = p[:3] + (_entry(self.fn, full),)
            r = tuple(_make(a, dt) for a, dt in outs)
        else:
            r = call_kernel(self, args)
        for i in self.mutated:
            x = vals[i]
            for t in x if isinstance(x, (list, tuple)) else (x,):
                if isinstance(t, Tensor):
                    t._vc[0] += 1
        if self.nout:
            return r[0] if self.nret == 1 else r
        return self.wrap(r)

    def wrap(self, r):
        if self.nret == 0 or r is None:
            return None
        if self.nret == 1:
            return to_tensor(r, self.op)
        if not isinstance(r, tuple) or len(r) != self.nret:
            raise RuntimeError(f"{self.op}: the Numba kernel must return a tuple of {self.nret} arrays")
        return tuple(None if x is None else to_tensor(x, self.op) for x in r)

    def allocate(self, vals, args, key) -> list:
        """The outputs as (array, dtype) pairs, shaped as the op's fake function says: it runs
        once per argument metadata (``key``: shapes, strides, dtypes, other values). ``fast``
        holds the plans of a single C-contiguous output, which the generated call reads: (shape,
        NumPy dtype, dtype, what to call: the compiled entry once learned, else the dispatcher)."""
        if key is not None:
            p = self.fast.get(key)
            if p is not None:
                return [(np.empty(p[0], p[1]), p[2])]
            plan = self.plans.get(key)
            if plan is not None:
                return [(np.empty(sh, npd) if tmpl is None else np.empty_like(tmpl), dt) for sh, npd, dt, tmpl in plan]
        fake = self.op.impls.get("meta")
        s = self.op._schema
        if fake is None:
            raise RuntimeError(
                f"{s.namespace}::{s.name}: the Numba kernel '{self.fn.__name__}' takes its outputs as "
                "parameters; register a fake function (register_fake) so that their shapes and dtypes are known"
            )
        res = fake(*vals)
        res = res if isinstance(res, tuple) else (res,)
        if len(res) != self.nret or not all(isinstance(t, Tensor) for t in res):
            raise RuntimeError(f"{s.namespace}::{s.name}: the fake function must return {self.nret} Tensor(s)")
        plan = tuple((t._data.shape, t._dtype.np, t._dtype, None if t._data.flags.c_contiguous else t._data)
                     for t in res)  # fmt: skip
        if key is not None:
            if len(self.plans) + len(self.fast) >= 256:  # many shapes (a growing sequence): start over
                self.forget()
            if self.nret == 1 and plan[0][3] is None:
                self.fast[key] = plan[0][:3] + (self.fn,)
            else:
                self.plans[key] = plan
        return [(np.empty(sh, npd) if tmpl is None else np.empty_like(tmpl), dt) for sh, npd, dt, tmpl in plan]

    def forget(self) -> None:
        """Drop the allocation plans (the fake function changed)."""
        self.fast.clear()
        self.plans.clear()


def forget_plans(op) -> None:
    """The op's fake function changed: its Numba kernels' output plans are stale."""
    for k in op.impls.values():
        if k.__class__ is NumbaKernel:
            k.forget()


def plan_key(args):
    """What a fake function may read of the arguments and what types the kernel sees, hashable
    (None: not cacheable); the generated call builds the same tuple (fastcall._numba_out_call):
    an array's shape, strides and numtorch dtype; a number's class and value (2 == 2.0)."""
    key = []
    for a in args:
        if a.__class__ is np.ndarray:
            key += (a.shape, a.strides, _FROM_NP.get(a.dtype, a.dtype))
        elif isinstance(a, tuple):
            key.append(tuple((x.shape, x.strides, x.dtype) if isinstance(x, np.ndarray) else x for x in a))
        else:
            key += (a.__class__, a)
    key = tuple(key)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _entry(fn, args):
    """The compiled entry point of ``fn`` for ``args`` (Note [Compiled kernel entry]): it unboxes
    without checking types, so the generated call uses it only under the plan's key, which fixes
    every argument's type; arrays must be exact, aligned, native ndarrays (else the dispatcher)."""
    from numba import typeof

    for a in args:
        if isinstance(a, np.ndarray) and (a.__class__ is not np.ndarray or not a.flags.aligned or not a.dtype.isnative):
            return fn
    ov = fn.overloads.get(tuple(typeof(a) for a in args))
    return fn if ov is None else ov.entry_point


def call_kernel(k, args):
    try:
        return k.fn(*args)
    except Exception as e:
        failed(k, e, args)


def is_numba_error(e) -> bool:
    nb = sys.modules.get("numba")  # a Numba error comes only from an imported numba
    return nb is not None and isinstance(e, nb.core.errors.NumbaError)


def failed(k, e, args):
    """Re-raise ``e``; a Numba compile error as the op's kernel failing for these argument types."""
    if not is_numba_error(e):
        raise e
    raise RuntimeError(
        f"{k.op._schema.namespace}::{k.op._schema.name}: the Numba kernel '{k.fn.__name__}' failed to compile "
        f"for arguments ({', '.join(_describe(a) for a in args)}): {_gist(str(e))}"
    ) from None


def body_failed(op, e, vals) -> None:
    """A Numba compile error raised out of a Python kernel (a function calling ``@njit`` ones)
    as the op's kernel failing for the op's arguments; returns for any other error (the caller
    re-raises it as it is)."""
    if not is_numba_error(e):
        return
    s = op._schema
    fn = op.impls.get("cpu") or op.impls.get("any")
    name = getattr(getattr(fn, "__wrapped__", fn), "__name__", "kernel")
    raise RuntimeError(
        f"{s.namespace}::{s.name}: the kernel '{name}' failed: a Numba function it calls did not compile "
        f"for the op's arguments ({', '.join(_describe(v) for v in vals)}): {_gist(str(e))}"
    ) from None


def _gist(msg: str) -> str:
    # Numba's message without its pipeline frame: what failed, for which call, and where
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    body = [ln for ln in lines if not ln.startswith(("Failed in", "During:"))]
    out = body[:1]
    if out and out[0].endswith("signature:"):
        out += [ln for ln in body if ln.startswith(">>>")][:1]
    out += [ln for ln in body if ln.startswith("File ")][:1]
    return " ".join(out)


def _describe(a) -> str:
    if isinstance(a, Tensor):
        return f"{a._dtype}{list(a.shape)}"
    if isinstance(a, np.ndarray):
        dt = D._FROM_NP.get(a.dtype)
        return f"{'Tensor' if dt is None else dt}{list(a.shape)}"
    return type(a).__name__
