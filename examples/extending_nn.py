"""The "Extending torch.nn" section of PyTorch's note, run unchanged on numtorch.

The note's ``Linear`` module wraps the autograd section's ``LinearFunction``. This script prints
the module as the note's ``extra_repr`` makes it print, and checks parameter registration (the
optional bias registered as ``None``), gradients (gradcheck in float64), ``state_dict`` round
trips, ``.double()`` and training. With PyTorch installed, the same classes run on PyTorch too
and must print and compute the same.

Run: python examples/extending_nn.py
"""

import io

import numtorch as torch
from numtorch import nn
from numtorch.autograd import Function, gradcheck


# The autograd section's LinearFunction (the note: "assume ... we have the function implemented
# as in the listing above").
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


# The note's Linear module, verbatim.
class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter("bias", None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return "input_features={}, output_features={}, bias={}".format(  # noqa: UP032  (the note, verbatim)
            self.input_features, self.output_features, self.bias is not None
        )


def check_registration() -> None:
    m = Linear(4, 3)
    print(m)
    assert repr(m) == "Linear(input_features=4, output_features=3, bias=True)"
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert all(p.requires_grad for p in m.parameters())
    assert float(m.weight.abs().max()) <= 0.1

    no_bias = Linear(4, 3, bias=False)
    print(no_bias)
    assert repr(no_bias) == "Linear(input_features=4, output_features=3, bias=False)"
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]
    assert list(no_bias.state_dict()) == ["weight"]

    net = nn.Sequential(Linear(4, 8), nn.ReLU(), Linear(8, 2, bias=False))
    print(net)
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(input_features=4, output_features=8, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(input_features=8, output_features=2, bias=False)\n"
        ")"
    )


def check_gradients() -> None:
    m = Linear(5, 3).double()
    assert m.weight.dtype == torch.float64 and m.weight.requires_grad
    x = torch.randn(4, 5, dtype=torch.double, requires_grad=True)
    assert gradcheck(lambda x, w, b: LinearFunction.apply(x, w, b), (x, m.weight, m.bias))
    out = m(x)
    out.sum().backward()
    expected = x.detach().sum(0).unsqueeze(0).expand(3, 5)
    assert torch.allclose(m.weight.grad, expected)
    assert torch.allclose(m.bias.grad, torch.full((3,), 4.0, dtype=torch.double))
    print("gradcheck through the note's Linear: True")


def check_state_dict_round_trip() -> None:
    a, b = Linear(3, 2), Linear(3, 2)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    print(b.load_state_dict(torch.load(buf, weights_only=True)))
    x = torch.randn(5, 3)
    assert torch.equal(a(x), b(x))


def check_training() -> None:
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    print(f"training the note's Linear: loss {first:.4f} -> {loss.item():.6f}")
    assert loss.item() < 1e-3 * first


def check_against_pytorch() -> None:
    """The same classes, rebuilt on PyTorch, print and compute the same."""
    try:
        import torch as pt
    except ImportError:
        print("PyTorch is not installed: skipping the comparison")
        return
    ns = {"Function": pt.autograd.Function, "nn": pt.nn, "torch": pt}
    LinearPT = _rebuild(ns)
    m, mp = Linear(4, 3), LinearPT(4, 3)
    assert repr(m) == repr(mp)
    with pt.no_grad():
        mp.weight.copy_(pt.from_numpy(m.weight.detach().numpy()))
        mp.bias.copy_(pt.from_numpy(m.bias.detach().numpy()))
    x = torch.randn(2, 4)
    out, outp = m(x), mp(pt.from_numpy(x.numpy()))
    out.sum().backward()
    outp.sum().backward()
    assert abs(out.detach().numpy() - outp.detach().numpy()).max() < 1e-6
    assert abs(m.weight.grad.numpy() - mp.weight.grad.numpy()).max() < 1e-6
    print(f"same repr, output and gradients as PyTorch {pt.__version__}: OK")


def _rebuild(ns: dict) -> type:
    """``Linear`` and ``LinearFunction`` re-created from this file's source on ``ns``'s torch."""
    import inspect

    src = inspect.getsource(LinearFunction) + "\n" + inspect.getsource(Linear)
    exec(compile(src, __file__, "exec"), ns)
    return ns["Linear"]


def main() -> None:
    check_registration()
    check_gradients()
    check_state_dict_round_trip()
    check_training()
    check_against_pytorch()


if __name__ == "__main__":
    main()
