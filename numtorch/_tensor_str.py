"""Tensor printing, a character-for-character port of PyTorch's ``torch/_tensor_str.py``.

The functions here work on a plain NumPy array plus the tensor's metadata, so the module does not
depend on the rest of numtorch. Only the strided, dense, plain-tensor branch of PyTorch's
``_str_intern`` is mirrored (no sparse, quantized, nested or meta tensors).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used to print tensors (same semantics as ``torch.set_printoptions``).

    ``profile`` is one of ``"default"``, ``"short"`` or ``"full"`` and is applied first, so the
    other arguments override it. As in PyTorch, ``sci_mode`` is always reset (``None`` means the
    notation is chosen automatically), even when it is not passed.

    >>> set_printoptions(precision=2)
    >>> format_tensor(np.array([1.12345], np.float32), dtype_name="torch.float32",
    ...               is_default_dtype=True)
    'tensor([1.12])'
    >>> set_printoptions(profile="default")
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments accepted by ``set_printoptions``.

    >>> get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    """
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (same arguments as ``set_printoptions``).

    >>> with printoptions(precision=1):
    ...     format_tensor(np.array(1.25), dtype_name="torch.float64", is_default_dtype=False)
    'tensor(1.2, dtype=torch.float64)'
    """
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


def _longest(strings: list[str]) -> int:
    return max((len(s) for s in strings), default=0)


def _width_candidates(vals: np.ndarray) -> list[float]:
    # PyTorch measures every element; fixed and scientific string lengths only grow with the
    # magnitude (or the exponent's magnitude) within one sign, so the extremes of each sign
    # reach the same maximum without a Python loop over the whole tensor.
    out: list[float] = []
    for group in (vals[vals > 0], vals[vals < 0]):
        if group.size:
            out += [float(group.min()), float(group.max())]
    return out


class _Formatter:
    """Decides, from all (or the summarised) values, how every element of a tensor is printed."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = values.reshape(-1)
        if not self.floating_dtype:
            if flat.size:
                # The longest str() of an integer (or bool) is at one of the two extremes.
                ends = [flat.min().item(), flat.max().item()]
                self.max_width = max(self.max_width, _longest([f"{v}" for v in ends]))
            return

        # Widening is exact, and PyTorch also does its ratio test in double precision.
        wide = flat.astype(np.float64)
        vals = wide[np.isfinite(wide) & (wide != 0)]
        if vals.size == 0:
            return

        magnitudes = np.abs(vals)
        nonzero_finite_min = float(magnitudes.min())
        nonzero_finite_max = float(magnitudes.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = (
                nonzero_finite_max / nonzero_finite_min > 1000.0
                or nonzero_finite_max > 1.0e8
                or nonzero_finite_min < 1.0e-4
            )
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        candidates = _width_candidates(vals)
        if self.sci_mode:
            width = _longest([f"{v:.{precision}e}" for v in candidates])
        elif self.int_mode:
            # The trailing "." that marks a float is counted here.
            width = _longest([f"{v:.0f}" for v in candidates]) + 1
        else:
            width = _longest([f"{v:.{precision}f}" for v in candidates])
        self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _element_str(value: Any, formatter1: _Formatter, formatter2: _Formatter | None) -> str:
    if formatter2 is None:
        return formatter1.format(value)
    real_str = formatter1.format(value.real)
    imag_str = (formatter2.format(value.imag) + "j").lstrip()
    # A formatted imaginary part that carries its own sign (negatives, -0.) needs no "+".
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(
    values: np.ndarray,
    indent: int,
    summarize: bool,
    formatter1: _Formatter,
    formatter2: _Formatter | None,
) -> str:
    # Each element costs its width plus ", "; complex adds the imaginary width and "j".
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        element_length += formatter2.width() + 1
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = (
            [_element_str(v, formatter1, formatter2) for v in values[:edge].tolist()]
            + [" ..."]
            + [_element_str(v, formatter1, formatter2) for v in values[-edge:].tolist()]
        )
    else:
        data = [_element_str(v, formatter1, formatter2) for v in values.tolist()]

    lines = [
        ", ".join(data[i : i + elements_per_line]) for i in range(0, len(data), elements_per_line)
    ]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    values: np.ndarray,
    indent: int,
    summarize: bool,
    formatter1: _Formatter,
    formatter2: _Formatter | None = None,
) -> str:
    dim = values.ndim
    if dim == 0:
        return _element_str(values.item(), formatter1, formatter2)
    if dim == 1:
        return _vector_str(values, indent, summarize, formatter1, formatter2)

    edge = PRINT_OPTS.edgeitems
    size = values.shape[0]
    if summarize and size > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(size - edge, size))
    else:
        rows = list(range(size))
    slices = [
        "..."
        if i is None
        else _tensor_str_with_formatter(values[i], indent + 1, summarize, formatter1, formatter2)
        for i in rows
    ]
    # Deeper dimensions are separated by more blank lines, as in NumPy.
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(values: np.ndarray) -> np.ndarray:
    """The elements that a summarised print shows, flattened (only the formatter reads them)."""
    edge = PRINT_OPTS.edgeitems
    dim = values.ndim
    if dim == 0:
        return values.reshape(-1)
    if dim == 1:
        if values.shape[0] > 2 * edge:
            # values[-0:] is the whole vector, which is what PyTorch measures when edgeitems is 0.
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return values.reshape(-1)[:0]
    size = values.shape[0]
    if size > 2 * edge:
        rows = list(range(edge)) + list(range(size - edge, size))
    else:
        rows = list(range(size))
    return np.concatenate([_summarized_data(values[i]).reshape(-1) for i in rows])


def _tensor_str(values: np.ndarray, indent: int) -> str:
    if values.size == 0:
        return "[]"

    summarize = values.size > PRINT_OPTS.threshold

    def measured(part: np.ndarray) -> np.ndarray:
        return _summarized_data(part) if summarize else part

    if values.dtype.kind == "c":
        real_formatter = _Formatter(measured(values.real))
        imag_formatter = _Formatter(measured(values.imag))
        return _tensor_str_with_formatter(values, indent, summarize, real_formatter, imag_formatter)
    return _tensor_str_with_formatter(values, indent, summarize, _Formatter(measured(values)))


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    tensor_strs = [tensor_str]
    # PyTorch's off-by-two (rfind gives -1 without a newline) is kept: it decides the wrapping.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    device: str | None = None,
    requires_grad: bool = False,
    grad_fn: str | None = None,
    tensor_name: str = "tensor",
    extra: list[str] | None = None,
) -> str:
    """The full repr of a tensor, exactly as PyTorch prints it.

    ``values`` is the tensor's data (any shape, bool/int/uint8/float16/32/64/complex64/128).
    ``dtype_name`` (e.g. ``"torch.int32"``) is printed as ``dtype=...`` when ``is_default_dtype``
    is False. The caller decides ``is_default_dtype``: it is True exactly when the dtype is one of
    {the default float dtype, the matching default complex dtype (complex128 if the default is
    float64, else complex64), int64, bool}. Empty tensors show their dtype unless it is the
    default float dtype, which is derived here from ``is_default_dtype`` and a floating ``values``.
    ``device`` is printed when not None (pass None for cpu). ``extra`` suffixes come after
    ``dtype=`` and before ``grad_fn=<...>`` or, when there is no grad_fn, ``requires_grad=True``.
    ``tensor_name`` replaces ``tensor`` for subclasses; ``Parameter containing:`` is the caller's.

    >>> format_tensor(np.eye(2, dtype=np.float32) * 2, dtype_name="torch.float32",
    ...               is_default_dtype=True)
    'tensor([[2., 0.],\\n        [0., 2.]])'
    """
    values = np.asarray(values)
    if values.dtype.kind == "V" and values.dtype.name == "bfloat16":  # ml_dtypes': printed as float
        values = values.astype(np.float32)
    prefix = tensor_name + "("
    indent = len(prefix)
    suffixes: list[str] = []

    if device is not None:
        suffixes.append("device='" + str(device) + "'")

    if values.size == 0:
        # NumPy-style: the shape is shown unless it is (0,).
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        # No element hints at the dtype, so anything but the default float dtype is shown.
        if not (is_default_dtype and values.dtype.kind == "f"):
            suffixes.append("dtype=" + dtype_name)
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(values.shape)))
        if not is_default_dtype:
            suffixes.append("dtype=" + dtype_name)
        tensor_str = _tensor_str(values, indent)

    suffixes.extend(extra or [])

    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)
