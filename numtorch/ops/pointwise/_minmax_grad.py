"""maximum/minimum's backward formulas (pointwise/core.py is at its size cap)."""

from __future__ import annotations

import numpy as np

from .._formula_np import plain, wrap


def max_bw(lose, key, ops):
    # PyTorch splits the gradient of ties evenly: where(self == other, grad / 2, grad), zero where
    # it lost (lose: "lt" for maximum, "gt" for minimum); ops: core's (_where, _cmp, _div)
    _where, _cmp, _div = ops

    def bw(grad, self, other):
        if plain(grad, self, other):  # Note [Backward formulas in NumPy]
            a, b, g = self._data, other._data, grad._data
            lost = (a < b if lose == "lt" else a > b) if key == "self" else (b < a if lose == "lt" else b > a)
            return wrap(np.where(lost, 0.0, np.where(a == b, g / 2, g)), grad)
        g = _where(_cmp("eq", self, other), _div(grad, 2), grad)
        return _where(_cmp(lose, self, other) if key == "self" else _cmp(lose, other, self), 0.0, g)

    return bw
