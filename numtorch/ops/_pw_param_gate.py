"""The parameter test of Pointwise.inline_fast's generated case (Note [Inlined float params])."""

from __future__ import annotations

# Note [Inlined float params]
# Pointwise.inline_fast (Note [Compiled kernel entry]) took only int params, so every activation
# with a float parameter (softshrink's lambd=0.5, leaky_relu's 0.01, elu's alpha=1.0, softplus,
# hardtanh ...) called unary(): Numba's dispatcher typed the arguments on every call, ~0.6 us of
# a 1.8 us small softshrink. The compiled entry unboxes without checking types, so an entry
# learned for an int param must never receive a float: an op whose params are all ints keeps
# its entry under the dtype alone (the entry add's alpha=1 and exp2 have always had); any
# other mix of classes is keyed by (dtype, class of each param). Such an entry is learned only
# where _plain_params admits the params (ints, and floats for a floating dtype: the values
# unary() and the general path pass to the kernel unchanged), so a bool, a Tensor, a float on
# an integer tensor (which the general path truncates or refuses) never gets one and takes the
# impl. Elementwise's inlined ufunc and number cases test ``p == 1`` on int params only: a
# subclass with its own inline_fast keeps the int-only test.


def param_gate(ps: list, floats: bool) -> tuple[str, list, str, str]:
    """(line binding the entry key, tests added to the case's condition, the key's name, the
    test declining a key that may not be learned) for params named ``ps``."""
    if not ps or not floats:
        return "", [f"{p}.__class__ is int" for p in ps], "x0._dtype", ""
    ints = " and ".join(f"{p}.__class__ is int" for p in ps)
    kinds = ", ".join(f"{p}.__class__" for p in ps)
    head = f"\n        _k = x0._dtype if {ints} else (x0._dtype, {kinds})"
    return head, [], "_k", f" or _k is not x0._dtype and not _pp(({', '.join(ps)},), x0._dtype)"
