"""Recurrent layers against torch from the same state_dict: outputs, final states and gradients
of input and every parameter (padded, batch_first, bidirectional, projected, packed), reprs, and
the word-level LSTM language model trained side by side."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

TOL = {"rtol": 1e-4, "atol": 1e-5}
CONFIGS = [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 3, "num_layers": 2}),
    ("LSTM", {"batch_first": True, "bias": False}), ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
]  # fmt: skip


def _pair(cls, kw, cell=False):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls)(5, 6, **kw)
    n = getattr(numtorch.nn, cls)(5, 6, **kw)
    n.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, n


def _first(h):
    return h[0] if isinstance(h, tuple) else h


def _check_grads(t, n, xt, xn):
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), **TOL)
    for (name, p), (name2, q) in zip(t.named_parameters(), n.named_parameters()):
        assert name == name2
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), **TOL, err_msg=name)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("cls,kw", CONFIGS, ids=str)
def test_layer_matches_torch(cls, kw):
    t, n = _pair(cls, kw)
    x = np.random.default_rng(0).standard_normal((7, 3, 5)).astype(np.float32)
    xt, xn = torch.tensor(x, requires_grad=True), numtorch.tensor(x, requires_grad=True)
    (ot, ht), (on, hn) = t(xt), n(xn)
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), **TOL)
    np.testing.assert_allclose(_first(hn).detach().numpy(), _first(ht).detach().numpy(), **TOL)
    (ot.sin().sum() + _first(ht).pow(2).sum()).backward()
    (on.sin().sum() + _first(hn).pow(2).sum()).backward()
    _check_grads(t, n, xt, xn)
    assert repr(n) == repr(t)


@pytest.mark.parametrize("cls,kw", [("LSTM", {"bidirectional": True}), ("GRU", {"num_layers": 2})], ids=str)
def test_packed_matches_torch(cls, kw):
    t, n = _pair(cls, {"batch_first": True, **kw})
    x = np.random.default_rng(1).standard_normal((4, 6, 5)).astype(np.float32)
    lens = [3, 6, 1, 4]
    xt, xn = torch.tensor(x, requires_grad=True), numtorch.tensor(x, requires_grad=True)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt, lens, batch_first=True, enforce_sorted=False)
    pn = numtorch.nn.utils.rnn.pack_padded_sequence(xn, lens, batch_first=True, enforce_sorted=False)
    (ot, ht), (on, hn) = t(pt), n(pn)
    ot, _ = torch.nn.utils.rnn.pad_packed_sequence(ot, batch_first=True)
    on, _ = numtorch.nn.utils.rnn.pad_packed_sequence(on, batch_first=True)
    np.testing.assert_allclose(on.detach().numpy(), ot.detach().numpy(), **TOL)
    np.testing.assert_allclose(_first(hn).detach().numpy(), _first(ht).detach().numpy(), **TOL)
    (ot.pow(2).sum() + _first(ht).sum()).backward()
    (on.pow(2).sum() + _first(hn).sum()).backward()
    _check_grads(t, n, xt, xn)


@pytest.mark.parametrize("cls", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cell_matches_torch(cls):
    t, n = _pair(cls, {})
    x = np.random.default_rng(2).standard_normal((2, 5)).astype(np.float32)
    xt, xn = torch.tensor(x, requires_grad=True), numtorch.tensor(x, requires_grad=True)
    a, b = _first(t(xt)), _first(n(xn))
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **TOL)
    a.sum().backward()
    b.sum().backward()
    _check_grads(t, n, xt, xn)


def test_default_init_matches_torch_distribution():
    n = numtorch.nn.GRU(5, 16)
    w = n.weight_hh_l0.detach().numpy()
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2  # U(-1/sqrt(16), 1/sqrt(16))


def test_lstm_language_model_trains_like_torch():
    """The same LM from the same weights and data: losses equal step by step within float32."""
    def build(lib):
        class LM(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = lib.nn.Embedding(12, 8)
                self.rnn = lib.nn.LSTM(8, 16, num_layers=2)
                self.dec = lib.nn.Linear(16, 12)

            def forward(self, x):
                return self.dec(self.rnn(self.emb(x))[0])

        return LM()

    torch.manual_seed(0)
    tm, nm = build(torch), build(numtorch)
    nm.load_state_dict({k: numtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    data = np.random.default_rng(3).integers(0, 12, (9, 4))
    losses = []
    for lib, m in ((torch, tm), (numtorch, nm)):
        opt = lib.optim.SGD(m.parameters(), lr=0.5)
        x, y = lib.tensor(data[:-1]), lib.tensor(data[1:])
        run = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(m(x).reshape(-1, 12), y.reshape(-1))
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
