"""Recurrent layers: gradients of the layer op (gradcheck in float64 against finite differences),
packed sequences against the padded run, cells against the layers, errors, reprs and a small
word-level LSTM language model that trains."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.autograd import gradcheck
from numtorch.nn.utils import rnn as R

CONFIGS = [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 2}),
    ("GRU", {"bidirectional": True}), ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bias": False}),
]  # fmt: skip


def _layer(cls, kw):
    numtorch.manual_seed(0)
    return getattr(nn, cls)(3, 4, dtype=numtorch.float64, **kw)


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=lambda v: str(v))
def test_layer_grad_matches_finite_differences(cls, kw):
    m = _layer(cls, kw)
    x = numtorch.randn(4, 2, 3, dtype=numtorch.float64, requires_grad=True)
    D = 2 if m.bidirectional else 1
    h0 = numtorch.randn(m.num_layers * D, 2, m.proj_size or 4, dtype=numtorch.float64, requires_grad=True)
    c0 = numtorch.randn(m.num_layers * D, 2, 4, dtype=numtorch.float64, requires_grad=True)
    fn = getattr(numtorch, {"LSTM": "lstm", "GRU": "gru"}.get(cls, "rnn_" + m.nonlinearity if cls == "RNN" else ""))

    def f(x, h0, c0, *params):
        hx = [h0, c0] if cls == "LSTM" else h0
        res = fn(x, hx, list(params), m.bias, m.num_layers, 0.0, False, m.bidirectional, False)
        return res[0].sin().sum() + (res[1] * res[1]).sum() + (res[2].sum() if cls == "LSTM" else 0)

    assert gradcheck(f, (x, h0, c0, *[p.detach().requires_grad_() for p in m.parameters()]))


def test_packed_run_equals_padded_runs_per_sequence():
    m = _layer("LSTM", {"bidirectional": True})
    seqs = [numtorch.randn(n, 3, dtype=numtorch.float64) for n in (2, 5, 3)]
    out, (h, c) = m(R.pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = R.pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 5, 3]
    for i, s in enumerate(seqs):
        o1, (h1, _) = m(s)  # unbatched: the sequence alone, no padding
        np.testing.assert_allclose(padded[i, : len(s)].detach().numpy(), o1.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(h[:, i].detach().numpy(), h1.detach().numpy(), atol=1e-12)
        assert not padded[i, len(s):].any()


def test_packed_grad_matches_finite_differences():
    m = _layer("GRU", {})
    data = numtorch.randn(6, 3, dtype=numtorch.float64, requires_grad=True)
    bs = numtorch.tensor([3, 2, 1])

    def f(data):
        out, h = numtorch.gru(data, bs, numtorch.zeros(1, 3, 4, dtype=numtorch.float64),
                              list(m.parameters()), True, 1, 0.0, False, False)  # fmt: skip
        return out.tanh().sum() + h.sum()

    assert gradcheck(f, (data,))


@pytest.mark.parametrize("cell,mode", [("LSTMCell", "LSTM"), ("GRUCell", "GRU"), ("RNNCell", "RNN")])
def test_cell_steps_equal_the_layer(cell, mode):
    layer = _layer(mode, {})
    c = getattr(nn, cell)(3, 4, dtype=numtorch.float64)
    c.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
    x = numtorch.randn(5, 2, 3, dtype=numtorch.float64)
    out, _ = layer(x)
    h = None
    for t in range(5):
        h = c(x[t], h)
        ht = h[0] if mode == "LSTM" else h
        np.testing.assert_allclose(ht.detach().numpy(), out[t].detach().numpy(), atol=1e-12)


def test_cell_grad_matches_finite_differences():
    c = nn.LSTMCell(3, 4, dtype=numtorch.float64)
    x = numtorch.randn(2, 3, dtype=numtorch.float64, requires_grad=True)
    h = numtorch.randn(2, 4, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda x, h: numtorch.lstm_cell(x, (h, h), c.weight_ih, c.weight_hh)[1], (x, h))


def test_parameter_names_shapes_and_init_range():
    m = nn.LSTM(3, 8, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes["weight_ih_l0"] == (32, 3) and shapes["weight_hh_l0"] == (32, 2)
    assert shapes["weight_ih_l1_reverse"] == (32, 4) and shapes["weight_hr_l1_reverse"] == (2, 8)
    assert list(shapes)[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert all(p.abs().max().item() <= 8**-0.5 for p in m.parameters())
    assert repr(m) == "LSTM(3, 8, proj_size=2, num_layers=2, bidirectional=True)"
    m.flatten_parameters()
    assert len(m.all_weights) == 4


def test_batch_first_and_unbatched_shapes():
    m = nn.GRU(3, 4, batch_first=True)
    out, h = m(numtorch.randn(2, 5, 3))
    assert out.shape == (2, 5, 4) and h.shape == (1, 2, 4)
    out, h = m(numtorch.randn(5, 3))
    assert out.shape == (5, 4) and h.shape == (1, 4)


def test_errors_match_pytorch():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'."):
        nn.RNN(2, 3, nonlinearity="gelu")
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(2, 3, proj_size=3)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(2, 3, dropout=2)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(2, 3, dropout=0.5)
    m = nn.LSTM(2, 3)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 2, got 4"):
        m(numtorch.randn(5, 1, 4))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(numtorch.randn(5, 1, 1, 2))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 1, 3\), got \[1, 2, 3\]"):
        m(numtorch.randn(5, 1, 2), (numtorch.zeros(1, 2, 3), numtorch.zeros(1, 2, 3)))
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        R.pack_padded_sequence(numtorch.zeros(3, 2), [1, 3])


def test_word_level_lstm_language_model_trains():
    """Embedding -> 2-layer LSTM -> linear decoder on a repeating 12-word text, written as for
    PyTorch; the bound 0.3 nats per word is far below the uniform-guess 2.48 (ln 12)."""
    numtorch.manual_seed(0)
    vocab, T, B = 12, 10, 8
    stream = numtorch.tensor(([0, 3, 5, 7, 1, 2, 9, 11, 4, 6, 8, 10] * 20)[: T * B + 1])

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, 16)
            self.rnn = nn.LSTM(16, 32, num_layers=2)
            self.dec = nn.Linear(32, vocab)

        def forward(self, x, h=None):
            out, h = self.rnn(self.emb(x), h)
            return self.dec(out), h

    model = LM()
    opt = numtorch.optim.Adam(model.parameters(), lr=0.01)
    x = stream[:-1].view(B, T).t()
    y = stream[1:].view(B, T).t()
    for _ in range(60):
        opt.zero_grad()
        logits, _ = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    assert loss.item() < 0.3
