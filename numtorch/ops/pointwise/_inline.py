"""The number-operand branch of an Elementwise op's inlined fast path (Note [Inlined number operand])."""

from __future__ import annotations

from ..._tensor import inline_make_src

# Note [Inlined number operand]
# ``y * 1.01`` on a plain contiguous float tensor reached its kernel through a dozen frames
# (binary -> Pointwise.binary -> __call__ -> _fast_call -> number -> scalar_as): ~1.3 us more
# than ``y * z``. When Elementwise has learned the (dtype, float) signature (Note [Elementwise
# fast signatures]: the compute dtype is the tensor's and the number needs no conversion),
# op.fast calls the kernel itself, as for two tensors. Ints keep the general path: they wrap
# or overflow as c10::Scalar does.
_BRANCH = """
        elif {y}.__class__ is _float and _d0.flags.c_contiguous{params}:
            _f = _SIG.get((x0._dtype, _float, False))
            if _f is not None and _d0.size < _PT:
                _r = _empty(_d0.shape, _f[0])
                if _d0.ndim == 1:
                    _f[2](_d0, {y}, _r{ps})
                else:
                    _f[2](_d0.reshape(-1), {y}, _r.reshape(-1){ps})
{make}"""


# An int operand (``i + 1``, ``x > 0``, ``i == 3``) as _fast_call takes it under the learned
# (dtype, int) signature: converted as c10::Scalar::to<dtype>() (integers wrap); one out of the
# parser's range takes the body (its OverflowError). 3.8-4.1 us -> ~1.8 us small.
_INT_BRANCH = """
        elif {y}.__class__ is _int and _d0.flags.c_contiguous{params}:
            _f = _SIG.get((x0._dtype, _int, False))
            if _f is not None and _d0.size < _PT and -9223372036854775808 <= {y} < 18446744073709551616:
                _v = _scalar_as({y}, x0._dtype)
                _r = _empty(_d0.shape, _f[0])
                if _d0.ndim == 1:
                    _f[2](_d0, _v, _r{ps})
                else:
                    _f[2](_d0.reshape(-1), _v, _r.reshape(-1){ps})
{make}"""


def with_number_branch(ew, src: str, ns: dict, args: list) -> tuple[str, dict]:
    """``src`` (Pointwise.inline_fast's binary case) followed by the number-operand branches;
    the caller binds ``_scalar_as`` (_elementwise.scalar_as)."""
    y, ps = args[1], args[2:]
    params = "".join(f" and {p}.__class__ is int and {p} == 1" for p in ps)
    make = inline_make_src("_r", "_f[1]", " " * 16)
    src += _BRANCH.format(y=y, params=params, ps="".join(f", {p}" for p in ps), make=make)
    src += _INT_BRANCH.format(y=y, params=params, ps="".join(f", {p}" for p in ps), make=make)
    return src, {**ns, "_SIG": ew._sig, "_float": float, "_int": int}
