"""Embedding."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_embedding_init_padding_and_lookup():
    numtorch.manual_seed(0)
    emb = nn.Embedding(10, 4, padding_idx=-1)
    assert emb.padding_idx == 9 and emb.weight.shape == (10, 4)
    np.testing.assert_array_equal(emb.weight.detach().numpy()[9], np.zeros(4))
    out = emb(numtorch.tensor([[1, 9], [3, 3]]))
    assert out.shape == (2, 2, 4)
    np.testing.assert_array_equal(out.detach().numpy()[0, 0], emb.weight.detach().numpy()[1])
    out.sum().backward()
    np.testing.assert_array_equal(
        emb.weight.grad.numpy()[[1, 3, 9, 0]], [[1] * 4, [2] * 4, [0] * 4, [0] * 4]
    )
    assert repr(emb) == "Embedding(10, 4, padding_idx=9)"


def test_embedding_from_pretrained_freezes():
    w = numtorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad
    np.testing.assert_array_equal(emb(numtorch.tensor([1])).numpy(), [[3.0, 4.0]])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    with pytest.raises(
        AssertionError, match="Embeddings parameter is expected to be 2-dimensional"
    ):
        nn.Embedding.from_pretrained(numtorch.ones(3))


def test_embedding_padding_idx_bounds():
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=-4)
