"""The sweep's broadcast cases (benchmarks/sweep.py BROADCASTS): every binary arithmetic and
comparison op named there gets ``<op>@<kind>`` entries whose operands broadcast as named, at the
small and the large size; the same-shape entries keep their names."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import sweep


def test_broadcast_entries_keep_the_old_names():
    ids = sweep.entry_ids()
    for name in sweep.BROADCAST_OPS:
        assert name in ids
        for kind in sweep.BROADCASTS:
            assert (
                f"{name}@{kind}" in ids
                and sweep.entries()[f"{name}@{kind}"] is sweep.entries()[name]
            )
    assert not any("@" in e for e in ids[: ids.index("add@bias")])  # appended after the table


@pytest.mark.parametrize("kind", list(sweep.BROADCASTS))
@pytest.mark.parametrize("size", sweep.SIZES)
def test_broadcast_cases_broadcast(kind, size):
    import numtorch

    _, (x, (y,), kw) = sweep.plan(f"mul@{kind}", size, "fwd", ("numtorch",))
    want = sweep.BROADCASTS[kind][sweep.SIZES.index(size)]
    assert (x.shape, y.shape) == want and not kw
    assert (
        x.dtype == y.dtype == np.float32 and (np.abs(x) >= 0.5).all() and (np.abs(y) >= 0.5).all()
    )
    out = sweep.build(f"mul@{kind}", size, "fwd", "numtorch", ("numtorch",))()
    assert isinstance(out, numtorch.Tensor) and out.shape == np.broadcast_shapes(x.shape, y.shape)
    sweep.build(f"div@{kind}", size, "fwd+bwd", "numtorch", ("numtorch",))()  # a backward runs
