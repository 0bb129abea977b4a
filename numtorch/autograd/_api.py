"""``numtorch.autograd.backward`` / ``grad`` and the Tensor autograd methods."""

from __future__ import annotations

import numpy as np

from .._device import CPU
from .._dispatch import dispatch
from .._functorch._levels import VMAP_LEVELS
from .._state import STATE
from .._tensor import Tensor, _make
from ..overrides import handle_torch_function, has_torch_function, is_tensor_like
from ._backward import run_backward
from .graph import GradientEdge, gradient_edge

_ONES_LIKE = []  # (ones_like, preserve_format), filled on first use: ops import after autograd


def _ones_like_op():
    if not _ONES_LIKE:
        from ..ops.factory.core import ones_like
        from ..ops.shape._format import preserve_format

        _ONES_LIKE[:] = (ones_like, preserve_format)
    return _ONES_LIKE


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    res = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if not out._rg:  # the engine then names the output that needs no grad
                res.append(None)
                continue
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._dtype.category != 2:  # integer, bool and complex outputs need a gradient
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out._dtype}"
                )
            # PyTorch's engine calls ones_like(out, pin_memory=False, memory_format=preserve);
            # nothing can observe that call for a plain CPU tensor with no mode or vmap level
            # (one element: strides need no preserving): the array directly, 4.7 us -> 1 us
            if out.__class__ is Tensor and out._device is CPU and not STATE.td_modes and not VMAP_LEVELS:
                g = np.empty(out._data.shape, out._data.dtype)  # np.ones: a Python frame more
                g.fill(1)
                g = _make(g, out._dtype)
            else:
                ones_like, preserve_format = _ones_like_op()
                g = dispatch(ones_like, [out, None, None, None, False, preserve_format])
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a "
                f"shape of {out.shape}."
            )
        res.append(g)
    return res


def _as_tuple(x):
    if x is None:
        return None
    return (x,) if isinstance(x, Tensor) else tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad``.

    >>> x = numtorch.ones(2, requires_grad=True)
    >>> numtorch.autograd.backward((x * 3).sum()); x.grad
    tensor([3., 3.])
    """
    tensors = (tensors,) if is_tensor_like(tensors) else tuple(tensors)
    inputs_tuple = None if inputs is None else ((inputs,) if is_tensor_like(inputs) else tuple(inputs))
    # torch.autograd.backward is itself overridable (modes and subclasses see it, not the engine)
    relevant = tuple(t for t in tensors + (inputs_tuple or ()) if is_tensor_like(t))
    if has_torch_function(relevant):
        return handle_torch_function(
            backward, relevant, tensors, grad_tensors=grad_tensors, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs_tuple,
        )  # fmt: skip
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    # as PyTorch: _make_grads pairs them up (zip), then the engine counts what is left
    grads = _make_grads(tensors, grads)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    roots = []
    for i, t in enumerate(tensors):
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(e)
    in_edges = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        in_edges = [gradient_edge(t) for t in inputs]
    run_backward(roots, grads, retain_graph, create_graph, in_edges, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):  # fmt: skip
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned (not accumulated into ``.grad``).

    >>> x = numtorch.tensor([2.0], requires_grad=True)
    >>> numtorch.autograd.grad((x ** 3).sum(), x)
    (tensor([12.]),)
    """
    outputs = (outputs,) if is_tensor_like(outputs) else tuple(outputs)
    t_inputs = (inputs,) if is_tensor_like(inputs) or isinstance(inputs, GradientEdge) else tuple(inputs)
    relevant = tuple(t for t in outputs + t_inputs if is_tensor_like(t))
    if has_torch_function(relevant):
        return handle_torch_function(
            grad, relevant, outputs, t_inputs, grad_outputs=grad_outputs, retain_graph=retain_graph,
            create_graph=create_graph, only_inputs=only_inputs, allow_unused=allow_unused,
            is_grads_batched=is_grads_batched, materialize_grads=materialize_grads,
        )  # fmt: skip
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True")
    gouts = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(gouts) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(gouts)} gradients")
    roots = []
    for i, t in enumerate(outputs):
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(e)
    in_edges = []
    for t in t_inputs:
        e = (t.node, t.output_nr) if isinstance(t, GradientEdge) else gradient_edge(t)
        if e is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        in_edges.append(e)
    if retain_graph is None:
        retain_graph = create_graph
    res = run_backward(roots, _make_grads(outputs, gouts), retain_graph, create_graph, in_edges, accumulate=False)
    out = []
    for t, g in zip(t_inputs, res):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                from .. import zeros_like

                g = zeros_like(t)
        out.append(g)
    return tuple(out)


# ---- Tensor methods --------------------------------------------------------------------------
def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. graph leaves, accumulating into ``.grad``.

    >>> x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """
    if self.__class__ is Tensor and not STATE.tf_modes and inputs is None and (
        gradient is None or gradient.__class__ is Tensor
    ):
        # backward()'s path for one plain tensor (nothing to hand to __torch_function__), inlined
        fn = self._grad_fn
        e = (fn, self._out_nr) if fn is not None else gradient_edge(self)
        if (gradient is None and fn is not None and self._rg and self._data.size == 1
                and self._dtype.category == 2 and self._device is CPU and not STATE.td_modes
                and not VMAP_LEVELS):  # fmt: skip
            g = np.empty(self._data.shape, self._data.dtype)  # _make_grads' implicit 1, inlined
            g.fill(1)
            grads = [_make(g, self._dtype)]
        else:
            grads = _make_grads((self,), (gradient,))
        if e is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        run_backward([e], grads, create_graph if retain_graph is None else retain_graph, create_graph)
        return
    if has_torch_function((self,)):
        return handle_torch_function(
            Tensor.backward, (self,), self, gradient=gradient, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs,
        )  # fmt: skip
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self, hook):
    """Run ``hook(grad)`` whenever this tensor's gradient is computed; it may return a new grad.

    >>> x = numtorch.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 2)
    >>> x.sum().backward(); x.grad
    tensor([2., 2.])
    """
    if has_torch_function((self,)):
        return handle_torch_function(Tensor.register_hook, (self,), self, hook)
    if not self._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        return self._grad_fn._register_tensor_hook(self._out_nr, hook)
    from .graph import _RemovableHandle

    if self.__dict__.get("_backward_hooks") is None:
        self._backward_hooks = []
    self._backward_hooks.append(hook)
    return _RemovableHandle(self._backward_hooks, hook)


def _register_post_accumulate_grad_hook(self, hook):
    """Run ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
    if not self._rg or self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    from .graph import _RemovableHandle

    if self.__dict__.get("_post_acc_hooks") is None:
        self._post_acc_hooks = []
    self._post_acc_hooks.append(hook)
    return _RemovableHandle(self._post_acc_hooks, hook)


def _retain_grad(self):
    """Keep ``.grad`` for a non-leaf tensor after backward.

    >>> x = numtorch.ones(2, requires_grad=True); y = x * 2; y.retain_grad()
    >>> y.sum().backward(); y.grad
    tensor([1., 1.])
    """
    if not self._rg:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    import weakref

    ref = weakref.ref(self)

    def hook(g):
        t = ref()
        if t is not None:
            t._grad = g.detach().clone() if t._grad is None else t._grad + g.detach()
        return None

    self._grad_fn._register_tensor_hook(self._out_nr, hook)
    self._retains_grad = True


def _retains_grad_prop(self) -> bool:
    return bool(self.__dict__.get("_retains_grad", False))


def install() -> None:
    Tensor.backward = _backward
    Tensor.register_hook = _register_hook
    Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
    Tensor.retain_grad = _retain_grad
