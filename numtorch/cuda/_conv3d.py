"""3-d convolution on CUDA, composed from the 2-d one (numtorch/cuda/_conv.py) per depth tap.

# Note [CUDA conv3d by depth taps]
# out[:, :, od] = sum over kd of conv2d(x[:, :, od*sd - pd + kd*dd], w[:, :, kd]): for each kernel
# depth tap kd the output depths that read a real (unpadded) input depth form one run, whose
# input depths are a strided slice; the run goes through the 2-d convolution as a batch of
# N * run 2-d images and is added into its output depths. The backward does the same with the
# 2-d backward: input gradients are added into the same strided slices, the weight gradient of
# tap kd is the 2-d one. KD launches of the 2-d path instead of a vol2col kernel: no new kernel to
# compile for the device, at KD times the launches. Transposed: input depth id reaches output
# depth id * sd + kd * dd - pd, so each tap's run is a slice of input depths whose outputs are a
# strided slice; the 2-d transposed convolution of the run is added there (backward: the 2-d
# transposed backward of the same slices).
"""

from __future__ import annotations

import numpy as np

import numtorch

from ..ops.nn import conv as C


def _params(stride, padding, dilation, output_padding):
    return [C.expand_param(v, n, 3) for v, n in ((stride, "stride"), (padding, "padding"),
                                                 (dilation, "dilation"), (output_padding, "output_padding"))]  # fmt: skip


def _taps(D, OD, KD, sd, pd, dd):
    """(kd, first output depth, run length, first input depth) of each tap that reads real input."""
    for kd in range(KD):
        off = kd * dd - pd  # input depth of output depth od: od * sd + off
        lo = -(off // sd) if off < 0 else 0
        hi = min(OD, (D - 1 - off) // sd + 1)
        if hi > lo:
            yield kd, lo, hi - lo, lo * sd + off


def _ttaps(D, OD, KD, sd, pd, dd):
    """Transposed: (kd, first input depth, run length, first output depth) of each tap."""
    for kd in range(KD):
        off = kd * dd - pd  # output depth of input depth i: i * sd + off
        lo = -(off // sd) if off < 0 else 0
        hi = min(D, (OD - 1 - off) // sd + 1)
        if hi > lo:
            yield kd, lo, hi - lo, lo * sd + off


def _tdepth(D, KD, sd, pd, dd, opd):
    return (D - 1) * sd - 2 * pd + dd * (KD - 1) + opd + 1


def _geometry(input, weight, stride, padding, dilation):
    N, Cin, D, H, W = input.shape
    O, _, KD, KH, KW = weight.shape
    out = [(n + 2 * p - d * (k - 1) - 1) // s + 1
           for n, k, s, p, d in zip((D, H, W), (KD, KH, KW), stride, padding, dilation)]  # fmt: skip
    return N, Cin, D, H, W, O, KD, out


def _slice(t, i0, n, s):
    return t[:, :, i0 : i0 + s * (n - 1) + 1 : s]


def _as2d(t, N, n):  # (N, C, n, H, W) -> (N * n, C, H, W)
    return t.permute(0, 2, 1, 3, 4).reshape(N * n, t.shape[1], t.shape[3], t.shape[4])


def _as3d(t, N, n):  # (N * n, C, H, W) -> (N, C, n, H, W)
    return t.reshape(N, n, *t.shape[1:]).permute(0, 2, 1, 3, 4)


def forward(conv2d, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    stride, padding, dilation, output_padding = _params(stride, padding, dilation, output_padding)
    C._check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if transposed:
        return _transposed(conv2d, input, weight, bias, stride, padding, dilation, output_padding, groups)
    N, _, D, _, _, O, KD, (OD, OH, OW) = _geometry(input, weight, stride, padding, dilation)
    out = numtorch.zeros((N, O, OD, OH, OW), dtype=input.dtype, device=input.device)
    if out.numel() and input.numel():
        for kd, lo, n, i0 in _taps(D, OD, KD, stride[0], padding[0], dilation[0]):
            x2 = _as2d(_slice(input, i0, n, stride[0]), N, n)
            y = conv2d(x2, weight[:, :, kd], None, stride[1:], padding[1:], dilation[1:], False, [0, 0], groups)
            out[:, :, lo : lo + n].add_(_as3d(y, N, n))
    if bias is not None:
        out = out + bias.reshape(1, O, 1, 1, 1)
    return out


def backward(conv2d_backward, grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
             output_padding, groups, output_mask):  # fmt: skip
    stride, padding, dilation, output_padding = _params(stride, padding, dilation, output_padding)
    if transposed:
        return _transposed_backward(conv2d_backward, grad_output, input, weight, stride, padding, dilation,
                                    output_padding, groups, output_mask)  # fmt: skip
    N, _, D, _, _, O, KD, (OD, _, _) = _geometry(input, weight, stride, padding, dilation)
    gi = numtorch.zeros_like(input) if output_mask[0] else None
    gw = numtorch.zeros_like(weight) if output_mask[1] else None
    if grad_output.numel() and input.numel():
        for kd, lo, n, i0 in _taps(D, OD, KD, stride[0], padding[0], dilation[0]):
            go2 = _as2d(grad_output[:, :, lo : lo + n], N, n)
            x2 = _as2d(_slice(input, i0, n, stride[0]), N, n)
            r = conv2d_backward(go2, x2, weight[:, :, kd], None, stride[1:], padding[1:], dilation[1:], False,
                                [0, 0], groups, [output_mask[0], output_mask[1], False])  # fmt: skip
            if gi is not None:
                _slice(gi, i0, n, stride[0]).add_(_as3d(r[0], N, n))
            if gw is not None:
                gw[:, :, kd].add_(r[1])
    gb = grad_output.sum([0, 2, 3, 4]) if output_mask[2] else None
    return gi, gw, gb


def _transposed(conv2d, input, weight, bias, stride, padding, dilation, output_padding, groups):
    N, _, D = input.shape[:3]
    KD = weight.shape[2]
    out = None
    args = (stride[1:], padding[1:], dilation[1:], True, output_padding[1:], groups)
    OD = _tdepth(D, KD, stride[0], padding[0], dilation[0], output_padding[0])
    for kd, lo, n, o0 in _ttaps(D, OD, KD, stride[0], padding[0], dilation[0]):
        y = conv2d(_as2d(input[:, :, lo : lo + n], N, n), weight[:, :, kd], None, *args)
        if out is None:
            out = numtorch.zeros((N, y.shape[1], OD, *y.shape[2:]), dtype=input.dtype, device=input.device)
        _slice(out, o0, n, stride[0]).add_(_as3d(y, N, n))
    if out is None:  # no tap reads an input depth: the 2-d geometry from a one-depth call
        y = conv2d(_as2d(input[:, :, :1], N, 1), weight[:, :, 0], None, *args)
        out = numtorch.zeros((N, y.shape[1], OD, *y.shape[2:]), dtype=input.dtype, device=input.device)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out


def _transposed_backward(conv2d_backward, grad_output, input, weight, stride, padding, dilation, output_padding,
                         groups, output_mask):  # fmt: skip
    N, _, D = input.shape[:3]
    KD, OD = weight.shape[2], grad_output.shape[2]
    gi = numtorch.zeros_like(input) if output_mask[0] else None
    gw = numtorch.zeros_like(weight) if output_mask[1] else None
    if grad_output.numel() and input.numel():
        for kd, lo, n, o0 in _ttaps(D, OD, KD, stride[0], padding[0], dilation[0]):
            go2 = _as2d(_slice(grad_output, o0, n, stride[0]), N, n)
            x2 = _as2d(input[:, :, lo : lo + n], N, n)
            r = conv2d_backward(go2, x2, weight[:, :, kd], None, stride[1:], padding[1:], dilation[1:], True,
                                output_padding[1:], groups, [output_mask[0], output_mask[1], False])  # fmt: skip
            if gi is not None:
                gi[:, :, lo : lo + n].add_(_as3d(r[0], N, n))
            if gw is not None:
                gw[:, :, kd].add_(r[1])
    gb = grad_output.sum([0, 2, 3, 4]) if output_mask[2] else None
    return gi, gw, gb


# Note [CUDA max_pool3d by depth taps]
# The same runs as Note [CUDA conv3d by depth taps]: each tap's run is a batch of 2-d max pools
# (their indices, in h * W + w, gain the input depth's d * H * W), merged into the running
# maximum where a value is greater or NaN, taps in depth order: PyTorch's scan order (d, h, w),
# so ties keep the first position and NaN wins. The backward adds the gradients at the indices.
def max_pool3d_with_indices(pool2d, self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    from ..ops.nn import pooling3d as PL3

    geo, (OD, OH, OW) = PL3._geometry(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d", False)
    k, s, p, d = (list(map(int, geo[i : i + 3])) for i in (3, 6, 9, 12))
    x = self if self.dim() == 5 else self.unsqueeze(0)
    N, Cn, D, H, W = x.shape
    out = numtorch.full((N, Cn, OD, OH, OW), float("-inf"), dtype=self.dtype, device=self.device)
    idx = numtorch.zeros((N, Cn, OD, OH, OW), dtype=numtorch.int64, device=self.device)
    for _, lo, n, i0 in _taps(D, OD, k[0], s[0], p[0], d[0]):
        v, i = pool2d(_as2d(_slice(x, i0, n, s[0]), N, n), k[1:], s[1:], p[1:], d[1:], ceil_mode)
        depth = (numtorch.arange(n, device=self.device) * s[0] + i0).reshape(1, 1, n, 1, 1) * (H * W)
        v, i = _as3d(v, N, n), _as3d(i, N, n) + depth
        cur, cur_i = out[:, :, lo : lo + n], idx[:, :, lo : lo + n]
        take = (v > cur) | v.isnan()
        cur_i.copy_(numtorch.where(take, i, cur_i))
        cur.copy_(numtorch.where(take, v, cur))
    if self.dim() == 4:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return out, idx


def max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    rows = self.numel() // max(1, self.shape[-3] * self.shape[-2] * self.shape[-1]) if self.numel() else 0
    gi = numtorch.zeros((rows, self.shape[-3] * self.shape[-2] * self.shape[-1]), dtype=self.dtype, device=self.device)
    if gi.numel() and indices.numel():
        gi.scatter_add_(1, indices.reshape(rows, -1), grad_output.reshape(rows, -1).to(self.dtype))
    return gi.reshape(self.shape)


# Note [CUDA avg_pool3d by depth taps]
# Window sums per tap run from the 2-d average pool with divisor 1 (padding adds nothing), then
# one division by PyTorch's divisor, which factors per dimension: divisor_override, or the
# window's extent clipped to the padded input (count_include_pad) or to the input. The factors
# are geometry, computed on the host; the backward spreads grad / divisor with the 2-d backward.
def _divisor(sp, osp, k, s, p, include_pad: bool, override: int):
    if override:
        return float(override)
    f = []
    for n, o, kk, ss, pp in zip(sp, osp, k, s, p):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, n + pp)
        f.append(end - start if include_pad else np.minimum(end, n) - np.maximum(start, 0))
    return (f[0][:, None, None] * f[1][None, :, None] * f[2][None, None, :]).astype(np.float64)


def _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    from ..ops.nn import pooling3d as PL3

    geo, osp, div = PL3._avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    sp, k, s, p = (list(map(int, geo[i : i + 3])) for i in (0, 3, 6, 9))
    return sp, k, s, p, list(osp), div


def _as_device(div, like):
    if isinstance(div, float):
        return div
    return numtorch.from_numpy(div).to(device=like.device, dtype=like.dtype)


def avg_pool3d(pool2d, self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):  # fmt: skip
    sp, k, s, p, osp, div = _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    x = self if self.dim() == 5 else self.unsqueeze(0)
    N, Cn = x.shape[:2]
    out = numtorch.zeros((N, Cn, *osp), dtype=self.dtype, device=self.device)
    for _, lo, n, i0 in _taps(sp[0], osp[0], k[0], s[0], p[0], 1):
        sums = pool2d(_as2d(_slice(x, i0, n, s[0]), N, n), k[1:], s[1:], p[1:], ceil_mode, True, 1)
        out[:, :, lo : lo + n].add_(_as3d(sums, N, n))
    out = out / _as_device(_divisor(sp, osp, k, s, p, count_include_pad, div), out)
    return out if self.dim() == 5 else out.squeeze(0)


def avg_pool3d_backward(pool2d_backward, grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):  # fmt: skip
    sp, k, s, p, osp, div = _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    x = self if self.dim() == 5 else self.unsqueeze(0)
    g = grad_output if self.dim() == 5 else grad_output.unsqueeze(0)
    g = g / _as_device(_divisor(sp, osp, k, s, p, count_include_pad, div), g)
    N, Cn = x.shape[:2]
    gi = numtorch.zeros_like(x)
    for _, lo, n, i0 in _taps(sp[0], osp[0], k[0], s[0], p[0], 1):
        xs = _as2d(_slice(x, i0, n, s[0]), N, n)
        r = pool2d_backward(_as2d(g[:, :, lo : lo + n], N, n), xs, k[1:], s[1:], p[1:], ceil_mode, True, 1)
        _slice(gi, i0, n, s[0]).add_(_as3d(r, N, n))
    return gi if self.dim() == 5 else gi.squeeze(0)
