"""Helpers shared by the OpInfo-driven tests: NumPy <-> numtorch conversion of samples."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.testing._opinfo import op_db


def to_nt(x, requires_grad=False):
    if isinstance(x, np.ndarray):
        t = numtorch.from_numpy(x.copy() if not x.flags.c_contiguous else x.copy())
        if x.ndim and not x.flags.c_contiguous:
            # rebuild the same non-contiguous layout: a strided view of a wider tensor
            wide = numtorch.from_numpy(np.repeat(x, 2, axis=-1))
            t = wide[..., ::2] if hasattr(wide, "__getitem__") else t
        if requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(x, list):
        return [to_nt(v, requires_grad) for v in x]
    if isinstance(x, tuple):
        return tuple(to_nt(v, requires_grad) for v in x)
    if isinstance(x, dict):  # keyword arguments (e.g. a loss's class weights), never differentiated
        return {k: to_nt(v) for k, v in x.items()}
    return x


def to_np(x):
    if isinstance(x, numtorch.Tensor):
        return x.detach().numpy() if hasattr(x, "detach") else x.numpy()
    if isinstance(x, (tuple, list)):
        return type(x)(to_np(v) for v in x) if type(x) in (tuple, list) else tuple(to_np(v) for v in x)
    return x


def cases(filter_fn=lambda info: True, dtypes=None):
    for info in op_db:
        if not filter_fn(info):
            continue
        for dt in dtypes or info.dtypes:
            yield info, dt


def ids(case):
    info, dt = case
    return f"{info.name}-{dt}"
