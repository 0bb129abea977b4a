"""Recurrent layers: ``RNNBase``, ``RNN``, ``LSTM``, ``GRU`` and the cells, with PyTorch's
parameter names, shapes and initialisation, so a ``state_dict`` loads across libraries."""

from __future__ import annotations

import math
import numbers
import warnings

import numtorch

from ..._tensor import Tensor
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_FN = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def _check_size(name: str, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")


class RNNBase(Module):
    """Base class of ``RNN``, ``LSTM`` and ``GRU``: parameters, checks and the forward driver.

    >>> numtorch.nn.RNNBase("LSTM", 2, 3).weight_ih_l0.shape
    torch.Size([12, 2])
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]  # fmt: skip

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):  # fmt: skip
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")  # fmt: skip
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)  # fmt: skip
        _check_size("hidden_size", hidden_size)
        _check_size("num_layers", num_layers)
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, Parameter(numtorch.empty(shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: numtorch keeps no fused weight buffer (PyTorch's is a cuDNN detail)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes) -> None:
        if input.dtype != self._flat_weights[0].dtype:
            raise ValueError(f"input must have the type {self._flat_weights[0].dtype}, got type {input.dtype}")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, real_hidden)

    def check_hidden_size(self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _zeros_state(self, input: Tensor, max_batch: int, size: int, batched: bool) -> Tensor:
        n = self.num_layers * (2 if self.bidirectional else 1)
        return numtorch.zeros((n, max_batch, size), dtype=input.dtype)

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        sorted_indices = unsorted_indices = batch_sizes = None
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch, batched = int(batch_sizes[0]), True
        else:
            if input.dim() not in (2, 3):
                name = "RNN" if self.mode.startswith("RNN") else self.mode
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            max_batch = input.size(0 if self.batch_first else 1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = self._zeros_state(input, max_batch, real_hidden, batched)
            hx = (h0, self._zeros_state(input, max_batch, self.hidden_size, batched)) if lstm else h0
        else:
            hx = self._prepare_hidden(hx, batched, sorted_indices)
        self.check_input(input, batch_sizes)
        self._check_hidden(input, hx, batch_sizes)
        fn = getattr(numtorch, _FN[self.mode])
        state = list(hx) if lstm else hx
        if batch_sizes is None:
            res = fn(input, state, self._flat_weights, self.bias, self.num_layers, self.dropout,
                     self.training, self.bidirectional, self.batch_first)  # fmt: skip
        else:
            res = fn(input, batch_sizes, state, self._flat_weights, self.bias, self.num_layers,
                     self.dropout, self.training, self.bidirectional)  # fmt: skip
        output, hidden = res[0], (tuple(res[1:]) if lstm else res[1])
        if packed:
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            hidden = self._unpermute(hidden, unsorted_indices)
        elif not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        return output, hidden

    def _prepare_hidden(self, hx, batched: bool, sorted_indices):
        if self.mode == "LSTM":
            if not batched:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")  # fmt: skip
                return hx[0].unsqueeze(1), hx[1].unsqueeze(1)
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")  # fmt: skip
            return self.permute_hidden(hx[0], sorted_indices), self.permute_hidden(hx[1], sorted_indices)
        if not batched:
            if hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
            return hx.unsqueeze(1)
        if hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        return self.permute_hidden(hx, sorted_indices)

    def _check_hidden(self, input, hx, batch_sizes) -> None:
        expected = self.get_expected_hidden_size(input, batch_sizes)
        if self.mode == "LSTM":
            self.check_hidden_size(hx[0], expected, "Expected hidden[0] size {}, got {}")
            cell = (expected[0], expected[1], self.hidden_size)
            self.check_hidden_size(hx[1], cell, "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(hx, expected)

    def _unpermute(self, hidden, unsorted_indices):
        if unsorted_indices is None:
            return hidden
        if isinstance(hidden, tuple):
            return tuple(_apply_permutation(h, unsorted_indices) for h in hidden)
        return _apply_permutation(hidden, unsorted_indices)


class RNN(RNNBase):
    """Multi-layer Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    >>> rnn = numtorch.nn.RNN(4, 8, num_layers=2)
    >>> out, h = rnn(numtorch.ones(5, 3, 4))
    >>> out.shape, h.shape
    (torch.Size([5, 3, 8]), torch.Size([2, 3, 8]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device=None, dtype=None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size,
                         num_layers, bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)  # fmt: skip


class LSTM(RNNBase):
    """Multi-layer long short-term memory RNN; ``proj_size > 0`` adds a projection of h.

    >>> lstm = numtorch.nn.LSTM(4, 8, batch_first=True)
    >>> out, (h, c) = lstm(numtorch.ones(3, 5, 4))
    >>> out.shape, h.shape, c.shape
    (torch.Size([3, 5, 8]), torch.Size([1, 3, 8]), torch.Size([1, 3, 8]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)  # fmt: skip


class GRU(RNNBase):
    """Multi-layer gated recurrent unit RNN.

    >>> gru = numtorch.nn.GRU(4, 8, bidirectional=True)
    >>> out, h = gru(numtorch.ones(5, 3, 4))
    >>> out.shape, h.shape
    (torch.Size([5, 3, 16]), torch.Size([2, 3, 8]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None) -> None:  # fmt: skip
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)  # fmt: skip


# ---- cells -----------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``.

    >>> numtorch.nn.RNNCellBase(2, 3, True, 4).weight_hh.shape
    torch.Size([12, 3])
    """

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(numtorch.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(numtorch.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(numtorch.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(numtorch.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input: Tensor) -> bool:
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        return input.dim() == 2

    def _zeros(self, input: Tensor) -> Tensor:
        return numtorch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)

    def _check_hx(self, hx: Tensor, batched: bool) -> None:
        if hx.dim() != (2 if batched else 1):
            raise RuntimeError(f"{type(self).__name__}: Expected hidden to be {'2' if batched else '1'}D, "
                               f"got {hx.dim()}D instead")  # fmt: skip


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).

    >>> numtorch.nn.RNNCell(4, 8)(numtorch.ones(3, 4)).shape
    torch.Size([3, 8])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._batched(input)
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = self._zeros(input)
        else:
            self._check_hx(hx, batched)
            hx = hx if batched else hx.unsqueeze(0)
        if self.nonlinearity == "tanh":
            ret = numtorch.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = numtorch.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c').

    >>> h, c = numtorch.nn.LSTMCell(4, 8)(numtorch.ones(3, 4))
    >>> h.shape, c.shape
    (torch.Size([3, 8]), torch.Size([3, 8]))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        batched = self._batched(input)
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        else:
            self._check_hx(hx[0], batched)
            hx = hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = numtorch.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step.

    >>> numtorch.nn.GRUCell(4, 8)(numtorch.ones(3, 4)).shape
    torch.Size([3, 8])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._batched(input)
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = self._zeros(input)
        else:
            self._check_hx(hx, batched)
            hx = hx if batched else hx.unsqueeze(0)
        ret = numtorch.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)
