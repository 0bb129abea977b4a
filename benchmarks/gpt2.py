"""The GPT-2-style training step of the performance and compile issues, for any library with
torch's API: a minimal GPT as the common small implementations write it (pre-LayerNorm blocks,
causal self-attention written out with masked_fill + softmax, tanh-free exact GELU MLP, tied
embeddings), 2 layers, 2 heads, n_embd 64, block 32, a batch of 4 sequences in 2 micro-batches,
AdamW with two parameter groups (weight decay on matrices only) and ``clip_grad_norm_``.
Import-safe: nothing is built at import.
"""

from __future__ import annotations

import math

import numpy as np

CONFIG = {"vocab": 65, "block": 32, "n_layer": 2, "n_head": 2, "n_embd": 64, "batch": 4, "micro": 2}


def build(L, seed: int = 1234, config=CONFIG):
    """The model (an ``L.nn.Module``) with fixed-seed weights."""
    nn, F = L.nn, L.nn.functional
    c = config
    L.manual_seed(seed)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.proj = nn.Linear(c["n_embd"], 3 * c["n_embd"]), nn.Linear(c["n_embd"], c["n_embd"])
            self.register_buffer("mask", L.tril(L.ones(c["block"], c["block"])).view(1, 1, c["block"], c["block"]))

        def forward(self, x):
            b, t, e = x.shape
            h = c["n_head"]
            q, k, v = self.qkv(x).split(e, dim=2)
            q, k, v = (z.view(b, t, h, e // h).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(e // h))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
            return self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, e))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.attn = nn.LayerNorm(c["n_embd"]), Attention()
            self.ln2 = nn.LayerNorm(c["n_embd"])
            self.fc, self.out = nn.Linear(c["n_embd"], 4 * c["n_embd"]), nn.Linear(4 * c["n_embd"], c["n_embd"])

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(c["vocab"], c["n_embd"]), nn.Embedding(c["block"], c["n_embd"])
            self.blocks = nn.ModuleList([Block() for _ in range(c["n_layer"])])
            self.ln_f = nn.LayerNorm(c["n_embd"])
            self.head = nn.Linear(c["n_embd"], c["vocab"], bias=False)
            self.head.weight = self.wte.weight  # tied, as GPT-2

        def forward(self, idx, targets):
            t = idx.shape[1]
            x = self.wte(idx) + self.wpe(L.arange(t, device=idx.device))
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))

    model = GPT()
    rs = np.random.RandomState(seed)  # GPT-2's N(0, 0.02) weights, the same in every library
    with L.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.copy_(L.from_numpy((rs.randn(*p.shape) * 0.02).astype(np.float32)))
    return model


def batches(L, seed: int = 1234, config=CONFIG) -> list:
    """(idx, targets) per micro-batch, fixed-seed token ids."""
    rs = np.random.RandomState(seed)
    c = config
    out = []
    for _ in range(c["micro"]):
        ids = rs.randint(0, c["vocab"], size=(c["batch"] // c["micro"], c["block"] + 1)).astype(np.int64)
        out.append((L.from_numpy(ids[:, :-1].copy()), L.from_numpy(ids[:, 1:].copy())))
    return out


def optimizer(L, model):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}]
    return L.optim.AdamW(groups, lr=3e-4, betas=(0.9, 0.95))


def train_step(L, compiled: bool = False, config=CONFIG, device: str = "cpu"):
    """A zero-argument callable running one training step (returns the last micro-batch loss);
    ``compiled``: the model's forward through ``L.compile``; ``device``: where model and data live."""
    model = build(L, config=config).to(device)
    run = L.compile(model) if compiled else model
    opt = optimizer(L, model)
    data = [(i.to(device), t.to(device)) for i, t in batches(L, config=config)]

    def step():
        for idx, tgt in data:
            loss = run(idx, tgt) / len(data)
            loss.backward()
        L.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    return step
