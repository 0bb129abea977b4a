"""Recurrent layers: one op per layer and direction (the time loop, with fused Numba gate kernels
and BLAS products) with a BPTT backward op, the cells as composites, and the functional
``torch.lstm`` / ``gru`` / ``rnn_tanh`` / ``rnn_relu`` entry points over them.

# Note [RNN layer op]
# ``_rnn_layer`` runs one direction of one layer over a whole (T, B, F) input: one BLAS product
# projects every step's input (x @ W_ih^T + biases), then per step one BLAS product h @ W_hh^T and
# one fused gate kernel, so autograd records one node per layer instead of ~5 per step (and the
# weight gradients are one BLAS product each over all steps). Variable lengths (packed sequences) come as ``batch_sizes`` (T,),
# non-increasing: at step t only rows < batch_sizes[t] advance, the others keep their state, which
# gives each sequence its own last state in both directions. The op returns a flat workspace (the
# activations BPTT needs) that its backward op re-reads; the backward op has no derivative of its
# own, so double backward through a recurrent layer is not supported (PyTorch's CPU path supports
# it; gradcheck passes, gradgradcheck does not).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._registry import defop, public

K = lazy("numtorch.kernels.cpu.nn.rnn")
aten = _ops.aten  # Note [Composite bodies are below the Python API]

LSTM, GRU, RNN_TANH, RNN_RELU = 0, 1, 2, 3
_GATES = {LSTM: 4, GRU: 3, RNN_TANH: 1, RNN_RELU: 1}


def _sections(mode: int, T: int, B: int, H: int, Hout: int, proj: bool) -> list:
    """Widths of the workspace's (T, B, w) sections, in order."""
    if mode == LSTM:
        return [("gates", 4 * H), ("c_prev", H), ("c", H), ("h_prev", Hout)] + (
            [("h_pre", H)] if proj else []
        )
    if mode == GRU:
        return [("gates", 4 * H), ("h_prev", Hout)]
    return [("h", H), ("h_prev", Hout)]


def _carve(flat: np.ndarray, mode, T, B, H, Hout, proj) -> dict:
    out, off = {}, 0
    for name, w in _sections(mode, T, B, H, Hout, proj):
        out[name] = flat[off : off + T * B * w].reshape(T, B, w)
        off += T * B * w
    return out


def _steps(T: int, reverse: bool):
    return range(T - 1, -1, -1) if reverse else range(T)


def _sizes(batch_sizes, T: int, B: int) -> np.ndarray:
    if batch_sizes is None:
        return np.full(T, B, np.int64)
    return np.ascontiguousarray(batch_sizes._data, dtype=np.int64)


def _rnn_layer_cpu(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    x = np.ascontiguousarray(input._data)
    T, B, F = x.shape
    dt = x.dtype
    ig = (x.reshape(T * B, F) @ w_ih._data.T).reshape(T, B, -1)
    if b_ih is not None:
        ig += b_ih._data
    if b_hh is not None and mode != GRU:
        ig += b_hh._data  # GRU applies b_hh inside r * (h W_hn^T + b_hn)
    # one C-contiguous copy of W_hh^T per layer call: OpenBLAS's small-M product h @ W^T takes
    # ~1.9x as long with the transposed (Fortran-order) view, and it runs once per time step
    whh_t = np.ascontiguousarray(w_hh._data.T)
    H = w_hh.shape[0] // _GATES[mode]
    Hout = w_hh.shape[1]
    proj = w_hr is not None
    bs = _sizes(batch_sizes, T, B)
    sec = _sections(mode, T, B, H, Hout, proj)
    flat = np.empty(T * B * sum(w for _, w in sec), dt)
    ws = _carve(flat, mode, T, B, H, Hout, proj)
    out = np.zeros((T, B, Hout), dt)
    h = np.array(hx._data, dt, order="C")
    c = np.array(cx._data, dt, order="C") if mode == LSTM else None
    hg = np.empty((B, _GATES[mode] * H), dt) if mode == GRU else None
    bhh = b_hh._data if b_hh is not None and mode == GRU else None
    for t in _steps(T, reverse):
        n = int(bs[t])
        ws["h_prev"][t] = h
        if mode == LSTM:
            g = ws["gates"][t]
            np.matmul(h[:n], whh_t, out=g[:n])
            g[:n] += ig[t, :n]
            cp = ws["c_prev"][t]
            cp[...] = c
            hn = ws["h_pre"][t] if proj else h
            K.lstm_step(g, cp, n, H, hn, c)  # c_prev not aliasing c_out: the loop vectorises
            ws["c"][t] = c
            if proj:
                np.matmul(hn[:n], w_hr._data.T, out=h[:n])
        elif mode == GRU:
            np.matmul(h[:n], whh_t, out=hg[:n])
            if bhh is not None:
                hg[:n] += bhh
            K.gru_step(ig[t], hg, ws["h_prev"][t], n, H, h, ws["gates"][t])
        else:
            pre = ws["h"][t]
            np.matmul(h[:n], whh_t, out=pre[:n])
            pre[:n] += ig[t, :n]
            K.rnn_step(pre, n, H, mode == RNN_RELU, h)
            pre[:n] = h[:n]
        out[t, :n] = h[:n]
    cy = c if mode == LSTM else np.zeros(0, dt)
    mk = input._dtype
    return _make(out, mk), _make(h, mk), _make(cy, mk), _make(flat, mk)


def _rnn_layer_backward_cpu(grad_output, grad_hy, grad_cy, workspace, input, w_ih, w_hh, w_hr, batch_sizes,
                            mode, reverse):  # fmt: skip
    gout = np.ascontiguousarray(grad_output._data)
    T, B, Hout = gout.shape
    dt = gout.dtype
    G = _GATES[mode]
    H = w_hh.shape[0] // G
    proj = w_hr is not None
    ws = _carve(workspace._data, mode, T, B, H, Hout, proj)
    bs = _sizes(batch_sizes, T, B)
    whh = w_hh._data
    dig = np.zeros((T, B, G * H), dt)
    dhg = np.zeros((T, B, G * H), dt) if mode == GRU else dig
    dh = np.array(grad_hy._data, dt, order="C")
    dc = np.array(grad_cy._data, dt, order="C") if mode == LSTM else None
    dw_hr = np.zeros(w_hr.shape, dt) if proj else None
    for t in reversed(_steps(T, reverse)):
        n = int(bs[t])
        dh[:n] += gout[t, :n]
        if mode == LSTM:
            dhn = dh
            if proj:
                dw_hr += dh[:n].T @ ws["h_pre"][t, :n]
                dhn = np.zeros((B, H), dt)
                np.matmul(dh[:n], w_hr._data, out=dhn[:n])
            K.lstm_step_backward(ws["gates"][t], ws["c_prev"][t], ws["c"][t], dhn, dc, n, H, dig[t])
            np.matmul(dig[t, :n], whh, out=dh[:n])
        elif mode == GRU:
            K.gru_step_backward(ws["gates"][t], ws["h_prev"][t], dh, n, H, dig[t], dhg[t])
            dh[:n] += dhg[t, :n] @ whh
        else:
            K.rnn_step_backward(ws["h"][t], dh, n, H, mode == RNN_RELU, dig[t])
            np.matmul(dig[t, :n], whh, out=dh[:n])
    flat_i = dig.reshape(T * B, G * H)
    flat_h = dhg.reshape(T * B, G * H)
    x = np.ascontiguousarray(input._data).reshape(T * B, -1)
    dx = (flat_i @ w_ih._data).reshape(T, B, -1)
    dw_ih = flat_i.T @ x
    dw_hh = flat_h.T @ ws["h_prev"].reshape(T * B, Hout)
    db_ih = flat_i.sum(0)
    db_hh = flat_h.sum(0) if mode == GRU else db_ih.copy()
    dcx = dc if mode == LSTM else np.zeros(0, dt)
    dw_hr = dw_hr if proj else np.zeros(0, dt)
    mk = grad_output._dtype
    return tuple(_make(a, mk) for a in (dx, dh, dcx, dw_ih, dw_hh, db_ih, db_hh, dw_hr))


_rnn_layer_backward = defop(
    "_rnn_layer_backward(Tensor grad_output, Tensor grad_hy, Tensor grad_cy, Tensor workspace, "
    "Tensor input, Tensor w_ih, Tensor w_hh, Tensor? w_hr, Tensor? batch_sizes, int mode, bool reverse) "
    "-> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)",
    cpu=_rnn_layer_backward_cpu,
)


def _layer_grads(grads, results, input, w_ih, w_hh, b_ih, w_hr, batch_sizes, mode, reverse):
    g_out, g_hy, g_cy = grads[0], grads[1], grads[2]
    dx, dh, dc, dw_ih, dw_hh, db_ih, db_hh, dw_hr = dispatch(
        _rnn_layer_backward,
        [g_out, g_hy, g_cy, results[3], input, w_ih, w_hh, w_hr, batch_sizes, mode, reverse],
    )
    has_b = b_ih is not None
    return (dx, dh, dc if mode == LSTM else None, dw_ih, dw_hh, db_ih if has_b else None,
            db_hh if has_b else None, dw_hr if w_hr is not None else None)  # fmt: skip


_rnn_layer = defop(
    "_rnn_layer(Tensor input, Tensor hx, Tensor? cx, Tensor w_ih, Tensor w_hh, Tensor? b_ih, Tensor? b_hh, "
    "Tensor? w_hr, Tensor? batch_sizes, int mode, bool reverse) -> (Tensor, Tensor, Tensor, Tensor)",
    cpu=_rnn_layer_cpu,
    backward={("input", "hx", "cx", "w_ih", "w_hh", "b_ih", "b_hh", "w_hr"): _layer_grads},
)


# ---- the stacked, bidirectional network over the layer op ----------------------------------------
def _check_float(x: Tensor, what: str):
    if x.dtype not in (D.float32, D.float64, D.bfloat16):  # bfloat16: the layer op runs in float32
        raise RuntimeError(f"{what}: expected a float32 or float64 input, got {x.dtype}")


def _direction(x, h0, c0, p, has_biases, batch_sizes, mode, reverse):
    """One layer, one direction. ``p``: w_ih, w_hh[, b_ih, b_hh][, w_hr] (PyTorch's order)."""
    w_ih, w_hh = p[0], p[1]
    b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
    w_hr = p[4 if has_biases else 2] if len(p) > (4 if has_biases else 2) else None
    out, hy, cy, _ = dispatch(_rnn_layer, [x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse])
    return out, hy, cy


def _network(x, batch_sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, mode):
    """Time-major (T, B, F) input; returns output (T, B, D*Hout), hy, cy stacked per layer-direction."""
    _check_float(x, "rnn")
    D_ = 2 if bidirectional else 1
    per = len(params) // (num_layers * D_)
    hys, cys = [], []
    layer_in = x
    for layer in range(num_layers):
        outs = []
        for d in range(D_):
            k = layer * D_ + d
            p = params[k * per : (k + 1) * per]
            c0 = cx[k] if cx is not None else None
            o, hy, cy = _direction(layer_in, hx[k], c0, p, has_biases, batch_sizes, mode, d == 1)
            outs.append(o)
            hys.append(hy)
            cys.append(cy)
        layer_in = outs[0] if D_ == 1 else aten.cat.default(outs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            layer_in = aten.dropout.default(layer_in, dropout, True)
    hy = aten.stack.default(hys, 0)
    cy = aten.stack.default(cys, 0) if cx is not None else None
    return layer_in, hy, cy


def _packed_index(batch_sizes: Tensor):
    """Flat (t * B + b) positions of a packed sequence's rows, and B."""
    bs = batch_sizes._data.astype(np.int64)
    B = int(bs[0]) if bs.size else 0
    idx = np.concatenate([t * B + np.arange(n) for t, n in enumerate(bs)]) if bs.size else np.zeros(0, np.int64)
    return _make(idx.astype(np.int64), D.int64), B


def _unpack(data, batch_sizes):
    """Packed (N, F) rows -> padded (T, B, F) (zeros past each length), differentiably."""
    idx, B = _packed_index(batch_sizes)
    T = batch_sizes.shape[0]
    flat = aten.zeros.default((T * B, data.shape[-1]), dtype=data.dtype).index_add(0, idx, data)
    return flat.view(T, B, data.shape[-1]), idx


def _run(mode, input, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):  # fmt: skip
    h0 = hx[0]
    c0 = hx[1] if mode == LSTM else None
    if batch_sizes is not None:
        x, idx = _unpack(input, batch_sizes)
        out, hy, cy = _network(x, batch_sizes, h0, c0, params, has_biases, num_layers, dropout, train,
                               bidirectional, mode)  # fmt: skip
        out = out.reshape(-1, out.shape[-1]).index_select(0, idx)
    else:
        x = input.transpose(0, 1) if batch_first else input
        out, hy, cy = _network(x, None, h0, c0, params, has_biases, num_layers, dropout, train,
                               bidirectional, mode)  # fmt: skip
        if batch_first:
            out = out.transpose(0, 1)
    return (out, hy, cy) if mode == LSTM else (out, hy)


def _declare(name: str, mode: int, doc: str):
    n_out = "(Tensor, Tensor, Tensor)" if mode == LSTM else "(Tensor, Tensor)"
    hx = "Tensor[] hx" if mode == LSTM else "Tensor hx"
    inp = defop(f"{name}.input(Tensor input, {hx}, Tensor[] params, bool has_biases, int num_layers, "
                f"float dropout, bool train, bool bidirectional, bool batch_first) -> {n_out}",
                composite=lambda input, hx, params, *a: _run(
                    mode, input, None, hx if mode == LSTM else [hx], params, *a))  # fmt: skip
    data = defop(f"{name}.data(Tensor data, Tensor batch_sizes, {hx}, Tensor[] params, bool has_biases, "
                 f"int num_layers, float dropout, bool train, bool bidirectional) -> {n_out}",
                 composite=lambda data, batch_sizes, hx, params, *a: _run(
                     mode, data, batch_sizes, hx if mode == LSTM else [hx], params, *a, False))  # fmt: skip

    def body(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        if isinstance(hx if mode == LSTM else params, Tensor):  # the packed (data, batch_sizes) form
            return dispatch(data, [input, hx, params, has_biases, num_layers, dropout, train,
                                   bidirectional, batch_first])  # fmt: skip
        return dispatch(inp, [input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                              batch_first])  # fmt: skip

    body.__doc__ = doc
    public(name, "input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first",
           body, relevant=("input",), ops=(inp, data))  # fmt: skip


_EX = "\n\n    >>> x = numtorch.ones(3, 1, 2)\n    >>> "
_declare("lstm", LSTM, "A multi-layer LSTM over (T, B, F) input (``nn.LSTM``'s kernel)." + _EX
         + "w = [numtorch.ones(8, 2), numtorch.ones(8, 2)]\n    >>> h = numtorch.zeros(1, 1, 2)\n"
         "    >>> numtorch.lstm(x, (h, h), w, False, 1, 0.0, False, False, False)[0].shape\n"
         "    torch.Size([3, 1, 2])\n")  # fmt: skip
_declare("gru", GRU, "A multi-layer GRU over (T, B, F) input (``nn.GRU``'s kernel)." + _EX
         + "w = [numtorch.ones(6, 2), numtorch.ones(6, 2)]\n    >>> h = numtorch.zeros(1, 1, 2)\n"
         "    >>> numtorch.gru(x, h, w, False, 1, 0.0, False, False, False)[0].shape\n"
         "    torch.Size([3, 1, 2])\n")  # fmt: skip
_declare("rnn_tanh", RNN_TANH, "A multi-layer Elman RNN with tanh over (T, B, F) input." + _EX
         + "w = [numtorch.ones(2, 2), numtorch.ones(2, 2)]\n    >>> h = numtorch.zeros(1, 1, 2)\n"
         "    >>> numtorch.rnn_tanh(x, h, w, False, 1, 0.0, False, False, False)[0].shape\n"
         "    torch.Size([3, 1, 2])\n")  # fmt: skip
_declare("rnn_relu", RNN_RELU, "A multi-layer Elman RNN with relu over (T, B, F) input." + _EX
         + "w = [numtorch.ones(2, 2), numtorch.ones(2, 2)]\n    >>> h = numtorch.zeros(1, 1, 2)\n"
         "    >>> numtorch.rnn_relu(x, h, w, False, 1, 0.0, False, False, False)[0].shape\n"
         "    torch.Size([3, 1, 2])\n")  # fmt: skip


