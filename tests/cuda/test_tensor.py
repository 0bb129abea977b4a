"""CUDA tensors: factories, transfers, conversions, views, copies, devices and errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
DATA = [[1.0, -2.0, 3.0], [4.0, 5.5, -6.0]]


@pytest.mark.parametrize("dev", ["cuda", "cuda:0", numtorch.device("cuda", 0), numtorch.device("cuda")])
def test_factories_take_every_device_spelling(dev):
    for t in (numtorch.zeros(2, 3, device=dev), numtorch.ones(2, device=dev), numtorch.full((2,), 7, device=dev),
              numtorch.arange(3, device=dev), numtorch.tensor(DATA, device=dev), numtorch.empty(2, device=dev),
              numtorch.randn(3, device=dev), numtorch.eye(2, device=dev)):  # fmt: skip
        assert t.device == numtorch.device("cuda", 0) and t.is_cuda and not t.is_cpu
    assert numtorch.full((2,), 7, device=dev).cpu().tolist() == [7, 7]
    assert numtorch.zeros_like(numtorch.ones(2, device=dev)).device.type == "cuda"


def test_to_cuda_cpu_round_trip_keeps_values_and_dtype():
    x = numtorch.tensor(DATA)
    for y in (x.cuda(), x.to("cuda"), x.to("cuda:0", non_blocking=True), x.to(numtorch.device("cuda", 0))):
        assert y.device.type == "cuda" and y.dtype == numtorch.float32
        assert y.cpu().tolist() == DATA
        assert y.to("cpu").device.type == "cpu"
    y = x.cuda()
    assert y.cuda() is y and x.cpu() is x
    assert y.to(numtorch.float64).dtype == numtorch.float64
    assert y.to(numtorch.int64).cpu().tolist() == [[1, -2, 3], [4, 5, -6]]
    assert y.double().device.type == "cuda"
    assert x.to("cuda", numtorch.int32).cpu().dtype == numtorch.int32


def test_repr_item_tolist_and_type():
    y = numtorch.tensor([1.5, 2.0], device="cuda")
    assert "device='cuda:0'" in repr(y)
    assert y[0].item() == 1.5 and y.tolist() == [1.5, 2.0]
    assert y.type() == "torch.cuda.FloatTensor"


def test_numpy_of_a_cuda_tensor_raises_pytorchs_error():
    with pytest.raises(TypeError) as info:
        numtorch.ones(2, device="cuda").numpy()
    assert str(info.value) == (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
        "host memory first."
    )
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        np.asarray(numtorch.ones(2, device="cuda")._data)


def test_cuda_array_interface():
    y = numtorch.arange(6.0, device="cuda").reshape(2, 3)
    cai = y.__cuda_array_interface__
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["version"] == 3
    assert cai["strides"] is None and cai["data"][1] is False and cai["data"][0] != 0
    t = y.t()
    assert t.__cuda_array_interface__["strides"] == (4, 12)
    assert y[1].__cuda_array_interface__["data"][0] == cai["data"][0] + 12
    assert not hasattr(numtorch.ones(2), "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="non-CUDA tensor type: torch.FloatTensor"):
        numtorch.ones(2).__cuda_array_interface__
    with pytest.raises(RuntimeError, match="requires grad"):
        numtorch.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__


MIXED = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


@pytest.mark.parametrize("call", [
    lambda c, h: c + h, lambda c, h: h + c, lambda c, h: c.mul_(h), lambda c, h: numtorch.mm(c, h.t()),
    lambda c, h: numtorch.add(c, c, out=h), lambda c, h: numtorch.maximum(h, c),
])  # fmt: skip
def test_mixing_devices_raises_pytorchs_error(call):
    c, h = numtorch.ones(2, 3, device="cuda"), numtorch.ones(2, 3)
    before = h.tolist()
    with pytest.raises(RuntimeError) as info:
        call(c, h)
    assert str(info.value) == MIXED
    assert h.tolist() == before


def test_a_cpu_zero_dim_tensor_stands_for_a_scalar():
    c = numtorch.tensor([1.0, 2.0], device="cuda")
    r = c * numtorch.tensor(3.0)
    assert r.device.type == "cuda" and r.cpu().tolist() == [3.0, 6.0]
    r = numtorch.tensor(3.0) * c  # first operand too: the op still runs on CUDA
    assert r.device.type == "cuda" and r.cpu().tolist() == [3.0, 6.0]
    assert numtorch.sub(numtorch.tensor(1.0), c).cpu().tolist() == [0.0, -1.0]


def test_views_share_device_memory():
    x = numtorch.arange(12.0, device="cuda").reshape(3, 4)
    row, col, t = x[1], x[:, 2], x.t()
    assert row.cpu().tolist() == [4.0, 5.0, 6.0, 7.0]
    assert col.cpu().tolist() == [2.0, 6.0, 10.0]
    assert t.shape == (4, 3) and t.stride() == (1, 4) and not t.is_contiguous()
    row.mul_(10)  # writes through the view into x
    assert x.cpu()[1].tolist() == [40.0, 50.0, 60.0, 70.0]
    assert x._version == row._version
    assert x.view(12).cpu().tolist()[4] == 40.0
    assert x.unsqueeze(0).expand(2, 3, 4).cpu().numpy()[1, 2, 3] == 11.0


def test_non_contiguous_copies():
    h = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = numtorch.from_numpy(h.copy()).cuda()
    for view, ref in ((x.permute(2, 0, 1), h.transpose(2, 0, 1)), (x[:, ::2, 1:], h[:, ::2, 1:]),
                      (x.t() if x.ndim == 2 else x.transpose(0, 2), h.transpose(2, 1, 0))):  # fmt: skip
        c = view.contiguous()
        assert c.is_contiguous() and c.device.type == "cuda"
        np.testing.assert_array_equal(c.cpu().numpy(), ref)
        np.testing.assert_array_equal(view.clone().cpu().numpy(), ref)
        np.testing.assert_array_equal(view.cpu().numpy(), ref)


def test_copy_between_devices():
    c = numtorch.zeros(2, 3, device="cuda")
    c.copy_(numtorch.tensor(DATA))
    assert c.cpu().tolist() == DATA
    c[0].copy_(numtorch.tensor([9.0, 9.0, 9.0], device="cuda"))
    h = numtorch.zeros(2, 3)
    h.copy_(c)
    assert h.tolist() == [[9.0, 9.0, 9.0], DATA[1]]
    c.copy_(numtorch.tensor([1, 2, 3]))  # broadcast and cast
    assert c.cpu().tolist() == [[1.0, 2.0, 3.0]] * 2


def test_module_cuda_and_to_move_parameters():
    m = numtorch.nn.Linear(3, 2)
    w = m.weight.detach().clone()
    assert m.cuda() is m
    assert m.weight.device.type == "cuda" and isinstance(m.weight, numtorch.nn.Parameter)
    x = numtorch.tensor(DATA, device="cuda")
    want = numtorch.tensor(DATA) @ w.t() + m.bias.detach().cpu()
    np.testing.assert_allclose(m(x).detach().cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    m.to("cpu")
    assert m.weight.device.type == "cpu"


def test_ops_without_a_cuda_kernel_say_so():
    x = numtorch.ones(2, 3, device="cuda")
    with pytest.raises(NotImplementedError) as info:
        numtorch.searchsorted(x[0], x[1])
    msg = str(info.value)
    assert msg.startswith("Could not run 'aten::searchsorted.Tensor' with arguments from the 'CUDA' backend.")
    assert "CPU" in msg


def test_complex_without_a_device_kernel_refuses_by_name():  # Note [Complex on CUDA]
    x = numtorch.ones(2, device="cuda", dtype=numtorch.complex64)
    assert (x + x).cpu().tolist() == [2 + 0j, 2 + 0j]
    with pytest.raises(RuntimeError, match="\"cumprod_cuda\" not implemented for 'ComplexFloat'"):
        x.cumprod(0)  # (complex logcumsumexp has its kernel: tests/cuda/test_scan.py)


def test_zero_dim_tensors_keep_their_shape_on_the_device():
    for t in (numtorch.tensor(2.0, device="cuda"), numtorch.tensor(2.0).cuda(), numtorch.ones((), device="cuda")):
        assert t.shape == () and t.dim() == 0
        assert (t + t).shape == () and t.cpu().shape == ()


def test_pointer_offset_copies_and_serialization():
    import copy
    import io

    x = numtorch.arange(6.0, device="cuda").reshape(2, 3)
    assert x[1].storage_offset() == 3 and x.t().storage_offset() == 0
    assert x[1].data_ptr() == x.data_ptr() + 12
    d = copy.deepcopy(x)
    assert d.device.type == "cuda" and d.data_ptr() != x.data_ptr() and d.cpu().tolist() == x.cpu().tolist()
    buf = io.BytesIO()
    numtorch.save(x, buf)
    buf.seek(0)
    y = numtorch.load(buf)
    assert y.device.type == "cuda" and y.cpu().tolist() == x.cpu().tolist()


def test_tensor_of_a_cuda_tensor_stays_on_its_device():
    x = numtorch.ones(2, device="cuda")
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = numtorch.tensor(x)
    assert y.device.type == "cuda" and y.data_ptr() != x.data_ptr()


@pytest.mark.parametrize("name,make", [
    ("zeros", lambda d, x: numtorch.zeros(2, 3, device=d)),
    ("ones int", lambda d, x: numtorch.ones(4, device=d, dtype=numtorch.int64)),
    ("full", lambda d, x: numtorch.full((2, 2), 7.5, device=d)),
    ("full int value", lambda d, x: numtorch.full((2,), 3, device=d)),
    ("full 0-d tensor value", lambda d, x: numtorch.full((2,), numtorch.tensor(4.0), device=d)),
    ("zeros_like", lambda d, x: numtorch.zeros_like(x)),
    ("ones_like dtype", lambda d, x: numtorch.ones_like(x, dtype=numtorch.float32)),
    ("new_full bool", lambda d, x: x.new_full((2,), True)),
    ("full_like", lambda d, x: numtorch.full_like(x.t(), 2)),
    ("empty shape", lambda d, x: numtorch.empty(0, 3, device=d)),
])  # fmt: skip
def test_filled_factories_are_made_on_the_device(name, make):
    # zeros/ones/full/empty (and *_like, new_*) run their meta kernel and a fill kernel: no upload
    want = make("cpu", numtorch.ones(2, 3, dtype=numtorch.float64))
    got = make("cuda", numtorch.ones(2, 3, dtype=numtorch.float64, device="cuda"))
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
