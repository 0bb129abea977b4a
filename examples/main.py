"""Train a small CNN on scikit-learn's bundled 8x8 digits with numtorch (no download).

The model uses the note's custom ``Linear`` module (an ``nn.Module`` around the note's
``LinearFunction``). Prints a progress bar and a loss/accuracy line per epoch, saves the loss
curve to ``loss_curve.png`` and checks that test accuracy reaches 97%.

Run: python examples/main.py [--epochs N] [--plot PATH]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch.autograd import Function
from numtorch.utils.data import DataLoader, TensorDataset


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    """The note's custom Linear module."""

    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        bound = 1.0 / input_features**0.5  # a better init than the note's +-0.1 for training
        nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return "input_features={}, output_features={}, bias={}".format(
            self.input_features, self.output_features, self.bias is not None
        )


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.flatten = nn.Flatten()
        self.fc1 = Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.flatten(self.features(x))
        return self.fc2(torch.relu(self.fc1(x)))


def load_digits(seed: int = 0):
    from sklearn.datasets import load_digits as sk_load

    data = sk_load()
    x = (data.images / 16.0).astype(np.float32)[:, None, :, :]
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    split = int(0.8 * len(x))
    tr, te = order[:split], order[split:]
    return (torch.from_numpy(x[tr]), torch.from_numpy(y[tr])), (torch.from_numpy(x[te]), torch.from_numpy(y[te]))


def progress(epoch: int, done: int, total: int, loss: float) -> None:
    width = 30
    filled = int(width * done / total)
    bar = "#" * filled + "-" * (width - filled)
    sys.stdout.write(f"\repoch {epoch:2d} [{bar}] {done:3d}/{total} loss {loss:.4f}")
    sys.stdout.flush()


def evaluate(model, x, y) -> float:
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
    model.train()
    return (pred == y).float().mean().item()


def save_plot(losses: list[float], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipping the loss plot")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(np.arange(1, len(losses) + 1), losses, marker="o")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss")
    ax.set_title("numtorch CNN on 8x8 digits")
    fig.tight_layout()
    fig.savefig(path)
    print(f"saved loss curve to {path}")


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--plot", default="loss_curve.png")
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    (xtr, ytr), (xte, yte) = load_digits()
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(0))  # fmt: skip
    model = DigitsCNN()
    print(model)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        total, seen = 0.0, 0
        for i, (xb, yb) in enumerate(loader, 1):
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            seen += len(xb)
            progress(epoch, i, len(loader), total / seen)
        losses.append(total / seen)
        acc = evaluate(model, xte, yte)
        print(f"\repoch {epoch:2d}  loss {losses[-1]:.4f}  test accuracy {acc:.2%}  ({time.perf_counter() - t0:.2f} s)" + " " * 20)
    save_plot(losses, args.plot)
    acc = evaluate(model, xte, yte)
    print(f"final test accuracy: {acc:.2%}")
    if acc < 0.97:
        raise SystemExit(f"accuracy {acc:.2%} is below the 97% target")
    return acc


if __name__ == "__main__":
    main()
