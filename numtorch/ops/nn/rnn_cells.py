"""The single-step recurrent cells (``torch.lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``,
``rnn_relu_cell``) as composites of numtorch ops, as PyTorch writes them: one step has too little
work for a fused kernel to pay for its dispatch, and composites keep double backward."""

from __future__ import annotations

from ..._dispatch import dispatch
from ..._ops import ops as _ops
from .._registry import defop, public


def _lin(x, w, b):
    return _ops.aten.linear.default(x, w, b)


def _lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    gates = _lin(input, w_ih, b_ih) + _lin(hx[0], w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    cy = f.sigmoid() * hx[1] + i.sigmoid() * g.tanh()
    return o.sigmoid() * cy.tanh(), cy


def _gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    ir, iz, in_ = _lin(input, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = _lin(hx, w_hh, b_hh).chunk(3, 1)
    r = (ir + hr).sigmoid()
    z = (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    return (hx - n) * z + n


def _rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    return (_lin(input, w_ih, b_ih) + _lin(hx, w_hh, b_hh)).tanh()


def _rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    return (_lin(input, w_ih, b_ih) + _lin(hx, w_hh, b_hh)).relu()


_SIG = "Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None"
_CELLS = {
    "lstm_cell": (f"lstm_cell(Tensor input, Tensor[] hx, {_SIG}) -> (Tensor, Tensor)", _lstm_cell),
    "gru_cell": (f"gru_cell(Tensor input, Tensor hx, {_SIG}) -> Tensor", _gru_cell),
    "rnn_tanh_cell": (f"rnn_tanh_cell(Tensor input, Tensor hx, {_SIG}) -> Tensor", _rnn_tanh_cell),
    "rnn_relu_cell": (f"rnn_relu_cell(Tensor input, Tensor hx, {_SIG}) -> Tensor", _rnn_relu_cell),
}


def _declare(name: str):
    schema, fn = _CELLS[name]
    op = defop(schema, composite=fn)

    def body(input, hx, w_ih, w_hh, b_ih, b_hh):
        return dispatch(op, [input, hx, w_ih, w_hh, b_ih, b_hh])

    body.__doc__ = (
        f"One step of the ``{name}`` recurrent cell (``nn.{fn.__name__[1:].title().replace('_', '')}``'s math).\n\n"
        "    >>> x = numtorch.ones(1, 2)\n"
        f"    >>> numtorch.{name}(x, {'(x, x)' if name == 'lstm_cell' else 'x'}, "
        f"numtorch.ones({ {'lstm_cell': 8, 'gru_cell': 6}.get(name, 2)}, 2), "
        f"numtorch.ones({ {'lstm_cell': 8, 'gru_cell': 6}.get(name, 2)}, 2))[0].shape\n"
        f"    torch.Size([{2 if name != 'lstm_cell' else 1}{', 2' if name == 'lstm_cell' else ''}])\n"
    )
    relevant = ("input", "w_ih", "w_hh", "b_ih", "b_hh") + (() if name == "lstm_cell" else ("hx",))
    public(name, "input, hx, w_ih, w_hh, b_ih=None, b_hh=None", body, relevant=relevant, ops=(op,))
    return op


lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell = (_declare(n) for n in _CELLS)
