"""numtorch.cuda answers as PyTorch's CPU-only build when there is no CUDA."""

from __future__ import annotations

import warnings

import pytest

import numtorch

pytestmark = pytest.mark.skipif(numtorch.cuda.is_available(), reason="CUDA is available here")


def test_probes_answer_no_cuda():
    assert numtorch.cuda.is_available() is False
    assert numtorch.cuda.device_count() == 0
    assert numtorch.cuda.is_initialized() is False
    assert numtorch.cuda.memory_allocated() == 0


def test_seeding_and_cache_calls_are_harmless():
    assert numtorch.cuda.manual_seed(0) is None
    assert numtorch.cuda.manual_seed_all(0) is None
    assert numtorch.cuda.empty_cache() is None


@pytest.mark.parametrize(
    "call",
    [
        lambda: numtorch.zeros(2, device="cuda"),
        lambda: numtorch.ones(2).cuda(),
        lambda: numtorch.ones(2).to("cuda:0"),
        lambda: numtorch.cuda.synchronize(),
        lambda: numtorch.cuda.current_device(),
        lambda: numtorch.set_default_device("cuda"),
    ],
)
def test_gpu_work_raises_not_compiled_naming_the_extra(call):
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled") as info:
        call()
    assert isinstance(info.value, RuntimeError)
    assert "numtorch[cuda]" in str(info.value)


def test_device_object_for_cuda_can_still_be_made():
    assert str(numtorch.device("cuda", 0)) == "cuda:0"


def test_cuda_grad_scaler_disables_itself_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = numtorch.cuda.amp.GradScaler()
    assert not scaler.is_enabled()
    x = numtorch.ones(2)
    assert scaler.scale(x) is x
    assert scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}


def test_disabled_scaler_step_calls_the_optimizer():
    p = numtorch.nn.Parameter(numtorch.ones(2))
    opt = numtorch.optim.SGD([p], lr=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler = numtorch.amp.GradScaler("cuda", enabled=False)
    (scaler.scale(p.sum())).backward()
    scaler.step(opt)
    scaler.update()
    assert p.tolist() == [0.5, 0.5]
