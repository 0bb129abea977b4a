"""The generated call of a ``CustomOpDef``: plain CPU tensors straight to the registered kernel.

# Note [Custom-op fast call]
# ``@custom_op`` returns a CustomOpDef that users call in their model; through the general
# route a call binds the arguments to the schema, type-checks them, then enters op.fast, which
# (when a gradient is needed) takes slow_dispatch -> the Autograd key -> AutogradKernel.call ->
# _fast_record -> op.fast again. For the common call (positional arguments of the schema's
# exact types, plain CPU Tensors, no torch-function or dispatch mode, no forward AD, no
# functorch transform) this module generates, once per op and per registration change, one
# function that does what those layers would, unrolled over the schema's arguments as the
# built-ins' fast paths are (Note [Per-op fast path]): the no-grad case calls the kernel, the
# recording case builds the generated Function's node inline (Note [Custom-op recording fast
# path]) around the kernel call. Anything else - a keyword argument, a missing or extra
# argument, another type, a mode, an output that is an input or a view, a ctx marked dirty -
# goes to the op's full route, before anything has run (or, for the output checks, through
# _wrap_outputs after it). It becomes the CustomOpDef's ``__call__`` through a subclass made
# per op: special-method lookup reads the type, and an instance attribute would cost a frame.
"""

from __future__ import annotations

import weakref

import numpy as np

from .._device import CPU
from .._functorch._levels import GRAD_DEPTH, VMAP_LEVELS
from .._state import STATE
from .._tensor import Tensor, _make
from ..autograd.function import _wrap_outputs
from ..autograd.graph import AccumulateGrad, SavedTensor
from .autograd import AutogradKernel, _KwOnly
from .custom_ops import _EXACT
from .numba_kernel import NumbaKernel, body_failed, failed, fresh_tensor

_M = object()  # an argument the caller left out
_new = object.__new__


def _full(d, args, rest, kw):
    # the op's full route with exactly what the caller passed (omitted arguments are a tail)
    n = next((i for i, a in enumerate(args) if a is _M), len(args))
    return d._opoverload(*args[:n], *rest, **kw)


def generate(d):
    """The ``__call__`` of CustomOpDef ``d`` (None when its schema or kernels allow no fast call)."""
    op = d._opoverload
    s = op._schema
    impl = op.impls.get("cpu") or op.impls.get("any")
    pos = [a for a in s.arguments if not a.kwarg_only]
    kwo = [a for a in s.arguments if a.kwarg_only]
    if impl is None or any(not a.has_default or isinstance(a.default, list) for a in kwo):
        return None
    exact = [_EXACT.get(a.type) for a in pos]
    if any(e is None for e in exact) or any(a.has_default and isinstance(a.default, list) for a in pos):
        return None
    ns = {"_S": STATE, "_T": Tensor, "_CPU": CPU, "_M": _M, "_full": _full, "_impl": impl, "_new": _new,
          "_VL": VMAP_LEVELS, "_GD": GRAD_DEPTH, "_NO": (None, 0), "_AG": AccumulateGrad, "_ST": SavedTensor,
          "_wrap": _wrap_outputs, "_KW0": _KwOnly(()), "_op": op}  # fmt: skip
    xs = [f"x{i}" for i in range(len(pos))]
    vs = [f"v{i}" for i in range(len(pos))]
    L = [f"def call(self, {''.join(f'{x}=_M, ' for x in xs)}/, *rest, **kw):",
         "    if kw or rest or _S.tf_modes or _S.td_modes or _S.fw_level >= 0:",
         f"        return _full(self, ({''.join(f'{x}, ' for x in xs)}), rest, kw)"]  # fmt: skip
    conds, tens, rgs = [], [], []
    for i, (a, x, v) in enumerate(zip(pos, xs, vs)):
        if a.has_default:
            ns[f"_d{i}"] = a.default
            L.append(f"    {v} = _d{i} if {x} is _M else {x}")
        else:
            L.append(f"    {v} = {x}")
        if a.type == "Tensor":
            conds.append(f"{v}.__class__ is _T and {v}._device is _CPU")
            tens.append(i)
            rgs.append(f"{v}._rg")
        elif a.type == "Tensor?":
            conds.append(f"({v} is None or {v}.__class__ is _T and {v}._device is _CPU and not {v}._rg)")
        else:
            ns[f"_E{i}"] = exact[i]
            conds.append(f"{v}.__class__ in _E{i}")
    if not tens:
        return None
    kd = []
    for j, a in enumerate(kwo):
        ns[f"_k{j}"] = a.default
        kd.append(f"_k{j}")
    if impl.__class__ is NumbaKernel:
        if not _numba_direct(impl, pos, kwo):
            return None
        args = [f"{v}._data" if i in tens else v for i, v in enumerate(vs)]
        call = _numba_out_call(impl, ns, args, vs, False) if impl.nout else _numba_call(impl, ns, args)
        rec_call = _numba_out_call(impl, ns, args, vs, True) if impl.nout else call
    else:
        ns["_bfail"] = body_failed
        call = rec_call = ["try:",
                           f"    _o = _impl({', '.join(vs + kd)})",
                           "except Exception as _e:",  # a Numba compile error, named after the op
                           f"    _bfail(_op, _e, ({''.join(f'{v}, ' for v in vs)}))",
                           "    raise"]  # fmt: skip
    L.append(f"    if {' and '.join(conds)}:")
    ag = op.autograd
    if ag is None:
        L += ["        " + c for c in call] + ["        return _o"]
    else:
        L.append(f"        if not ({' or '.join(rgs)}) or not _S.grad_enabled:")
        L += ["            " + c for c in call] + ["            return _o"]
        if ag.__class__ is AutogradKernel and ag.tslots is not None and not kwo:
            fresh = impl.__class__ is NumbaKernel and impl.nout > 0
            L += _record_lines(ag, ns, vs, tens, rec_call, fresh)
    L.append(f"    return _full(self, ({''.join(f'{x}, ' for x in xs)}), rest, kw)")
    src = "\n".join(L) + "\n"
    exec(compile(src, f"<numtorch custom call {op}>", "exec"), ns)
    return ns["call"]


def _numba_direct(k, pos, kwo) -> bool:
    # the generated call passes arrays and numbers straight to a Numba kernel of one fresh output
    return not kwo and not k.mutated and k.nret == 1 and all(c is None or a.type == "Tensor" for c, a in zip(k.conv, pos))


def _numba_call(k, ns, args) -> list:
    # Note [Numba kernels as op kernels]: the dispatcher on the arrays, its fresh result wrapped
    ns.update({"_nbf": k.fn, "_nbk": k, "_failed": failed, "_fresh": fresh_tensor})
    a = ", ".join(args)
    return ["try:",
            f"    _o = _nbf({a})",
            "except Exception as _e:",
            f"    _failed(_nbk, _e, ({a}, ))",
            "_o = _fresh(_o, _nbk)"]  # fmt: skip


def _numba_out_call(k, ns, args, vs, meta) -> list:
    # the output allocated from the plan its metadata learned (NumbaKernel.allocate), else the
    # kernel's own route (which runs the fake function and learns the plan)
    ns.update({"_nbf": k.fn, "_nbk": k, "_failed": failed, "_fast": k.fast, "_empty": np.empty, "_make": _make})
    # _sh<i>: the arrays' shapes, _om (meta): the output's meta, for the recording (_record_lines)
    arrs = [f"_d{i}" if a.endswith("._data") else a for i, a in enumerate(args)]
    key = "".join(f"_sh{d[2:]}, {d}.strides, {v}._dtype, " if d.startswith("_d") else f"{d}.__class__, {d}, "
                  for d, v in zip(arrs, vs))  # fmt: skip
    a = ", ".join(arrs)
    return [*(f"{d} = {x}" for d, x in zip(arrs, args) if d != x),
            *(f"_sh{d[2:]} = {d}.shape" for d in arrs if d.startswith("_d")),
            f"_p = _fast.get(({key}))",
            "if _p is None:",
            f"    _o = _nbk({', '.join(vs)})",
            *(["    _om = (_o._data.shape, _o._dtype, _CPU)"] if meta else []),
            "else:",
            "    _r = _empty(_p[0], _p[1])",
            "    try:",
            f"        _p[3]({a}, _r)",
            "    except Exception as _e:",
            f"        _failed(_nbk, _e, ({a}, _r))",
            "    _o = _make(_r, _p[2])",
            *(["    _om = (_p[0], _p[2], _CPU)"] if meta else [])]  # fmt: skip


def _record_lines(ag, ns, vs, tens, call, fresh=False) -> list:
    # _fast_record unrolled (Note [Custom-op recording fast path]), under the no-grad test above;
    # fresh: the output is a new plain tensor (a Numba kernel's allocated output), its meta in
    # _om and the inputs' shapes in _sh<i> (_numba_out_call)
    ns.update({"_BC": ag.fn_cls._backward_cls, "_setup": ag.setup_context})
    L = ["        if not _S.anomaly and not _VL and not _GD[0] and _op.autograd is _AGK:"]
    ns["_AGK"] = ag
    B = []
    for i in tens:
        v = vs[i]
        B += [f"_f = {v}._grad_fn",
              "if _f is not None:",
              f"    _e{i} = (_f, {v}._out_nr)",
              f"    _n{i} = True",
              f"elif {v}._rg:",  # grad_accumulator, inlined
              f"    _dd = {v}.__dict__",
              "    _a = _dd.get('_acc_ref')",
              "    _a = _a() if _a is not None else None",
              "    if _a is None:",
              f"        _a = _new(_AG)",
              "        _a.next_functions = ()",
              f"        _a.variable = {v}",
              "        _dd['_acc_ref'] = _wr(_a)",
              f"    _e{i} = (_a, 0)",
              f"    _n{i} = True",
              "else:",
              f"    _e{i} = _NO",
              f"    _n{i} = False"]  # fmt: skip
    needs = ", ".join(f"_n{i}" if i in tens else "False" for i in range(len(vs)))
    shapes = [f"_sh{i}" if fresh else f"{vs[i]}._data.shape" for i in tens]
    out_meta = "_om" if fresh else "(_o._data.shape, _o._dtype, _o._device)"
    not_fresh = "" if fresh else f" or _o.__class__ is not _T or _o._base is not None{''.join(f' or _o is {vs[i]}' for i in tens)}"
    ins = "".join(f"{v}, " for v in vs)
    B += ["_c = _new(_BC)",  # materialize_grads, _is_tensor_input: class defaults (AutogradKernel)
          f"_c.needs_input_grad = ({needs}, False)",
          "_S.grad_enabled = False",
          "try:",
          *["    " + c for c in call]]  # fmt: skip
    if ag.setup_context is not None:
        B.append(f"    _setup(ctx=_c, inputs=({ins}), output=_o)")
    B += ["finally:",
          "    _S.grad_enabled = True",
          # class defaults None (AutogradKernel): read without materializing the ctx's __dict__
          f"if (_c.dirty_tensors is not None or _c.non_differentiable is not None{not_fresh}):",
          f"    return _wrap(_c, ({ins}_KW0), _o)",
          f"_c.next_functions = ({''.join(f'_e{i}, ' for i in tens)})",
          f"_c._input_meta = ({''.join(f'({sh}, {vs[i]}._dtype, _CPU), ' for i, sh in zip(tens, shapes))})",
          f"_c._out_meta = [{out_meta}]",  # _nout: the engine's default
          "if _o._dtype.category >= 2:",
          "    _o._grad_fn = _c",
          "    _o._rg = True",
          "_ts = _c.to_save",
          "if _ts is not None:",  # SavedTensor(t) of an input, inlined (no comprehension frame)
          "    del _c.to_save",
          "    _sl = []",
          "    for _t in _ts:",
          "        if _t is None or _t is _o:",
          "            _sl.append(None if _t is None else _ST(_o, _c, 0))",
          "        else:",
          "            _s = _new(_ST)",
          "            _s.version = _t._vc[0]",
          "            _s.is_output = False",
          "            _s.tname = ''",
          "            _s.tensor = _t",
          "            _sl.append(_s)",
          "    _c._saved = _sl",
          "return _o"]  # fmt: skip
    ns["_wr"] = weakref.ref
    return L + ["            " + b for b in B]

