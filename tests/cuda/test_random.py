"""Philox random numbers on CUDA (Note [CUDA random numbers]): Random123's known answers,
seeding and state, the distributions' ranges and moments, dropout."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda

# Random123's kat_vectors for philox4x32_10: (counter, key) -> words
_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]  # fmt: skip


def test_philox_matches_random123_known_answers():
    from numtorch.cuda import _storage as S
    from numtorch.kernels.cuda import random as K

    numtorch.cuda.init()
    out = S.empty((4,), np.uint32)
    for ctr, key, want in _KAT:
        K.philox_words[1, 1](1, out.root, *(np.uint64(v) for v in ctr + key))
        assert tuple(int(v) for v in out.copy_to_host()) == want


def test_seeding_and_state_reproduce_draws():
    numtorch.cuda.manual_seed(5)
    a = numtorch.rand(7, device="cuda")
    b = numtorch.rand(7, device="cuda")
    assert not (a == b).all().item()  # each call advances the offset
    numtorch.manual_seed(5)  # seeds CUDA too, as in PyTorch
    assert (numtorch.rand(7, device="cuda") == a).all().item()
    state = numtorch.cuda.get_rng_state()
    assert state.dtype == numtorch.uint8 and state.shape == (16,) and state.device.type == "cpu"
    x = numtorch.randn(3, 2, device="cuda", dtype=numtorch.float64)
    numtorch.cuda.set_rng_state(state)
    assert (numtorch.randn(3, 2, device="cuda", dtype=numtorch.float64) == x).all().item()
    assert numtorch.cuda.initial_seed() == 5


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_distributions(dtype):
    numtorch.cuda.manual_seed(0)
    ut = numtorch.rand(999, device="cuda", dtype=dtype)
    assert ut.dtype == dtype and ut.device.type == "cuda"
    u = ut.cpu().numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05 and len(np.unique(u)) == u.size
    z = numtorch.randn(1001, device="cuda", dtype=dtype).cpu().numpy()
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1
    t = numtorch.empty(4, 50, device="cuda", dtype=dtype)
    t[:, ::2].uniform_(-3, -2)  # a strided view: the rest stays
    t[:, 1::2].normal_(10, 0.5)
    h = t.cpu().numpy()
    assert ((h[:, ::2] >= -3) & (h[:, ::2] < -2)).all() and abs(h[:, 1::2].mean() - 10) < 0.2


def test_bernoulli_and_dropout():
    numtorch.cuda.manual_seed(1)
    b = numtorch.empty(400, device="cuda").bernoulli_(0.25).cpu().numpy()
    assert set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.25) < 0.08
    x = numtorch.ones(300, device="cuda", dtype=numtorch.float64, requires_grad=True)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    h, g = y.detach().cpu().numpy(), x.grad.cpu().numpy()
    assert set(np.unique(h)) == {0.0, 1 / 0.6} and abs((h == 0).mean() - 0.4) < 0.1
    np.testing.assert_array_equal(g, h)
    f = F.dropout2d(numtorch.ones(2, 10, 2, 2, device="cuda"), 0.5)
    assert f.device.type == "cuda" and (f.cpu().numpy().reshape(2, 10, 4).std(-1) == 0).all()


def test_cpu_generator_is_refused():
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        numtorch.rand(3, device="cuda", generator=numtorch.Generator())
