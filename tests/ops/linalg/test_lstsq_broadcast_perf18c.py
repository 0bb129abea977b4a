"""linalg.lstsq's batch broadcast (decomp._broadcast_copy): an operand whose batch dims broadcast
gives bit for bit what the same operand materialised at the full batch gives, every output and
driver, real and complex, vector right-hand sides included."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import decomp as LD


def _full(x, batch):
    return x.expand(*batch, *x.shape[-2:]).contiguous()


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.complex64])
@pytest.mark.parametrize("driver", [None, "gelsd", "gelss", "gelsy"])
def test_broadcast_batches_give_the_materialised_results(dt, driver, monkeypatch):
    calls = []
    real = LD._broadcast_copy
    monkeypatch.setattr(LD, "_broadcast_copy", lambda x, b: calls.append(b) or real(x, b))
    g = torch.Generator().manual_seed(18)
    for sa, sb in [
        ((2, 4, 2), (1, 4, 1)),
        ((1, 5, 3), (3, 5, 2)),
        ((2, 1, 4, 2), (1, 3, 4, 1)),
        ((3, 1, 4, 2), (1, 2, 4, 2)),
    ]:
        A = torch.randn(sa, generator=g, dtype=dt)
        B = torch.randn(sb, generator=g, dtype=dt)
        batch = torch.broadcast_shapes(sa[:-2], sb[:-2])
        n = len(calls)
        got = torch.linalg.lstsq(A, B, driver=driver)
        assert len(calls) > n
        want = torch.linalg.lstsq(_full(A, batch), _full(B, batch), driver=driver)
        for x, y in zip(got, want, strict=True):
            assert x.shape == y.shape and x.dtype == y.dtype and x.stride() == y.stride()
            assert x.numpy().tobytes() == y.numpy().tobytes()


def test_broadcast_copy_is_the_reshaped_broadcast_view():
    x = np.arange(6.0, dtype=np.float32).reshape(1, 3, 2)[:, ::-1]
    got = LD._broadcast_copy(x, (4, 2))
    want = np.broadcast_to(x, (4, 2, 3, 2)).reshape(8, 3, 2)
    assert got.flags.c_contiguous and got.reshape(8, 3, 2).tobytes() == want.tobytes()
