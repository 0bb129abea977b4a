"""Recurrent-cell kernels: the gate math of one time step of an LSTM, GRU or Elman RNN, forward
and backward, on the first ``n`` rows of contiguous (B, G*H) blocks. The matrix products around
them (input and hidden projections) stay in BLAS; see numtorch/ops/nn/rnn.py (Note [RNN layer op]).

Each row is taken apart into 1-d gate slices before the inner loop: indexing ``gates[b, H + j]``
directly kept LLVM from vectorising the loop (the LSTM step ran 8x slower)."""

from __future__ import annotations

from numtorch.kernels._jit import kernel
from numtorch.kernels.cpu.pointwise.vmath import vsigmoid, vtanh


@kernel
def lstm_step(gates, c_prev, n, H, h_out, c_out):
    """gates (B, 4H) pre-activations i, f, g, o (overwritten by their activations);
    c = f * c_prev + i * g, h = o * tanh(c) for rows < n."""
    for b in range(n):
        gi, gf, gg, go = gates[b, :H], gates[b, H : 2 * H], gates[b, 2 * H : 3 * H], gates[b, 3 * H :]
        cp, co, ho = c_prev[b], c_out[b], h_out[b]
        for j in range(H):
            i = vsigmoid(gi[j])
            f = vsigmoid(gf[j])
            g = vtanh(gg[j])
            o = vsigmoid(go[j])
            gi[j] = i
            gf[j] = f
            gg[j] = g
            go[j] = o
            c = f * cp[j] + i * g
            co[j] = c
            ho[j] = o * vtanh(c)


@kernel
def lstm_step_backward(gates, c_prev, c, dh, dc, n, H, dgates):
    """From the activated gates and the grads of h and c at this step, the grads of the gate
    pre-activations into ``dgates`` and of c_prev into ``dc`` (in place), rows < n."""
    for b in range(n):
        gi, gf, gg, go = gates[b, :H], gates[b, H : 2 * H], gates[b, 2 * H : 3 * H], gates[b, 3 * H :]
        di, df, dg, do = dgates[b, :H], dgates[b, H : 2 * H], dgates[b, 2 * H : 3 * H], dgates[b, 3 * H :]
        cp, cb, dhb, dcb = c_prev[b], c[b], dh[b], dc[b]
        for j in range(H):
            i = gi[j]
            f = gf[j]
            g = gg[j]
            o = go[j]
            tc = vtanh(cb[j])
            d_h = dhb[j]
            d_c = dcb[j] + d_h * o * (1 - tc * tc)
            di[j] = d_c * g * i * (1 - i)
            df[j] = d_c * cp[j] * f * (1 - f)
            dg[j] = d_c * i * (1 - g * g)
            do[j] = d_h * tc * o * (1 - o)
            dcb[j] = d_c * f


@kernel
def gru_step(ig, hg, h_prev, n, H, h_out, ws):
    """ig, hg (B, 3H): input and hidden projections (biases included) for r, z, n; h = (1 - z) n +
    z h_prev with n = tanh(ig_n + r hg_n). ``ws`` (B, 4H) keeps r, z, n, hg_n for backward."""
    for b in range(n):
        ir, iz, in_ = ig[b, :H], ig[b, H : 2 * H], ig[b, 2 * H : 3 * H]
        hr, hz, hn_ = hg[b, :H], hg[b, H : 2 * H], hg[b, 2 * H : 3 * H]
        wr, wz, wn, wh = ws[b, :H], ws[b, H : 2 * H], ws[b, 2 * H : 3 * H], ws[b, 3 * H :]
        hp, ho = h_prev[b], h_out[b]
        for j in range(H):
            r = vsigmoid(ir[j] + hr[j])
            z = vsigmoid(iz[j] + hz[j])
            hn = hn_[j]
            nn = vtanh(in_[j] + r * hn)
            wr[j] = r
            wz[j] = z
            wn[j] = nn
            wh[j] = hn
            ho[j] = (1 - z) * nn + z * hp[j]


@kernel
def gru_step_backward(ws, h_prev, dh, n, H, dig, dhg):
    """Grads of the input and hidden projections (dig, dhg, (B, 3H)); dh becomes the direct part
    of h_prev's grad (dh * z), to which the caller adds dhg @ W_hh. Rows < n."""
    for b in range(n):
        wr, wz, wn, wh = ws[b, :H], ws[b, H : 2 * H], ws[b, 2 * H : 3 * H], ws[b, 3 * H :]
        ir, iz, in_ = dig[b, :H], dig[b, H : 2 * H], dig[b, 2 * H : 3 * H]
        hr, hz, hn_ = dhg[b, :H], dhg[b, H : 2 * H], dhg[b, 2 * H : 3 * H]
        hp, dhb = h_prev[b], dh[b]
        for j in range(H):
            r = wr[j]
            z = wz[j]
            nn = wn[j]
            hn = wh[j]
            d = dhb[j]
            dn = d * (1 - z) * (1 - nn * nn)
            dz = d * (hp[j] - nn) * z * (1 - z)
            dr = dn * hn * r * (1 - r)
            ir[j] = dr
            iz[j] = dz
            in_[j] = dn
            dhb[j] = d * z
        # a second pass: seven output streams in one loop were too many for LLVM's alias checks
        for j in range(H):
            hr[j] = ir[j]
            hz[j] = iz[j]
            hn_[j] = in_[j] * wr[j]


@kernel
def rnn_step(pre, n, H, relu, h_out):
    """h = tanh(pre) (or relu) for rows < n; pre (B, H) already holds ig + hg."""
    for b in range(n):
        pb, hb = pre[b, :H], h_out[b, :H]
        if relu:
            for j in range(H):
                x = pb[j]
                hb[j] = x if x > 0 else 0 * x
        else:
            for j in range(H):
                hb[j] = vtanh(pb[j])


@kernel
def rnn_step_backward(h, dh, n, H, relu, dpre):
    """Grad of the pre-activation from the step's output h and its grad, rows < n."""
    for b in range(n):
        hb, dhb, db = h[b, :H], dh[b, :H], dpre[b, :H]
        if relu:
            for j in range(H):
                db[j] = dhb[j] if hb[j] > 0 else 0 * dhb[j]
        else:
            for j in range(H):
                y = hb[j]
                db[j] = dhb[j] * (1 - y * y)
