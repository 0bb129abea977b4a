"""PyTorch's argument-parser errors for the pointwise bindings' overload choice."""

from __future__ import annotations


def two_numbers(T, S, F, v) -> TypeError:
    """PyTorch's parser error for a binary op called with two numbers (``torch.pow(2, 3)``)."""
    # Scalar self wants a Tensor other: with two numbers no overload matches (torch.pow(2, 3)).
    # add, sub, mul and div take them, as PyTorch's parser wraps numbers for those (no F here).
    fn = T["functional"]._schema
    other = [a.name for a in fn.arguments if not a.is_out][1]

    def line(ops, first, second):
        out = ", *, Tensor out = None" if ops is not None and "out" in ops else ""
        return f"\n * ({first}, {second} {other}{out})"

    lines = line(T, "Tensor input", "Tensor") + line(F, "Number self", "Tensor")
    lines += line(S, "Tensor input", "Number") if S is not None else ""
    got = ", ".join(type(a).__name__ for a in v[:2])
    return TypeError(
        f"{fn.name}() received an invalid combination of arguments - got ({got}), but expected one of:{lines}\n"
    )
