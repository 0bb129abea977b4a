"""inference_mode and inference tensors against torch: which tensors are inference tensors, errors."""

from __future__ import annotations

import pytest

import numtorch

torch = pytest.importorskip("torch")

_CASES = {
    "mul_saves": lambda m, x, y: x * y, "add_saves_nothing": lambda m, x, y: (x + y).sum(),
    "add_": lambda m, x, y: x.add_(1), "zero_": lambda m, x, y: x.zero_(), "fill_": lambda m, x, y: x.fill_(2),
    "copy_": lambda m, x, y: x.copy_(m.zeros(3)), "setitem": lambda m, x, y: x.__setitem__(0, 5.0),
    "out": lambda m, x, y: m.mul(m.ones(3), 2, out=x), "version": lambda m, x, y: x._version,
    "requires_grad_": lambda m, x, y: x.requires_grad_(), "sin": lambda m, x, y: x.sin(),
    "view_is_inference": lambda m, x, y: x.view(3).is_inference(), "clone": lambda m, x, y: x.clone().is_inference(),
    "detach": lambda m, x, y: x.detach().is_inference(), "sum": lambda m, x, y: x.sum(),
}  # fmt: skip


def _run(m, case):
    with m.inference_mode():
        x = m.ones(3)
    y = m.ones(3, requires_grad=True)
    try:
        r = _CASES[case](m, x, y)
    except Exception as e:  # type and text are compared
        return type(e).__name__, str(e)
    return "ok", r.tolist() if hasattr(r, "tolist") else r


@pytest.mark.parametrize("case", sorted(_CASES))
def test_inference_tensor_use_outside_inference_mode(case):
    # torch writes before its in-place check fails (ADInplaceOrView bumps the version after the
    # kernel); numtorch raises before writing (tests/autograd/test_grad_mode.py checks that)
    assert _run(numtorch, case) == _run(torch, case)


def test_which_results_are_inference_tensors():
    def flags(m):
        n = m.ones(3)
        with m.inference_mode():
            x = m.ones(3)
            r = [x, x + 1, n + 1, n.view(3), x.view(3), n[0], m.zeros(2).sum()]
        return [t.is_inference() for t in r] + [n.is_inference()]

    assert flags(numtorch) == flags(torch)
