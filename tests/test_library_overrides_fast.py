"""Note [Fast calls under kernel overrides]: a kernel registered over an aten op through
numtorch.library is called by the public functions whose fast calls compute without the
dispatcher (mm, bmm, index_select, ...), and the fast calls come back when it is removed."""

from __future__ import annotations

import numtorch as torch
from numtorch import _api


def _calls():
    a, b, idx = torch.randn(3, 4), torch.randn(4, 5), torch.tensor([0, 2])
    return {
        "mm": lambda: torch.mm(a, b),
        "bmm": lambda: torch.bmm(a[None], b[None]),
        "index_select": lambda: torch.index_select(a, 1, idx),
        "matmul": lambda: a @ b,
    }


def test_a_registered_kernel_is_called_by_fast_call_bindings():
    calls = _calls()
    want = {k: f() for k, f in calls.items()}  # the fast calls have run (and learned) first
    mm_fn = torch.mm
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def mark(name):
        def kernel(*args, **kwargs):
            seen.append(name)
            return torch.zeros(want[name].shape)

        return kernel

    for name in ("mm", "bmm", "index_select"):
        lib.impl(name, mark(name), "CPU")
    try:
        for name in ("mm", "bmm", "index_select"):
            assert calls[name]().abs().sum().item() == 0, name
        assert seen == ["mm", "bmm", "index_select"]
        assert mm_fn(*[torch.randn(2, 2)] * 2).abs().sum().item() == 0  # a reference held before
    finally:
        lib._destroy()
    assert _api._OVERRIDES[0] == 0 and not _api._SAVED
    for name, f in calls.items():
        r = f()
        assert r.numpy().tobytes() == want[name].numpy().tobytes(), name
    assert len(seen) == 4  # nothing called the removed kernel again


def test_a_meta_kernel_leaves_the_fast_calls():
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("mm", lambda a, b: torch.empty(a.shape[0], b.shape[1], device="meta"), "Meta")
    try:
        assert _api._OVERRIDES[0] == 0 and not _api._SAVED
    finally:
        lib._destroy()
