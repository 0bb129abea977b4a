"""The float32 ulp of float64 reference values, shared by the vmath kernel tests."""

import numpy as np


def ulp32(want):
    """The spacing of float32 at each |want| (2**-149 below float32's smallest normal)."""
    a = np.abs(want)
    return np.where(a >= np.finfo(np.float32).tiny, np.spacing(a.astype(np.float32)).astype(np.float64), 2.0**-149)
