"""The meta device: shape inference without data, then deferred initialisation with to_empty.

A tensor on ``device="meta"`` has a shape, dtype and strides but no storage: every op computes
its output's metadata only. That makes two things cheap, exactly as in PyTorch:

1. Shape inference: build a model on meta and run a forward pass to learn every layer's output
   shape and the parameter/activation sizes, for any batch size, in no time and no memory.
2. Deferred initialisation: build a (possibly huge) model on meta, then ``to_empty`` it onto a
   real device, where the parameters get storage, and initialise them there.

Run: python examples/meta_device.py  (prints the inferred shapes and checks them)
"""

import math
import time

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F


class Net(nn.Module):
    """A small CNN with an attention-style head: convolution, normalisation, pooling, einsum."""

    def __init__(self, num_classes=10, width=32, device=None):
        super().__init__()
        kw = {"device": device}
        self.conv1 = nn.Conv2d(1, width, 3, padding=1, **kw)
        self.bn1 = nn.BatchNorm2d(width, **kw)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, padding=1, **kw)
        self.pool1 = nn.MaxPool2d(2)
        self.pool2 = nn.MaxPool2d(2)
        self.query = nn.Linear(2 * width, 2 * width, **kw)
        self.norm = nn.LayerNorm(2 * width, **kw)
        self.head = nn.Linear(2 * width, num_classes, **kw)

    def forward(self, x):
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.conv2(x)))  # (N, C, H, W)
        tokens = x.flatten(2).transpose(1, 2)  # (N, H*W, C)
        q = self.query(tokens)
        scores = torch.einsum("nqc,nkc->nqk", q, tokens) / math.sqrt(q.shape[-1])
        mixed = torch.einsum("nqk,nkc->nqc", scores.softmax(-1), tokens)
        return self.head(self.norm(mixed.mean(1)))


def infer_shapes(model, x):
    """Every leaf module's output shape for input ``x`` (forward hooks; nothing is computed)."""
    shapes = {}

    def hook(name):
        return lambda mod, inp, out: shapes.__setitem__(name, tuple(out.shape))

    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules() if not list(m.children())]
    out = model(x)
    for h in handles:
        h.remove()
    return out, shapes


def main():
    # 1. shape inference on meta: a batch of 4096 images costs nothing
    meta_model = Net(device="meta")
    x = torch.empty(4096, 1, 28, 28, device="meta")
    meta_model(torch.empty(1, 1, 28, 28, device="meta"))  # the first call compiles the CPU kernels
    t0 = time.perf_counter()
    out, shapes = infer_shapes(meta_model, x)
    took = time.perf_counter() - t0
    assert out.is_meta and tuple(out.shape) == (4096, 10)
    print(f"forward on meta for a batch of 4096 in {took * 1e3:.1f} ms, output {tuple(out.shape)}")
    for name, s in shapes.items():
        print(f"  {name:6s} -> {s}")
    n_params = sum(p.numel() for p in meta_model.parameters())
    act = sum(math.prod(s) for s in shapes.values()) * 4
    print(f"{n_params} parameters; leaf activations of one forward: {act / 2**20:.0f} MiB (float32)")
    assert all(p.is_meta for p in meta_model.parameters())

    # a model far too large for this machine: its metadata only
    huge = nn.Linear(200_000, 200_000, device="meta")
    gib = sum(p.numel() * p.element_size() for p in huge.parameters()) / 2**30
    print(f"Linear(200000, 200000) on meta: {gib:.0f} GiB of parameters, none allocated")
    assert huge.weight.shape == (200_000, 200_000) and huge.weight.is_meta

    # 2. deferred initialisation: storage on the real device, then each module's own init
    model = meta_model.to_empty(device="cpu")
    torch.manual_seed(0)
    for m in model.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    assert all(not p.is_meta and torch.isfinite(p).all() for p in model.parameters())
    real_x = torch.randn(8, 1, 28, 28)
    real_out, real_shapes = infer_shapes(model, real_x)
    # the meta pass predicted every shape (batch 4096 there, 8 here)
    assert real_shapes == {n: (8,) + s[1:] for n, s in shapes.items()}
    assert tuple(real_out.shape) == (8, 10)

    # the materialised model trains as usual
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    target = torch.randint(0, 10, (8,))
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = F.cross_entropy(model(real_x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print("training after to_empty: loss " + " -> ".join(f"{v:.3f}" for v in losses))
    assert losses[-1] < losses[0]
    print("meta shapes match the real run; the materialised model trains")


if __name__ == "__main__":
    main()
