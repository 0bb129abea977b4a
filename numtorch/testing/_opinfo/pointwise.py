"""OpInfos for numtorch/ops/pointwise.py."""

from __future__ import annotations

import numpy as np

from .core import ALL_REAL, NUMERIC, OpInfo, binary_samples, unary_samples

OPINFOS = [
    OpInfo("add", lambda a, b, alpha=1: np.add(a, np.multiply(b, alpha)), binary_samples(),
           dtypes=NUMERIC, method="add", inplace="add_", supports_out=True,
           variants=("__add__", "__radd__", "__iadd__")),
    OpInfo("mul", np.multiply, binary_samples(), dtypes=ALL_REAL, method="mul", inplace="mul_",
           supports_out=True, variants=("__mul__", "__rmul__", "__imul__")),
    OpInfo("exp", np.exp, unary_samples(-3, 3), dtypes=("float32", "float64", "int64"),
           method="exp", inplace="exp_", supports_out=True),
]  # fmt: skip
