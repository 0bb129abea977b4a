"""Index ops, where/masked_fill, argmax/cumsum, gelu, layer_norm, nll_loss/cross_entropy and a
small GPT on CUDA against the CPU (float64, tiny sizes: the simulator runs a Python thread per
CUDA thread)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(2)
H = rng.standard_normal((3, 4))
IDX = np.array([[2, 0, 1, 2], [1, 1, 0, 0]])


def _both(fn, *arrays):
    want = fn(*[numtorch.tensor(a) for a in arrays])
    got = fn(*[numtorch.tensor(a, device="cuda") for a in arrays])
    return got, want


def _same(got, want):
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


_CALLS = {
    "where": lambda x: numtorch.where(x > 0, x, x * 10),
    "where scalar": lambda x: numtorch.where(x > 0, 1.5, x),
    "where int promote": lambda x: numtorch.where(x > 0, (x * 3).long(), 2.5),
    "masked_fill": lambda x: x.masked_fill(x < 0, float("-inf")),
    "masked_fill bcast": lambda x: x.masked_fill(numtorch.tensor([True, False, True, False], device=x.device), 7),
    "masked_fill_": lambda x: _then(x.clone(), lambda y: y.masked_fill_(y > 0.5, 0.0)),
    "tril": lambda x: x.tril(),
    "triu -1": lambda x: x.triu(-1),
    "flip": lambda x: x.flip(0, 1),
    "argmax": lambda x: x.argmax(),
    "argmax dim": lambda x: x.argmax(1, keepdim=True),
    "argmin dim0": lambda x: x.argmin(0),
    "argmax nan": lambda x: _then(x.clone(), lambda y: y.__setitem__((1, 2), float("nan"))).argmax(1),
    "argmax int": lambda x: (x * 2).long().argmax(0),
    "max dim": lambda x: x.max(1).values,
    "min dim indices": lambda x: x.min(0, keepdim=True).indices,
    "cumsum": lambda x: x.cumsum(0),
    "cumsum int": lambda x: (x > 0).cumsum(1),
    "gather": lambda x: x.gather(1, numtorch.tensor(IDX[:, :3], device=x.device)),
    "index_select": lambda x: x.index_select(1, numtorch.tensor([3, 0, 3], device=x.device)),
    "index_select dim0": lambda x: x.index_select(0, numtorch.tensor([2, 2], device=x.device)),
    # distinct indices in a row: with repeats the value written is unspecified on a GPU (PyTorch's too)
    "scatter": lambda x: numtorch.zeros(3, 5, dtype=x.dtype, device=x.device).scatter(
        1, numtorch.tensor([[0, 4], [1, 3], [2, 0]], device=x.device), x[:, :2]),
    "scatter value": lambda x: x.scatter(0, numtorch.tensor([[1, 0, 2, 1]], device=x.device), -1.0),
    "scatter_add": lambda x: numtorch.zeros(2, 4, dtype=x.dtype, device=x.device).scatter_add(
        0, numtorch.tensor(IDX[:, :].clip(0, 1), device=x.device), x[:2]),
    "index_add": lambda x: x.index_add(0, numtorch.tensor([0, 0, 2], device=x.device), x * 2, alpha=0.5),
    "index_add_ dim1": lambda x: _then(x.clone(), lambda y: y.index_add_(1, numtorch.tensor([3, 3], device=x.device),
                                                                       x[:, :2])),
    "x[idx]": lambda x: x[numtorch.tensor([2, 0, 2], device=x.device)],
    "x[:, idx, idx]": lambda x: x.view(3, 2, 2)[:, numtorch.tensor([1, 0]), numtorch.tensor([[0], [-1]])],
    "x[mask]": lambda x: x[x > 0],
    "x[cpu idx]": lambda x: x[:, numtorch.tensor([3, 1])],
    "setitem idx": lambda x: _then(x.t(), lambda y: y.__setitem__(numtorch.tensor([0, 0], device=x.device), 9.0)),
    "setitem mask": lambda x: _then(x.clone(), lambda y: y.__setitem__(y < 0, y[y < 0] * 2)),
    "index_put accumulate": lambda x: x.index_put((numtorch.tensor([0, 0, 2], device=x.device),), x[:1] + 1,
                                                  accumulate=True),
}  # fmt: skip


def _then(t, fn):
    fn(t)
    return t


@pytest.mark.parametrize("name", list(_CALLS))
def test_ops_match_cpu(name):
    _same(*_both(_CALLS[name], H))


def _sync():
    numtorch.cuda.synchronize()


def test_index_errors_are_pytorchs_and_come_at_the_next_synchronising_call():
    # Note [Device-side index checks]: checked on the device, raised by the next synchronize()
    x = numtorch.tensor(H, device="cuda")
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, numtorch.tensor([3], device="cuda"))
        _sync()
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        x.gather(1, numtorch.tensor([[4]], device="cuda"))
        _sync()
    y = x.clone()
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        y.index_add_(0, numtorch.tensor([0, 3], device="cuda"), x[:2])
        _sync()
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(numtorch.tensor([5], device="cuda"), x)
        _sync()
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        x.masked_fill(x.long(), 0)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[numtorch.tensor([0, 3], device="cuda")] = 1.0  # advanced indexing: checked on the host, at once
    np.testing.assert_array_equal(x.cpu().numpy(), H)
    with pytest.raises(IndexError, match="Target 4 is out of bounds."):
        F.cross_entropy(x, numtorch.tensor([0, 4, 1], device="cuda"))
        _sync()
    with pytest.raises(RuntimeError, match="INDICES element is out of DATA bounds, id=-1 axis_dim=4"):
        x.index_select(1, numtorch.tensor([-1], device="cuda")).sum().item()  # item() synchronises too
    # each error is reported once, and the context stays usable
    _sync()
    np.testing.assert_array_equal(x.index_select(0, numtorch.tensor([2, 0], device="cuda")).cpu().numpy(), H[[2, 0]])


def test_index_checks_copy_nothing_to_the_host(monkeypatch):
    from numtorch.cuda import _storage

    copies = []
    real = _storage.CudaArray.copy_to_host
    monkeypatch.setattr(_storage.CudaArray, "copy_to_host", lambda self: copies.append(1) or real(self))
    x = numtorch.tensor(H, device="cuda", requires_grad=True)
    i = numtorch.tensor([2, 0], device="cuda")
    loss = F.cross_entropy(F.embedding(i, x), numtorch.tensor([3, 1], device="cuda"))
    loss = loss + x.index_select(0, i).sum() + x.gather(1, numtorch.tensor([[1], [0], [3]], device="cuda")).sum()
    loss.backward()
    assert copies == []


def test_synchronous_index_checks_come_first(monkeypatch):
    monkeypatch.setenv("NUMTORCH_CUDA_SYNC_CHECKS", "1")
    x = numtorch.tensor(H, device="cuda")
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, numtorch.tensor([3], device="cuda"))
    y = x.clone()
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        y.index_add_(0, numtorch.tensor([0, 3], device="cuda"), x[:2])
    np.testing.assert_array_equal(y.cpu().numpy(), H)  # nothing written
    with pytest.raises(IndexError, match="Target 4 is out of bounds."):
        F.cross_entropy(x, numtorch.tensor([0, 4, 1], device="cuda"))


_W = numtorch.tensor([0.5, 1.0, 2.0, 3.0], dtype=numtorch.float64)


def _grads(fn, *arrays, dev):
    ts = [numtorch.tensor(a, device=dev, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(*ts)
    w = numtorch.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape), device=dev)
    (out * w).sum().backward()
    return out.detach().cpu(), [t.grad.cpu() for t in ts if t.requires_grad]


_GRADS = {
    "gelu": (lambda x: F.gelu(x), (H,)),
    "gelu tanh": (lambda x: F.gelu(x, approximate="tanh"), (H,)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b), (H, rng.standard_normal(4), rng.standard_normal(4))),
    "layer_norm 2d shape": (lambda x: F.layer_norm(x, (3, 4)), (H,)),
    "embedding": (lambda w, i: F.embedding(i, w), (H, IDX)),
    "embedding padding": (lambda w, i: F.embedding(i, w, padding_idx=1), (H, IDX)),
    "embedding freq": (lambda w, i: F.embedding(i, w, scale_grad_by_freq=True), (H, IDX)),
    "cross_entropy": (lambda x, t: F.cross_entropy(x, t), (H, np.array([3, 0, 1]))),
    "cross_entropy ignore sum": (lambda x, t: F.cross_entropy(x, t, ignore_index=0, reduction="sum"),
                                 (H, np.array([3, 0, 1]))),
    "nll weight none": (lambda x, t: F.nll_loss(x.log_softmax(1), t, weight=_W.to(x.device), reduction="none"),
                        (H, np.array([3, 0, 1]))),
    "nll 1d": (lambda x, t: F.nll_loss(x, t), (H[0], np.array(2))),
    "gather": (lambda x: x.gather(0, numtorch.tensor(IDX[:, :3], device=x.device)), (H,)),
    "cumsum": (lambda x: x.cumsum(1), (H,)),
    "x[idx]": (lambda x: x[numtorch.tensor([1, 1, 0], device=x.device)], (H,)),
    "max dim": (lambda x: x.max(0).values, (H,)),
    "sdpa causal": (lambda x: F.scaled_dot_product_attention(x, x * 2, x, is_causal=True), (H.reshape(1, 3, 4),)),
}  # fmt: skip


# variants the default run can spare (the simulator is slow): run with -m slow
_SLOW = {"layer_norm 2d shape", "embedding freq", "cross_entropy ignore sum", "nll 1d", "sdpa causal"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n for n in _GRADS])
def test_values_and_gradients_match_cpu(name):
    fn, arrays = _GRADS[name]
    out_g, grads_g = _grads(fn, *arrays, dev="cuda")
    out_c, grads_c = _grads(fn, *arrays, dev="cpu")
    np.testing.assert_allclose(out_g.numpy(), out_c.numpy(), rtol=1e-12, atol=1e-12)
    assert len(grads_g) == len(grads_c) > 0
    for g, c in zip(grads_g, grads_c):
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-10, atol=1e-12)


class _Block(numtorch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        nn = numtorch.nn
        self.h, self.ln1, self.ln2 = heads, nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in self.qkv(self.ln1(x)).split(c, dim=2))
        att = (q @ k.transpose(-2, -1)) * (c // self.h) ** -0.5
        mask = numtorch.tril(numtorch.ones(t, t, device=x.device)) == 0
        y = (att.masked_fill(mask, float("-inf")).softmax(-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class _GPT(numtorch.nn.Module):
    def __init__(self, vocab=5, d=4, t=3):
        super().__init__()
        nn = numtorch.nn
        self.tok, self.pos, self.block = nn.Embedding(vocab, d), nn.Embedding(t, d), _Block(d, 2)
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(numtorch.arange(idx.shape[1], device=idx.device))
        return self.head(self.ln(self.block(x)))


def test_small_gpt_loss_and_gradients_match_cpu():
    # one training step's worth: embedding, layer_norm, masked attention, gelu MLP, cross-entropy
    numtorch.manual_seed(0)
    cpu = _GPT().double()
    gpu = _GPT().double()
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    idx, tgt = rng.integers(0, 5, (1, 3)), rng.integers(0, 5, (1, 3))
    losses = []
    for m, dev in ((cpu, "cpu"), (gpu, "cuda")):
        i, t = numtorch.tensor(idx, device=dev), numtorch.tensor(tgt, device=dev)
        loss = F.cross_entropy(m(i).view(-1, 5), t.view(-1))
        loss.backward()
        losses.append(loss.item())
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-12)
    for (n, p), q in zip(gpu.named_parameters(), cpu.parameters()):
        assert p.grad.device.type == "cuda", n
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=n)
