"""Train a small CNN on scikit-learn's bundled 8x8 digits with numtorch (no download).

The model uses the note's custom ``Linear`` module (the "Extending torch.nn" section: an
``nn.Module`` around the note's ``LinearFunction``). Prints a progress bar and a loss/accuracy
line per epoch, saves the loss curve to ``loss_curve.png``, checks that test accuracy reaches
97%, and reports the epoch time beside the same model and loop in PyTorch when it is installed.

Run: python examples/main.py [--epochs N] [--plot PATH] [--no-torch]
"""

from __future__ import annotations

import os

# The model's matrix products are tiny (at most 64x128x64): BLAS worker threads cost more than
# they save there, badly so on a busy machine. Both libraries run single-threaded unless the
# environment says otherwise (set before NumPy or PyTorch is imported).
if __name__ == "__main__":
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import numtorch as torch  # noqa: E402


def note_linear(torch):
    """The note's ``LinearFunction`` and ``Linear`` module, built on ``torch``: numtorch here,
    PyTorch for the timing comparison (the same code runs on both)."""
    nn = torch.nn

    class LinearFunction(torch.autograd.Function):
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
        def __init__(self, input_features, output_features, bias=True):
            super().__init__()
            self.input_features = input_features
            self.output_features = output_features
            self.weight = nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = nn.Parameter(torch.empty(output_features))
            else:
                self.register_parameter("bias", None)
            # the note uses +-0.1; 1/sqrt(fan_in) (nn.Linear's bound) trains faster
            bound = 1.0 / input_features**0.5
            nn.init.uniform_(self.weight, -bound, bound)
            if self.bias is not None:
                nn.init.uniform_(self.bias, -bound, bound)

        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)

        def extra_repr(self):
            return "input_features={}, output_features={}, bias={}".format(  # noqa: UP032  (the note)
                self.input_features, self.output_features, self.bias is not None
            )

    return Linear


def digits_cnn(torch):
    """Two conv blocks, then the note's ``Linear`` and a stock ``nn.Linear``."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        note_linear(torch)(32 * 2 * 2, 64),
        nn.ReLU(),
        nn.Linear(64, 10),
    )


def load_digits(seed: int = 0):
    """(x_train, y_train), (x_test, y_test) as NumPy arrays: an 80/20 split of the 1797 digits."""
    from sklearn.datasets import load_digits as sk_load

    data = sk_load()
    x = (data.images / 16.0).astype(np.float32)[:, None, :, :]
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    split = int(0.8 * len(x))
    tr, te = order[:split], order[split:]
    return (x[tr], y[tr]), (x[te], y[te])


def progress(epoch: int, done: int, total: int, loss: float) -> None:
    width = 30
    filled = width * done // total
    bar = "#" * filled + "-" * (width - filled)
    sys.stdout.write(f"\repoch {epoch:2d} [{bar}] {done:3d}/{total} loss {loss:.4f}")
    sys.stdout.flush()


def setup(torch, train, batch_size: int, lr: float, seed: int = 0):
    """Model, optimizer, loss and a seeded shuffling DataLoader, in ``torch``."""
    data = torch.utils.data
    torch.manual_seed(seed)
    x, y = (torch.from_numpy(a) for a in train)
    loader = data.DataLoader(data.TensorDataset(x, y), batch_size=batch_size, shuffle=True,
                             generator=torch.Generator().manual_seed(seed))  # fmt: skip
    model = digits_cnn(torch)
    return model, torch.optim.Adam(model.parameters(), lr=lr), torch.nn.CrossEntropyLoss(), loader


def train_epoch(model, opt, loss_fn, loader, epoch: int | None = None) -> float:
    """One pass over ``loader``; the mean training loss. Draws the progress bar if ``epoch``."""
    total, seen = 0.0, 0
    for i, (xb, yb) in enumerate(loader, 1):
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
        seen += len(xb)
        if epoch is not None:
            progress(epoch, i, len(loader), total / seen)
    return total / seen


def evaluate(torch, model, x, y) -> float:
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
    model.train()
    return (pred == y).float().mean().item()


def pytorch_epoch_time(train, args, epochs: int = 4) -> tuple[str, float] | None:
    """(version, median epoch time) of the same model and loop in PyTorch; None without it."""
    try:
        import torch
    except ImportError:
        return None
    model, opt, loss_fn, loader = setup(torch, train, args.batch_size, args.lr)
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        train_epoch(model, opt, loss_fn, loader)
        times.append(time.perf_counter() - t0)
    return torch.__version__, statistics.median(times[1:])


def save_plot(losses: list[float], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[examples]'): no loss plot")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(np.arange(1, len(losses) + 1), losses, marker="o")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss")
    ax.set_yscale("log")
    ax.set_title("numtorch CNN on 8x8 digits")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"saved the loss curve to {path}")


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--plot", default="loss_curve.png")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch timing")
    args = parser.parse_args(argv)

    train, test = load_digits()
    model, opt, loss_fn, loader = setup(torch, train, args.batch_size, args.lr)
    xte, yte = (torch.from_numpy(a) for a in test)
    print(model)
    losses, times = [], []
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        losses.append(train_epoch(model, opt, loss_fn, loader, epoch))
        times.append(time.perf_counter() - t0)
        acc = evaluate(torch, model, xte, yte)
        print(f"\repoch {epoch:2d}  loss {losses[-1]:.4f}  test accuracy {acc:6.2%}  "
              f"({times[-1]:.2f} s)" + " " * 24)  # fmt: skip
    save_plot(losses, args.plot)
    acc = evaluate(torch, model, xte, yte)
    print(f"final test accuracy: {acc:.2%}")
    # the first epoch includes compiling the kernels (once per machine: they are cached)
    nt_epoch = statistics.median(times[1:] or times)
    line = (
        f"epoch time (median, {len(loader)} steps of {args.batch_size}): numtorch {nt_epoch:.3f} s"
    )
    theirs = None if args.no_torch else pytorch_epoch_time(train, args)
    if theirs is not None:
        line += f", PyTorch {theirs[0]} {theirs[1]:.3f} s ({nt_epoch / theirs[1]:.2f}x)"
    print(line)
    if acc < 0.97:
        raise SystemExit(f"accuracy {acc:.2%} is below the 97% target")
    return acc


if __name__ == "__main__":
    main()
