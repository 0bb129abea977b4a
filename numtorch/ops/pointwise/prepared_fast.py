"""The public bindings' direct route to a learned prepared call (Note [Prepared binding body])."""

from __future__ import annotations

import numpy as np

from ..._dispatch import dispatch
from ..._device import CPU
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD as _PT
from .._registry import BINDINGS
from ._elementwise import Elementwise, Routed
from ._learned import args_key
from ._prepared import _key, prepared_call

_nd, _empty = np.ndarray, np.empty

# Note [Prepared binding body]
# clamp(x, -3, 4), lerp(x, y, 0.3), round(x, decimals=2): a plain call with a Python number
# where the schema says Tensor misses Note [Binding fast call] and runs the body: pick the
# overload, dispatch, the op's fast gate, the functional impl's operand lists, the router,
# Elementwise.__call__, then the learned prepared call (Note [Elementwise prepared
# signatures]): ~2.5 us of layers over a 1.5 us call. These bindings' bodies first make the
# checks those layers make (the first operand a plain CPU Tensor, no dispatch mode, no
# forward-AD level, no out=, no operand that needs a gradient) and call prepared_call on the
# operands and parameters the router would pass; a key that was not learned, or a call that
# fails a check, continues as the body does after its pick (dispatch of the picked overload),
# so errors, modes and autograd are the body's.
# (not addcmul, addcdiv, logit, nan_to_num: Note [Binding fast call] takes their plain calls)
NAMES = ("clamp", "clip", "clamp_min", "clamp_max", "lerp", "round", "bitwise_left_shift", "bitwise_right_shift")


def _route(body):
    pick, has_out, _ = body.route
    S = STATE
    memo: dict = {}  # Note [Learned one-tensor binding calls]
    MEMOS.append(memo)

    def fast(*v):
        x = v[0]
        if x.__class__ is Tensor and not S.td_modes and S.fw_level < 0 and (not has_out or v[-1] is None):
            d = x._data
            k = f = None
            # (a second tensor, lerp's end, never gets a learned call here: its impl has one)
            plain = x._device is CPU and not (x._rg and S.grad_enabled)
            a = v[1]
            c = a.__class__
            if plain and c is not Tensor and d.flags.c_contiguous:
                n = len(v) - has_out
                if n == 2 and (c is int or c is float and a == a and a != 0.0):
                    k = (x._dtype, c, a)  # _inline_key's first case, without its frame
                else:
                    k = _inline_key(x._dtype, v, n)
                f = memo.get(k)
                if (f is not None and f is not _NEVER and d.dtype is f[1] and d.__class__ is _nd and 1 < d.size < _PT
                        and f[6].get("cpu") is f[7]):  # no kernel registered over it since (numtorch.library)  # fmt: skip
                    r = _empty(d.shape, f[4])
                    f[0](d.ravel(), *f[2], r.ravel(), *f[3])
                    return _make(r, f[5])
            ops, vals = pick(list(v[:-1]) if has_out else list(v))
            op = ops["functional"]
            decl = getattr(op, "pointwise", None)
            if decl is not None and decl.select is None and op.impls.get("cpu") is decl.cpu:
                # Note [Learned prepared calls]: a learned impl beats the prepared route (lerp)
                r = dispatch(op, vals) if hasattr(decl.cpu, "learned") else _prepared(decl, vals)
                if r is not None:
                    if k is not None and f is None:
                        _learn(memo, k, x, decl, vals, op.impls)
                    return r
            return dispatch(op, vals)
        return body(*v)

    fast.__wrapped__ = body
    return fast


def _inline_key(dt, v, n):
    """args_key(dt, v[1:n]), built inline for one or two ints, None or floats that are
    neither zero nor NaN (clamp(x, -3, 4), clamp_min(x, 1), round(x, decimals=2))."""
    a = v[1]
    c = a.__class__
    if c is int or a is None or c is float and a == a and a != 0.0:
        if n == 2:
            return (dt, c, a)
        if n == 3:
            b = v[2]
            e = b.__class__
            if e is int or b is None or e is float and b == b and b != 0.0:
                return (dt, c, a, e, b)
    return args_key(dt, v[1:n])


# Note [Learned one-tensor binding calls]
# clamp(x, -1, 2), x.clamp_min(0.5), round(x, decimals=2), bitwise_left_shift(x, 3): after
# Note [Prepared binding body]'s route, such a call still paid the overload pick, the router
# and the prepared key of its operands (~2 us of a 3.8 us clamp). When the learned prepared
# record (with its compiled entry, Note [Prepared kernel entry]) served a call whose only
# tensor is the first argument, the binding keeps it under the tensor's dtype and its other
# arguments' types and values (None included; Note [Learned prepared calls]'s key). The next
# plain call with that key, on C-contiguous data of the entry's dtype object, of at least two
# elements and below the parallel size, runs the entry directly: every check the layers make
# is a function of that key, which passed them before.
MEMOS: list = []  # every routed binding's learned calls (tests empty them)


_NEVER = ()  # a key whose picked operands hold another tensor: not kept, not tried again


def _learn(memo, k, x, decl, vals, impls):
    if x._data.size >= _PT:
        return
    if len(memo) >= 64:
        memo.clear()
    ew = decl.pw
    operands, params = [vals[i] for i in decl.inputs], [vals[i] for i in decl.params]
    if ew.__class__ is Routed:
        ew, operands, params = ew.pick(operands, params)
    if operands[0] is not x or any(isinstance(o, Tensor) for o in operands[1:]):
        memo[k] = _NEVER
        return
    key = _key(operands, params)
    f = ew._prepared.get(key[0]) if key is not None else None
    if f is None or not f[6] or f[6][1] is None:  # no compiled entry learned yet
        return
    memo[k] = (f[6][0], f[6][1], tuple(v for _, v in f[0]), tuple(f[1]), f[4], f[5], impls, impls.get("cpu"))


def _prepared(decl, vals):
    n = _ORDERED.get(decl)
    if n is None:  # the operands first, then the parameters, and nothing else: slices
        k, p = len(decl.inputs), len(decl.params)
        n = _ORDERED[decl] = k if decl.inputs + decl.params == tuple(range(k + p)) else -1
    if n >= 0 and len(vals) == n + len(decl.params):
        operands, params = vals[:n], vals[n:]
    else:
        operands, params = [vals[i] for i in decl.inputs], [vals[i] for i in decl.params]
    g = STATE.grad_enabled
    for t in operands:
        c = t.__class__
        if c is Tensor:
            if t._device is not CPU or (g and t._rg):
                return None
        elif isinstance(t, Tensor):
            return None
    ew = decl.pw
    if ew.__class__ is Routed:
        ew, operands, params = ew.pick(operands, params)
    # Elementwise.__call__'s order: the two-operand fast signatures come first
    if ew.__class__ is Elementwise and ew._prepared and (len(operands) > 2 or not ew._sig):
        return prepared_call(ew, operands, params)
    return None


# Note [True division binding fast call]
# div/divide/true_divide pick their overload with _pick_div (rounding_mode routes to
# div.Tensor_mode), which Note [Binding fast call] cannot read, so div(x, y) of two tensors
# ran its body: 0.6 us more than mul(x, y). With both operands plain Tensors, no out= and no
# rounding_mode, the body dispatches div.Tensor on (input, other): the binding calls its
# op.fast itself.
def _div_fast(b, div_tensor):
    first = "self" if b.module == "Tensor" else "input"
    cond = " and ".join(c for c in ("rounding_mode is None" if "rounding_mode" in b.sig else "",
                                    "out is None" if "out=" in b.sig else "") if c)  # fmt: skip
    return (div_tensor, (first, "other"), cond) if cond else (div_tensor, (first, "other"))


# Note [Round binding fast call]
# round(x) picks round.default or, with decimals given, round.decimals: a pick Note [Binding
# fast call] cannot read, so round(x) ran the routed body above (pick, operand lists, then
# dispatch): 2.2 us where PyTorch takes 1.0. With decimals None and no out=, the body
# dispatches round.default on (input,): the binding calls its op.fast itself.
def _round_fast(b, round_default):
    first = "self" if b.module == "Tensor" else "input"
    cond = "decimals is None and out is None" if "out=" in b.sig else "decimals is None"
    return (round_default, (first,), cond)


_ORDERED: dict = {}  # PointwiseDecl -> its operand count where vals[:n], vals[n:] split it, else -1


def install() -> int:
    """Give NAMES' functional and method bindings the routed body, and div's and round's
    bindings their fast call; the number of bindings changed."""
    from .core import _DIV_T, _ROUND

    n = 0
    for b in BINDINGS:
        if b.name in NAMES and b.module in ("torch", "Tensor") and hasattr(b.body, "route") and not b.body.route[2]:
            b.body = _route(b.body)
            n += 1
            if b.name == "round" and b.fast is None:
                b.fast = _round_fast(b, _ROUND["functional"])
        elif b.name in ("div", "divide", "true_divide") and b.module in ("torch", "Tensor") and b.fast is None:
            b.fast = _div_fast(b, _DIV_T["functional"])
            n += 1
    return n


install()
