"""Recurrent-cell kernels: the gate math of one time step of an LSTM, GRU or Elman RNN, forward
and backward, on the first ``n`` rows of contiguous (B, G*H) blocks. The matrix products around
them (input and hidden projections) stay in BLAS; see numtorch/ops/nn/rnn.py (Note [RNN layer op])."""

from __future__ import annotations

from numtorch.kernels._jit import kernel
from numtorch.kernels.cpu.pointwise.vmath import vsigmoid, vtanh


@kernel
def lstm_step(gates, c_prev, n, H, h_out, c_out):
    """gates (B, 4H) pre-activations i, f, g, o (overwritten by their activations);
    c = f * c_prev + i * g, h = o * tanh(c) for rows < n."""
    for b in range(n):
        for j in range(H):
            i = vsigmoid(gates[b, j])
            f = vsigmoid(gates[b, H + j])
            g = vtanh(gates[b, 2 * H + j])
            o = vsigmoid(gates[b, 3 * H + j])
            gates[b, j] = i
            gates[b, H + j] = f
            gates[b, 2 * H + j] = g
            gates[b, 3 * H + j] = o
            c = f * c_prev[b, j] + i * g
            c_out[b, j] = c
            h_out[b, j] = o * vtanh(c)


@kernel
def lstm_step_backward(gates, c_prev, c, dh, dc, n, H, dgates):
    """From the activated gates and the grads of h and c at this step, the grads of the gate
    pre-activations into ``dgates`` and of c_prev into ``dc`` (in place), rows < n."""
    for b in range(n):
        for j in range(H):
            i = gates[b, j]
            f = gates[b, H + j]
            g = gates[b, 2 * H + j]
            o = gates[b, 3 * H + j]
            tc = vtanh(c[b, j])
            d_h = dh[b, j]
            d_c = dc[b, j] + d_h * o * (1 - tc * tc)
            dgates[b, j] = d_c * g * i * (1 - i)
            dgates[b, H + j] = d_c * c_prev[b, j] * f * (1 - f)
            dgates[b, 2 * H + j] = d_c * i * (1 - g * g)
            dgates[b, 3 * H + j] = d_h * tc * o * (1 - o)
            dc[b, j] = d_c * f


@kernel
def gru_step(ig, hg, h_prev, n, H, h_out, ws):
    """ig, hg (B, 3H): input and hidden projections (biases included) for r, z, n; h = (1 - z) n +
    z h_prev with n = tanh(ig_n + r hg_n). ``ws`` (B, 4H) keeps r, z, n, hg_n for backward."""
    for b in range(n):
        for j in range(H):
            r = vsigmoid(ig[b, j] + hg[b, j])
            z = vsigmoid(ig[b, H + j] + hg[b, H + j])
            hn = hg[b, 2 * H + j]
            nn = vtanh(ig[b, 2 * H + j] + r * hn)
            ws[b, j] = r
            ws[b, H + j] = z
            ws[b, 2 * H + j] = nn
            ws[b, 3 * H + j] = hn
            h_out[b, j] = (1 - z) * nn + z * h_prev[b, j]


@kernel
def gru_step_backward(ws, h_prev, dh, n, H, dig, dhg):
    """Grads of the input and hidden projections (dig, dhg, (B, 3H)); dh becomes the direct part
    of h_prev's grad (dh * z), to which the caller adds dhg @ W_hh. Rows < n."""
    for b in range(n):
        for j in range(H):
            r = ws[b, j]
            z = ws[b, H + j]
            nn = ws[b, 2 * H + j]
            hn = ws[b, 3 * H + j]
            d = dh[b, j]
            dn = d * (1 - z) * (1 - nn * nn)
            dz = d * (h_prev[b, j] - nn) * z * (1 - z)
            dr = dn * hn * r * (1 - r)
            dig[b, j] = dr
            dig[b, H + j] = dz
            dig[b, 2 * H + j] = dn
            dhg[b, j] = dr
            dhg[b, H + j] = dz
            dhg[b, 2 * H + j] = dn * r
            dh[b, j] = d * z


@kernel
def rnn_step(pre, n, H, relu, h_out):
    """h = tanh(pre) (or relu) for rows < n; pre (B, H) already holds ig + hg."""
    for b in range(n):
        for j in range(H):
            x = pre[b, j]
            if relu:
                h_out[b, j] = x if x > 0 else 0 * x
            else:
                h_out[b, j] = vtanh(x)


@kernel
def rnn_step_backward(h, dh, n, H, relu, dpre):
    """Grad of the pre-activation from the step's output h and its grad, rows < n."""
    for b in range(n):
        for j in range(H):
            y = h[b, j]
            if relu:
                dpre[b, j] = dh[b, j] if y > 0 else 0 * dh[b, j]
            else:
                dpre[b, j] = dh[b, j] * (1 - y * y)
