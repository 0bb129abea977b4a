"""Transformer layers: masks, shapes, gradcheck in float64, and a small encoder classifier that trains."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.autograd import gradcheck


def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    expected = np.triu(np.full((3, 3), -np.inf), 1)
    np.testing.assert_array_equal(m.numpy(), expected)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_grad_matches_finite_differences(norm_first):
    numtorch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, norm_first=norm_first, activation=nn.functional.gelu,
                                       dtype=numtorch.float64)  # fmt: skip
    x = numtorch.randn(3, 2, 4, dtype=numtorch.float64, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=numtorch.float64)
    assert gradcheck(lambda x: layer(x, src_mask=mask), (x,))


def test_key_padding_mask_hides_padded_positions():
    numtorch.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2)
    x = numtorch.randn(1, 5, 8)
    pad = numtorch.tensor([[False, False, False, True, True]])
    a = enc(x, src_key_padding_mask=pad)
    x2 = x.clone()
    x2[0, 3:] = 100.0  # the padded positions must not change the others
    b = enc(x2, src_key_padding_mask=pad)
    np.testing.assert_allclose(a[0, :3].detach().numpy(), b[0, :3].detach().numpy(), atol=1e-5)


def test_decoder_causal_mask_makes_steps_independent_of_the_future():
    numtorch.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    src, tgt = numtorch.randn(4, 1, 8), numtorch.randn(3, 1, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    a = model(src, tgt, tgt_mask=mask)
    tgt2 = tgt.clone()
    tgt2[2] = 5.0
    b = model(src, tgt2, tgt_mask=mask)
    np.testing.assert_allclose(a[:2].detach().numpy(), b[:2].detach().numpy(), atol=1e-5)


def test_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(numtorch.zeros(3, 2, 8), numtorch.zeros(3, 1, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        model(numtorch.zeros(3, 2, 4), numtorch.zeros(3, 2, 4))


def test_transformer_encoder_classifier_trains():
    """Classify whether token 1 occurs in a sequence: embedding, 2-layer encoder, mean pool,
    linear; written as for PyTorch. Bound: cross-entropy < 0.1 (chance is ln 2 = 0.69)."""
    numtorch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens = rng.integers(2, 10, (64, 8))
    labels = rng.integers(0, 2, 64)
    tokens[labels == 1, rng.integers(0, 8, int(labels.sum()))] = 1
    x, y = numtorch.tensor(tokens), numtorch.tensor(labels)

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 16)
            layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 2)
            self.out = nn.Linear(16, 2)

        def forward(self, x):
            return self.out(self.enc(self.emb(x)).mean(1))

    model = Classifier()
    opt = numtorch.optim.Adam(model.parameters(), lr=0.005)
    for _ in range(80):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.1
