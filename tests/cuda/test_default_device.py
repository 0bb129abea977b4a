"""set_default_device("cuda"): factories without device= make CUDA tensors (PyTorch's global
DeviceContext mode), so a model built, trained and stepped there lives on the device."""

from __future__ import annotations

import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


@pytest.fixture
def on_cuda():
    numtorch.set_default_device("cuda")
    try:
        yield
    finally:
        numtorch.set_default_device(None)


def test_factories_and_modules_follow_the_default_device(on_cuda):
    assert numtorch.get_default_device() == numtorch.device("cuda", 0)
    made = [numtorch.ones(2), numtorch.tensor([1.0]), numtorch.arange(3), numtorch.randn(2), numtorch.eye(2)]
    assert all(t.device.type == "cuda" for t in made)
    assert numtorch.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
    m = numtorch.nn.Linear(3, 2)
    assert m.weight.device.type == "cuda" and m.bias.device.type == "cuda"
    opt = numtorch.optim.SGD(m.parameters(), lr=0.1)
    before = m.weight.detach().clone()
    m(numtorch.randn(4, 3)).pow(2).mean().backward()
    opt.step()
    assert not (m.weight.detach() == before).all().item()


def test_setting_it_again_replaces_the_mode(on_cuda):
    numtorch.set_default_device("cuda")
    numtorch.set_default_device("cpu")
    assert numtorch.ones(1).device.type == "cpu" and numtorch.get_default_device().type == "cpu"
    numtorch.set_default_device("cuda")
    assert numtorch.ones(1).device.type == "cuda"
