"""Shared by the CUDA tests: they run where numtorch.cuda is available (a GPU, or Numba's CUDA
simulator, Note [When CUDA is available]); test_simulator.py runs them under the simulator in a
subprocess when the test process itself has no CUDA."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

requires_cuda = pytest.mark.skipif(not numtorch.cuda.is_available(), reason="no CUDA (see test_simulator.py)")


def convert(x, device: str):
    """A SampleInput value with NumPy arrays turned into tensors on ``device``."""
    if isinstance(x, np.ndarray):
        t = numtorch.from_numpy(x.copy())
        return t if device == "cpu" else t.to(device)
    if isinstance(x, list):
        return [convert(v, device) for v in x]
    if isinstance(x, tuple):
        return tuple(convert(v, device) for v in x)
    if isinstance(x, dict):
        return {k: convert(v, device) for k, v in x.items()}
    return x


def host(r):
    if isinstance(r, numtorch.Tensor):
        return r.cpu().numpy() if r.is_cuda else r.numpy()
    if isinstance(r, (tuple, list)):
        return type(r)(host(v) for v in r) if type(r) in (tuple, list) else tuple(host(v) for v in r)
    return r


def spy_launches(monkeypatch, module) -> list:
    """The names of the kernels ``module`` launches through its ``run`` / ``launch`` (each
    patched to record, then launch), for tests that a path is taken."""
    names: list = []
    for attr in ("run", "launch"):
        real = getattr(module, attr, None)
        if real is None:
            continue

        def spy(kernel, *a, _real=real, **kw):
            names.append(kernel.py_func.__name__)
            return _real(kernel, *a, **kw)

        monkeypatch.setattr(module, attr, spy)
    return names
