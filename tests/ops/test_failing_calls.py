"""The rule over the whole registry: a call that fails leaves its inputs and its ``out=``
tensors untouched (issue 10). Every OpInfo with ``out=`` is called with out tensors PyTorch
refuses (a dtype the result cannot be cast to, a wrong dtype for one output of a tuple,
expanded memory); every in-place variant with a destination it refuses (expanded memory, a
dtype the result cannot be cast into). Whether such a call raises is each op's business (the
fuzzer in tests/parity/fuzz compares that with PyTorch); when it does raise, nothing it was
given may have changed: PyTorch validates before it writes."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.testing._opinfo import op_db

from ._harness import to_nt

_SAMPLES = 2  # per op: the first samples cover the op's argument forms; all of them cost minutes


def _preferred(info) -> str:
    return "float32" if "float32" in info.dtypes else info.dtypes[0]


def _takes_out(info) -> bool:
    # the binding's signature, not OpInfo.supports_out: that flag marks single-tensor out= only
    # (the value tests' form), and the (values, indices) ops need this rule most
    try:
        return "out" in inspect.signature(info.resolve()).parameters
    except (AttributeError, TypeError, ValueError):
        return False


OUT_CASES = [(i, _preferred(i)) for i in op_db if _takes_out(i) and not i.nondeterministic]
INPLACE_CASES = [(i, _preferred(i)) for i in op_db if i.inplace and not i.nondeterministic]


def _tensors(x, found: list) -> list:
    if isinstance(x, numtorch.Tensor):
        found.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _tensors(v, found)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, found)
    return found


def _snap(ts):
    return [(tuple(t.shape), t.dtype, t.detach().clone().numpy().copy()) for t in ts]


def _assert_untouched(before, ts, what):
    for i, ((shape, dt, vals), t) in enumerate(zip(before, ts, strict=True)):
        assert (tuple(t.shape), t.dtype) == (shape, dt), f"{what}: tensor {i} changed shape/dtype"
        now = t.detach().clone().numpy()
        assert np.array_equal(now, vals, equal_nan=vals.dtype.kind in "fc"), f"{what}: tensor {i} was written"


def _call_expecting_no_write(fn, args, kwargs, what):
    """Call; if it raises, every tensor among the arguments must be as it was."""
    ts = _tensors((args, kwargs), [])
    before = _snap(ts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 -- any refusal; the point is what it left behind
            _assert_untouched(before, ts, f"{what} raised {type(e).__name__}: {e}")
            return True
    return False


def _refused_dtype(dt) -> numtorch.dtype | None:
    """A dtype PyTorch refuses to cast a ``dt`` result into (None for bool: it casts anywhere)."""
    if dt.is_complex:
        return numtorch.float64
    if dt.is_floating_point:
        return numtorch.int64
    if dt != numtorch.bool:
        return numtorch.bool
    return None


def _bad_outs(expected):
    """(name, out) pairs PyTorch refuses, for a result ``expected`` (a tensor or a tuple)."""
    res = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    bad = []
    for i, r in enumerate(res):
        wrong = _refused_dtype(r.dtype) if len(res) == 1 else (numtorch.int32 if r.dtype == numtorch.int64 else numtorch.int64)
        if wrong is None:
            continue
        outs = [numtorch.zeros(0, dtype=x.dtype) for x in res]
        outs[i] = numtorch.zeros(0, dtype=wrong)
        bad.append((f"out[{i}] {wrong}", outs))
    if all(r.numel() > 1 and r.dim() for r in res):
        outs = [numtorch.zeros((1,) + tuple(r.shape[1:]), dtype=r.dtype).expand(*r.shape) for r in res]
        if all(o.stride(0) == 0 for o in outs):
            bad.append(("expanded out", outs))
    return [(n, o if len(res) > 1 else o[0]) for n, o in bad]


@pytest.mark.parametrize("case", OUT_CASES, ids=lambda c: c[0].name)
def test_failing_out_call_writes_nothing(case, rng):
    info, dtype = case
    fn = info.resolve()
    for s in info.sample_inputs(dtype, rng)[:_SAMPLES]:
        try:
            expected = fn(to_nt(s.input), *to_nt(s.args), **to_nt(s.kwargs))
        except Exception:  # noqa: BLE001 -- a sample the functional form refuses has no out= form
            continue
        if not isinstance(expected, (numtorch.Tensor, tuple, list)):
            continue
        for name, out in _bad_outs(expected):
            if isinstance(out, list):
                out = tuple(o.fill_(7) for o in out)
            else:
                out.fill_(7)
            args, kwargs = to_nt(s.args), dict(to_nt(s.kwargs), out=out)
            _call_expecting_no_write(fn, (to_nt(s.input), *args), kwargs, f"{info.name}({name})")


@pytest.mark.parametrize("case", INPLACE_CASES, ids=lambda c: c[0].name)
def test_failing_inplace_call_writes_nothing(case, rng):
    info, dtype = case
    for s in info.sample_inputs(dtype, rng)[:_SAMPLES]:
        x = to_nt(s.input)
        if not isinstance(x, numtorch.Tensor) or x.numel() < 2 or not x.dim():
            continue
        method = getattr(numtorch.Tensor, info.inplace)
        # expanded self: two elements at one address
        e = numtorch.zeros((1,) + tuple(x.shape[1:]), dtype=x.dtype).fill_(1).expand(*x.shape)
        if e.stride(0) == 0:
            _call_expecting_no_write(method, (e, *to_nt(s.args)), to_nt(s.kwargs), f"{info.inplace} expanded")
        # a destination the result cannot be cast into
        wrong = numtorch.bool if x.dtype != numtorch.bool else None
        if wrong is not None:
            y = x.to(wrong)
            _call_expecting_no_write(method, (y, *to_nt(s.args)), to_nt(s.kwargs), f"{info.inplace} into {wrong}")


def test_rule_catches_a_write_before_a_refusal():
    """The test's own check fails on a call that writes and then raises."""

    def writes_then_raises(x, out):
        out.fill_(1)
        raise RuntimeError("refused")

    with pytest.raises(AssertionError, match="was written"):
        _call_expecting_no_write(writes_then_raises, (numtorch.zeros(2),), {"out": numtorch.zeros(2)}, "demo")


def test_sort_family_checks_every_out_before_writing():
    """sort/topk/max/min/kthvalue with out=(values, int32 indices): PyTorch's error, values untouched."""
    x = numtorch.tensor([3.0, 1.0, 2.0])
    calls = {
        "sort": lambda o: numtorch.sort(x, out=o),
        "topk": lambda o: numtorch.topk(x, 2, out=o),
        "max": lambda o: numtorch.max(x, 0, out=o),
        "min": lambda o: numtorch.min(x, 0, out=o),
        "kthvalue": lambda o: numtorch.kthvalue(x, 1, 0, out=o),
    }
    for name, call in calls.items():
        values, indices = numtorch.zeros(0), numtorch.zeros(0, dtype=numtorch.int32)
        # kthvalue's ATen kernel checks its outputs itself (_reduction_with_indices_allocate_or_resize_output)
        text = ("output indices must be of scalar type Long" if name == "kthvalue"
                else "Expected out tensor to have dtype long int, but got int instead")  # fmt: skip
        with pytest.raises(RuntimeError, match=text):
            call((values, indices))
        assert values.shape == (0,) and indices.shape == (0,), name
