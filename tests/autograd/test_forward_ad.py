"""Forward-mode AD: dual tensors, JVPs from the registry, custom Function jvp."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.autograd.forward_ad as fwAD
from numtorch.autograd import gradcheck


def test_jvp_of_a_composition_matches_the_chain_rule():
    with fwAD.dual_level():
        x = fwAD.make_dual(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 0.5]))
        y = (x * x).exp()
        primal, tangent = fwAD.unpack_dual(y)
    v = np.array([1.0, 2.0])
    np.testing.assert_allclose(tangent.numpy(), 2 * v * np.exp(v * v) * np.array([1.0, 0.5]), rtol=1e-5)
    assert fwAD.unpack_dual(y).tangent is None  # cleared on exit


def test_make_dual_needs_a_level_and_a_matching_shape():
    with pytest.raises(RuntimeError, match="you need to be within a dual_level context manager"):
        fwAD.make_dual(numtorch.ones(2), numtorch.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Tensor is of size \\[2\\] while the given forward gradient is of size \\[3\\]"):
            fwAD.make_dual(numtorch.ones(2), numtorch.ones(3))


def test_gradcheck_with_forward_ad():
    a = numtorch.tensor([0.3, -0.5], dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda t: (t * t).exp(), (a,), check_forward_ad=True)


def test_custom_function_jvp_is_called():
    import importlib.util
    import pathlib

    p = pathlib.Path(__file__).parents[2] / "examples" / "extending_autograd.py"
    spec = importlib.util.spec_from_file_location("ex_fw", p)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    with fwAD.dual_level():
        x = fwAD.make_dual(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 1.0]))
        t = fwAD.unpack_dual(ex.ScaleWithJvp.apply(x, 3.0)).tangent
    assert t.tolist() == [3.0, 3.0]


def _t(v):
    return numtorch.tensor(v, dtype=numtorch.float64)


def test_tangents_propagate_through_views_and_inplace_ops():
    # values checked against PyTorch 2.13
    with fwAD.dual_level():
        x = fwAD.make_dual(_t([1.0, 2.0, 3.0]), _t([1.0, 1.0, 1.0]))
        y = x.clone()
        y[1:].mul_(x[1:])  # in place through a view: d(y_i * x_i) = 2 x_i for i >= 1
        assert fwAD.unpack_dual(y).tangent.tolist() == [1.0, 4.0, 6.0]
        z = x * 2
        v = z.view(3, 1)
        z.add_(x)  # the view sees its base's new tangent
        assert fwAD.unpack_dual(v).tangent.tolist() == [[3.0], [3.0], [3.0]]
        p = _t([1.0, 2.0, 3.0])  # a tensor without tangent updated in place by a dual one
        p.mul_(x)
        assert fwAD.unpack_dual(p).tangent.tolist() == [1.0, 2.0, 3.0]
        _, b = x.split([1, 2])
        assert fwAD.unpack_dual(b).tangent.tolist() == [1.0, 1.0]


def test_tangents_through_tensor_list_ops_and_multi_output_ops():
    with fwAD.dual_level():
        x = fwAD.make_dual(_t([1.0, 2.0, 4.0]), _t([1.0, 0.0, 0.0]))
        c = numtorch.cat([x, x * 3])  # a tensor-list argument
        assert fwAD.unpack_dual(c).tangent.tolist() == [1.0, 0.0, 0.0, 3.0, 0.0, 0.0]
        var, mean = numtorch.var_mean(x)  # two outputs of one node
        xs = np.array([1.0, 2.0, 4.0])
        np.testing.assert_allclose(fwAD.unpack_dual(var).tangent.item(), (xs[0] - xs.mean()) * 2 / 2)
        np.testing.assert_allclose(fwAD.unpack_dual(mean).tangent.item(), 1 / 3)
