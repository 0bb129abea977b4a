"""What every op fast call checks before it skips the body: no mode, level or autocast region,
and an operand with nothing to record (Note [Guarded fast paths]); and the binding fast call
that runs the body where such a call declines."""

from __future__ import annotations

from .._device import CPU as _CPU
from .._state import STATE as _STATE
from ..amp._policy import _INSTALLED as _AUTOCAST


def free() -> bool:
    """No dispatch mode, forward-AD level or autocast region: nothing would see the op's call."""
    S = _STATE
    return not (S.td_modes or S.fw_level >= 0 or _AUTOCAST)


def recordless(x) -> bool:
    """A CPU tensor that no recorded graph would take in (no grad to record for it), not of a
    wide unsigned dtype (the bodies refuse most non-elementwise ops for those: Note [Wide
    unsigned dtypes])."""
    return x._device is _CPU and not (x._rg and _STATE.grad_enabled) and x._dtype._rank <= 10


def plain(x) -> bool:
    """free() and recordless(x): the body would run the CPU kernel on x and nothing else."""
    S = _STATE
    return not (
        S.td_modes
        or S.fw_level >= 0
        or _AUTOCAST
        or x._device is not _CPU
        or x._rg
        and S.grad_enabled
    )


def or_body(fast, body):
    """The binding's fast call: ``fast(*vals)`` or, where it declines (None), ``body(*vals)``."""

    def call(*vals):
        r = fast(*vals)
        return body(*vals) if r is None else r

    call.declines = (fast, body, 0)  # the wrapper calls these itself (Note [Declining fast call inline])
    return call


def params(sig: str) -> tuple:
    """The parameter names of a binding's signature text, in order (the body's arguments)."""
    names = (p.strip().partition("=")[0].lstrip("*") for p in sig.split(","))
    return tuple(n for n in names if n)


def attach(bindings, calls: dict) -> None:
    """Give each binding without a fast call the one ``calls`` holds for its (module, name):
    ``fast(*vals)`` or, where that declines, its body."""
    for b in bindings:
        fast = calls.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))


def pair(x, y) -> bool:
    """free() and recordless(x) and recordless(y) in one call (the indexing fast calls of two
    tensors: three calls cost ~0.15 us of a 2 us call)."""
    S = _STATE
    return (
        x._device is _CPU is y._device
        and x._dtype._rank <= 10 >= y._dtype._rank
        and not ((x._rg or y._rg) and S.grad_enabled)
        and not (S.td_modes or S.fw_level >= 0 or _AUTOCAST)
    )
