"""CUDA results against CPU results over the pointwise OpInfo table (small sizes: the CI lane
runs every kernel under Numba's CUDA simulator, where each thread is a Python thread)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.ops._registry import OPS
from numtorch.testing._opinfo import pointwise as _pw

from ._sim import convert, host, requires_cuda

pytestmark = requires_cuda
_CASES = [(info, dt) for info in _pw.OPINFOS for dt in ("float32", "int64") if dt in info.dtypes]
_CASES += [(info, info.dtypes[0]) for info in _pw.OPINFOS if not {"float32", "int64"} & set(info.dtypes)]


def _calls(fn, sample, device):
    args = convert(sample.args, device)
    kwargs = convert(sample.kwargs, device)
    try:
        return fn(convert(sample.input, device), *args, **kwargs), None
    except Exception as e:  # compared below: CPU and CUDA must fail alike
        return None, e


def _numel(sample) -> int:
    return sum(a.size for a in (sample.input, *sample.args) if isinstance(a, np.ndarray))


@pytest.mark.parametrize("case", _CASES, ids=lambda c: f"{c[0].name}-{c[1]}")
def test_cuda_matches_cpu_or_refuses_by_name(case):
    info, dtype = case
    fn = info.resolve()
    rtol, atol = info.tolerance(dtype)
    samples = sorted(info.sample_inputs(dtype, np.random.default_rng(0)), key=_numel)[:3]
    for sample in samples:
        want, cpu_err = _calls(fn, sample, "cpu")
        got, cuda_err = _calls(fn, sample, "cuda")
        if isinstance(cuda_err, NotImplementedError) and "from the 'CUDA' backend" in str(cuda_err):
            assert str(cuda_err).startswith("Could not run 'aten::"), cuda_err
            continue  # an op without a CUDA kernel says so: it never runs on the CPU instead
        if cpu_err is not None:
            assert cuda_err is not None and type(cuda_err) is type(cpu_err), (sample, cpu_err, cuda_err)
            continue
        if cuda_err is not None:
            raise AssertionError(f"{sample}: CUDA raised {cuda_err!r}") from cuda_err
        if not isinstance(want, (numtorch.Tensor, tuple, list)):
            assert got == want, sample
            continue
        assert _device_of(got) == "cuda", sample
        np.testing.assert_allclose(host(got), host(want), rtol=max(rtol, 1e-5), atol=max(atol, 1e-5),
                                   equal_nan=True, err_msg=str(sample))  # fmt: skip


def _device_of(r) -> str:
    if isinstance(r, numtorch.Tensor):
        return r.device.type
    return _device_of(r[0])


def test_every_pointwise_declaration_has_a_cuda_kernel():
    numtorch.cuda.init()
    missing = [name for name, op in OPS.items() if getattr(op, "pointwise", None) and "cuda" not in op.impls]
    assert not missing
