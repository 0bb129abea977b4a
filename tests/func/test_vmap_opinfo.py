"""vmap against a Python loop for every OpInfo entry (values and out_dims), float64 samples.

The first tensor argument is batched (three different samples of its shape); the others stay
unbatched. Entries whose per-sample call returns a non-tensor, or uses randomness, are skipped
with a reason."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as nt
from numtorch.testing._opinfo import op_db

# values that depend on memory, not on the samples: nothing to compare
_SKIP = {"empty_like", "Tensor.new_empty", "Tensor.new_empty_strided", "as_strided", "Tensor.resize_",
         "resize_as_"}  # fmt: skip
# per-sample results of data-dependent shape: vmap raises PyTorch's error (argwhere: numtorch's
# composite reaches nonzero, which PyTorch's argwhere reaches through its loop fallback instead)
_DYNAMIC = {"unique", "nonzero", "argwhere"}
_ENTRIES = [o for o in op_db if "float64" in o.dtypes and not o.nondeterministic and o.name not in _SKIP]


def _t(a):
    return nt.tensor(a) if isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("info", _ENTRIES, ids=lambda o: o.name)
def test_vmap_matches_loop(info):
    fn = info.resolve()
    rng = np.random.default_rng(0)
    ran = 0
    for s in info.sample_inputs("float64", rng)[:4]:
        if not isinstance(s.input, np.ndarray) or s.input.ndim == 0 or s.input.size == 0:
            continue
        args = tuple(_t(a) for a in s.args)
        kwargs = {k: _t(v) for k, v in s.kwargs.items()}
        xs = [s.input * (1 + 0.1 * k) for k in range(3)]
        try:
            ref = [fn(nt.tensor(x), *args, **kwargs) for x in xs]
        except Exception:
            continue
        if not all(isinstance(r, nt.Tensor) for r in ref):
            continue
        ref = nt.stack(ref)
        if info.name in _DYNAMIC:
            with pytest.raises(RuntimeError, match="vmap: We do not support batching operators that can output dynamic"):
                nt.vmap(lambda x: fn(x, *args, **kwargs))(nt.tensor(np.stack(xs)))
            ran += 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = nt.vmap(lambda x: fn(x, *args, **kwargs))(nt.tensor(np.stack(xs)))
            moved = nt.vmap(lambda x: fn(x, *args, **kwargs), out_dims=-1)(nt.tensor(np.stack(xs)))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-9, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(moved.numpy(), ref.movedim(0, -1).numpy(), rtol=1e-9, atol=1e-12, equal_nan=True)
        ran += 1
    if not ran:
        pytest.skip("no sample with a non-empty tensor input returning a tensor")
