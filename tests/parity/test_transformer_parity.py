"""Transformer layers against torch from the same state_dict: outputs and gradients with masks,
key padding masks, norm_first, gelu and batch_first; reprs and parameter names."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

TOL = {"rtol": 1e-4, "atol": 2e-5}


def _load(t, n):
    n.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu", "batch_first": True}], ids=str)
def test_transformer_matches_torch(kw):
    torch.manual_seed(0)
    t = torch.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, **kw)
    n = numtorch.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, **kw)
    _load(t, n)
    rng = np.random.default_rng(0)
    s, g = rng.standard_normal((5, 3, 16)).astype(np.float32), rng.standard_normal((4, 3, 16)).astype(np.float32)
    if kw:
        s, g = s.transpose(1, 0, 2).copy(), g.transpose(1, 0, 2).copy()
    kpm = np.zeros((3, 5), bool)
    kpm[1, 3:] = True
    st, sn = torch.tensor(s, requires_grad=True), numtorch.tensor(s, requires_grad=True)
    a = t(st, torch.tensor(g), tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4),
          src_key_padding_mask=torch.tensor(kpm))  # fmt: skip
    b = n(sn, numtorch.tensor(g), tgt_mask=numtorch.nn.Transformer.generate_square_subsequent_mask(4),
          src_key_padding_mask=numtorch.tensor(kpm))  # fmt: skip
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **TOL)
    a.pow(2).sum().backward()
    b.pow(2).sum().backward()
    np.testing.assert_allclose(sn.grad.numpy(), st.grad.numpy(), **TOL)
    for (k, p), (k2, q) in zip(t.named_parameters(), n.named_parameters()):
        assert k == k2
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), **TOL, err_msg=k)
    assert repr(n) == repr(t)


def test_encoder_layer_matches_torch_in_training_shapes():
    torch.manual_seed(1)
    t = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    n = numtorch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    _load(t, n)
    x = np.random.default_rng(1).standard_normal((2, 6, 32)).astype(np.float32)
    a = t(torch.tensor(x), is_causal=True, src_mask=torch.nn.Transformer.generate_square_subsequent_mask(6))
    b = n(numtorch.tensor(x), is_causal=True, src_mask=numtorch.nn.Transformer.generate_square_subsequent_mask(6))
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **TOL)
