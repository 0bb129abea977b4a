"""Regressions from the differential fuzzer's seeds 90- (issue 10, session 10), each against torch:
the call's result (dtype, shape, values) or its exception (type and text) must be torch's."""

from __future__ import annotations

import pytest

from .test_fuzz_seeds_parity import _same_as_torch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.cosine_similarity(T.full((1, 2, 3), 1e30) * T.tensor([1.0, -1.0, 1e-30]),
                                                T.tensor(-2.3), dim=0),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e-30), dim=1),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e-30, dtype=T.complex64), 2, dim=1),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e30), 3, dim=1),
])  # fmt: skip
def test_the_norm_of_one_element_is_its_magnitude(call):
    # seed 93: the float32 square of 1e30 overflowed (of 1e-30 underflowed), so cosine_similarity
    # gave -0.0 where torch gives -1.0
    _same_as_torch(call)
