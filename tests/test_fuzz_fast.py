"""The differential fuzzer's fast profile, in the default run (issue 10): a fixed, derandomized
sample of generated calls over every op family, compared with PyTorch; the long campaign is
tests/parity/test_fuzz.py (``-m slow``) and ``python -m tests.parity.fuzz --calls N``.
Skipped where PyTorch is not installed (CI)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.parity.fuzz import FAMILIES, check  # noqa: E402
from tests.parity.fuzz.known import is_known  # noqa: E402

# the "done when" classes: a result or an input silently wrong, NumPy/Numba (or internal
# Python) errors reaching the user, bad input accepted. "numtorch raises where PyTorch returns"
# and "another exception type" are counted by the CLI report, not asserted here.
STRICT = ("modified", "numpy_text", "internal", "wrong", "accepted")


def run_profile(family: str, r) -> None:
    call = FAMILIES[family](r)
    cls, detail = check(call)
    if cls in STRICT and not is_known(cls, call.label()):
        pytest.fail(f"{cls}: {call!r}\n  -> {detail}")


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=12, derandomize=True, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(r=st.randoms(use_true_random=False))
def test_fuzz_fast_profile(family, r):
    run_profile(family, r)
