"""np.errstate(all="ignore") for hot paths, without the context manager's Python.

# Note [Quiet floating-point flags]
# A BLAS product (np.dot, np.matmul) raises NumPy's RuntimeWarning when its result overflows;
# PyTorch warns about nothing, so products run under np.errstate(all="ignore"). On a small
# product that context manager (an object, _make_extobj, the context variable) cost ~1 us of a
# 4.5 us mm; setting NumPy's error-state context variable to one prebuilt "ignore all" state
# and resetting it costs ~0.15 us. ``IGNORE`` keeps the buffer size and call of the state at
# import. NumPy private names: where they are missing, ``quiet`` and ``restore`` are a plain
# errstate's enter and exit.
"""

from __future__ import annotations

import numpy as np

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    IGNORE = _make_extobj(all="ignore")
    quiet = _extobj_contextvar.set  # quiet(IGNORE) -> token; restore(token)
    restore = _extobj_contextvar.reset
except (ImportError, AttributeError, TypeError):  # pragma: no cover - another NumPy
    IGNORE = None

    def quiet(_):
        es = np.errstate(all="ignore")
        es.__enter__()
        return es

    def restore(es):
        es.__exit__(None, None, None)
