"""The differential fuzzer's long profile (``-m slow``, like all of tests/parity): many more
derandomized calls per op family than the default run's tests/test_fuzz_fast.py."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.parity.fuzz import FAMILIES  # noqa: E402
from tests.test_fuzz_fast import run_profile  # noqa: E402


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=200, derandomize=True, deadline=None, database=None,
          phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))  # fmt: skip
@given(r=st.randoms(use_true_random=False))
def test_fuzz_long_profile(family, r):
    run_profile(family, r)
