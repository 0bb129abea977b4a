"""Layer-level workloads of the API-breadth issue for ``benchmarks/compare.py`` (category
``layers``): the recurrent and transformer layers at the sizes the issue names, fft of 2**20
points, and a 3-d convolution. Each builder returns a zero-argument callable per library."""

from __future__ import annotations


def _lib(name):
    from benchmarks import workloads

    return workloads._L(name)


def _data(name, shape, requires_grad=False):
    from benchmarks import workloads

    return workloads._data(name, shape, requires_grad=requires_grad)


def _fwd_bwd(module, x):
    params = list(module.parameters())

    def step():
        for p in params:
            p.grad = None
        out = module(x)
        (out[0] if isinstance(out, tuple) else out).sum().backward()

    return step


def lstm(name):
    """2-layer LSTM, hidden 256, sequence 35, batch 20 (the word-level language model's size)."""
    L = _lib(name)
    L.manual_seed(0)
    return _fwd_bwd(L.nn.LSTM(256, 256, num_layers=2), _data(name, (35, 20, 256)))


def transformer_layer(name):
    """TransformerEncoderLayer, d_model 256, 4 heads, sequence 64, batch 16, batch_first."""
    L = _lib(name)
    L.manual_seed(0)
    layer = L.nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0, batch_first=True)
    return _fwd_bwd(layer, _data(name, (16, 64, 256)))


def fft(name):
    """Complex fft of 2**20 float32 points (numpy: its pocketfft, which numtorch wraps)."""
    x = _data(name, (1 << 20,))
    L = _lib(name)
    return lambda: L.fft.fft(x)


def fft_complex(name):
    """Complex fft of 2**20 complex64 points."""
    x = _data(name, (1 << 20, 2))
    L = _lib(name)
    z = (x[:, 0] + 1j * x[:, 1]).astype("complex64") if name == "numpy" else L.view_as_complex(x)
    return lambda: L.fft.fft(z)


def conv3d(name):
    """Conv3d(4 -> 8, kernel 3) + ReLU fwd+bwd on a batch of 4 volumes of 16**3."""
    L = _lib(name)
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Conv3d(4, 8, 3), L.nn.ReLU())
    return _fwd_bwd(net, _data(name, (4, 4, 16, 16, 16)))
