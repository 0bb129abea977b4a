"""CosineSimilarity and PairwiseDistance."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_distances(rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    cos = nn.CosineSimilarity()(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    np.testing.assert_allclose(
        cos, (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    )
    d = nn.PairwiseDistance(p=1.0)(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    np.testing.assert_allclose(d, np.abs(a - b + 1e-6).sum(1))
    assert nn.PairwiseDistance(keepdim=True)(
        numtorch.from_numpy(a), numtorch.from_numpy(b)
    ).shape == (4, 1)
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"


def test_cosine_similarity_needs_floating_inputs():
    with pytest.raises(
        RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"
    ):
        nn.CosineSimilarity()(numtorch.tensor([[1, 2]]), numtorch.tensor([[1, 2]]))


def test_cosine_similarity_gradient_flows_through_the_eps_clamp():
    # PyTorch clamps clones of the norms in place under no_grad: a row whose norm is below eps
    # still gets the norm's gradient, d/dx (x . y) / (max(|x|, eps) |y|) with max's derivative 1
    a = np.array([[1e-9, 0.0, 0.0], [1.0, 2.0, 3.0]])
    b = np.array([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]])
    x = numtorch.tensor(a, requires_grad=True)
    y = numtorch.tensor(b, requires_grad=True)
    out = nn.functional.cosine_similarity(x, y)
    out.sum().backward()
    na, nb = np.linalg.norm(a, axis=1, keepdims=True), np.linalg.norm(b, axis=1, keepdims=True)
    ca, dot = np.maximum(na, 1e-8), (a * b).sum(1, keepdims=True)
    want = b / (ca * nb) - dot / (ca**2 * nb) * (a / na)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), dot[:, 0] / (ca * nb)[:, 0], rtol=1e-12)
    names = []
    node = out.grad_fn
    while node is not None:  # Sum <- Mul <- Div <- Clone <- LinalgVectorNorm
        names.append(type(node).__name__)
        node = next((n for n, _ in node.next_functions if n is not None and "Accumulate" not in type(n).__name__), None)
    assert "CloneBackward0" in names and "ClampMinBackward0" not in names, names
