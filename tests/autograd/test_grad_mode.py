"""numtorch/autograd/grad_mode.py: inference_mode and inference tensors (Note [Inference tensors])."""

from __future__ import annotations

import pytest

import numtorch

SAVE = "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode"
INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone"


def _inference(*shape):
    with numtorch.inference_mode():
        return numtorch.ones(*shape)


def test_tensors_made_inside_inference_mode_are_inference_tensors():
    normal = numtorch.ones(3)
    for _ in range(3):  # the inlined fast paths learn these signatures first: they must mark too
        normal * 2.0, normal + normal, normal + 1, normal.sum()
    with numtorch.inference_mode():
        x = numtorch.ones(3)
        made = [x, x + x, x * 2.0, x.sum(), numtorch.ones(2, 2) @ numtorch.ones(2, 2), x.view(3), normal + 1]
        view_of_normal = normal.view(3)
    assert all(t.is_inference() for t in made)
    assert not view_of_normal.is_inference() and not normal.is_inference()
    assert not (x + 1).is_inference() and not x.clone().is_inference()
    assert x.detach().is_inference()
    with numtorch.no_grad():
        assert not numtorch.ones(1).is_inference()


def test_inference_tensor_cannot_be_saved_for_backward():
    x, y = _inference(3), numtorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=SAVE):
        x * y
    (x + y).sum().backward()  # add saves nothing: allowed, as in PyTorch
    assert y.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("write", [
    lambda x: x.add_(1), lambda x: x.mul_(2.0), lambda x: x.zero_(), lambda x: x.fill_(3),
    lambda x: x.copy_(numtorch.zeros(3)), lambda x: x.__setitem__(0, 5.0), lambda x: x[1:].sin_(),
    lambda x: numtorch.add(numtorch.ones(3), 1, out=x),
])  # fmt: skip
def test_inplace_update_of_inference_tensor_outside_raises_before_writing(write):
    x = _inference(3)
    with pytest.raises(RuntimeError, match=INPLACE):
        write(x)
    assert x.tolist() == [1.0, 1.0, 1.0]
    with numtorch.inference_mode():  # allowed inside
        write(x)


def test_inference_tensor_version_and_requires_grad_outside():
    x = _inference(2)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter."):
        x._version
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        x.requires_grad_()
    with numtorch.inference_mode():
        assert x._version == 0


def test_normal_tensor_updated_inside_inference_mode_stays_normal():
    n = numtorch.ones(3)
    with numtorch.inference_mode():
        n.add_(1)
    assert not n.is_inference() and n._version == 1


def test_torch_is_inference_function():
    assert numtorch.is_inference(_inference(1)) and not numtorch.is_inference(numtorch.ones(1))
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        numtorch.is_inference(1)
