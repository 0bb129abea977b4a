"""gradcheck / gradgradcheck: analytical vs finite-difference Jacobians."""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor, _make


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs):
    return [t for t in inputs if isinstance(t, Tensor) and t._rg]


def _outputs(func, inputs):
    out = _as_tuple(func(*inputs))
    return [o for o in out if isinstance(o, Tensor) and o._dtype.category >= 2]


def _split(o):
    """An output as the real vector PyTorch's gradcheck compares: a complex output counts as
    its real parts followed by its imaginary parts (two real outputs)."""
    a = np.asarray(o._host()).ravel()
    if a.dtype.kind == "c":
        return np.concatenate([a.real, a.imag]).astype(np.float64)
    return a.astype(np.float64)


def _n_real(t):
    return t._data.size * (2 if t._data.dtype.kind == "c" else 1)


def _directions(t):
    """The real coordinates of an input: each element, then (complex) each element times 1j."""
    steps = (1.0, 1j) if t._data.dtype.kind == "c" else (1.0,)
    return [(flat, s) for s in steps for flat in range(t._data.size)]


def _numerical_jacobian(func, inputs, diff, eps):
    """One (real outputs x real inputs) block per (output, input), by central differences.

    Complex inputs and outputs count as pairs of real ones, as in PyTorch's gradcheck, so a
    wrong imaginary part fails. Grad mode stays on: gradgradcheck's function calls
    autograd.grad itself. Perturbations write straight into the storage, so they are not
    recorded."""
    base = _outputs(func, inputs)
    blocks = [[np.zeros((_n_real(o), _n_real(t))) for t in diff] for o in base]
    for j, t in enumerate(diff):
        arr = t._data
        for col, (flat, step) in enumerate(_directions(t)):
            idx = np.unravel_index(flat, arr.shape)
            orig = arr[idx].copy()
            arr[idx] = orig + eps * step
            plus = [_split(o) for o in _outputs(func, inputs)]
            arr[idx] = orig - eps * step
            minus = [_split(o) for o in _outputs(func, inputs)]
            arr[idx] = orig
            for i in range(len(base)):
                blocks[i][j][:, col] = (plus[i] - minus[i]) / (2 * eps)
    return blocks


def _analytical_jacobian(func, inputs, diff):
    """Rows by backward passes. With PyTorch's convention (the gradient of a real L is
    dL/dx + i dL/dy), grad_output 1 gives the row of Re(out) and grad_output 1j that of
    Im(out); a complex input's gradient splits into its x and y columns."""
    from ._api import grad

    outs = _outputs(func, inputs)
    blocks = [[np.zeros((_n_real(o), _n_real(t))) for t in diff] for o in outs]
    for i, o in enumerate(outs):
        units = (1.0, 1j) if o._data.dtype.kind == "c" else (1.0,)
        for k, unit in enumerate(units):
            for m in range(o._data.size):
                g = np.zeros(o._data.shape, o._dtype.np)
                g.reshape(-1)[m] = unit
                gs = grad(o, diff, _make(g, o._dtype), retain_graph=True, allow_unused=True)
                for j, gj in enumerate(gs):
                    if gj is not None:
                        row = k * o._data.size + m
                        blocks[i][j][row, :] = _split(gj)[: _n_real(diff[j])]
    return blocks, outs


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:  # fmt: skip
    """Check analytical gradients of ``func`` at ``inputs`` against finite differences.

    >>> x = numtorch.randn(3, dtype=numtorch.double, requires_grad=True)
    >>> numtorch.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them have requires_grad=True.")
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t._rg and t._dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double precision "
                "floating point or complex. ",
                stacklevel=2,
            )
    ok = True
    if check_backward_ad:
        ok = _check_backward(func, inputs, diff, eps, atol, rtol, raise_exception, fast_mode)
    if ok and check_forward_ad:
        from .forward_ad import check_forward_ad as _fw

        ok = _fw(func, inputs, diff, eps, atol, rtol, raise_exception)
    return ok


def _check_backward(func, inputs, diff, eps, atol, rtol, raise_exception, fast_mode):
    num = _numerical_jacobian(func, inputs, diff, eps)
    ana, ana_outs = _analytical_jacobian(func, inputs, diff)
    if fast_mode:
        rng = np.random.default_rng(0)
        for i in range(len(num)):
            for j in range(len(diff)):
                u = rng.standard_normal(num[i][j].shape[0])
                v = rng.standard_normal(num[i][j].shape[1])
                n, a = u @ num[i][j] @ v, u @ ana[i][j] @ v
                if not abs(a - n) <= atol + rtol * abs(n):
                    return _fail(raise_exception, i, j, np.array(n), np.array(a), fast=True)
        return True
    for i in range(len(num)):
        for j in range(len(diff)):
            n, a = num[i][j], ana[i][j]
            bad = ~(np.abs(a - n) <= atol + rtol * np.abs(n))
            if bad.any():
                # Rows past the first half of a complex output are its imaginary part,
                # which PyTorch checks with grad output 1j.
                half = n.shape[0] // 2
                imag = ana_outs[i]._data.dtype.kind == "c" and not bad[:half].any()
                return _fail(raise_exception, i, j, n, a, complex_out=imag)
    return True


def _fail(raise_exception, i, j, n, a, fast=False, complex_out=False):
    if not raise_exception:
        return False
    from .. import from_numpy

    what = "Gradients failed to compare equal for grad output = 1j. " if complex_out else ""
    mode = " (fast mode)" if fast else ""
    raise GradcheckError(
        f"{what}Jacobian mismatch for output {i} with respect to input {j}{mode},\n"
        f"numerical:{from_numpy(np.asarray(n))}\nanalytical:{from_numpy(np.asarray(a))}\n"
    )


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:  # fmt: skip
    """Check second-order gradients (gradients of the backward pass) by finite differences.

    >>> x = numtorch.randn(3, dtype=numtorch.double, requires_grad=True)
    >>> numtorch.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
    True
    """
    from ._api import grad

    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._rg]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = _outputs(func, inputs)
        grad_outputs = []
        for o in outs:
            g = _make(rng.standard_normal(o._data.shape).astype(o._dtype.np), o._dtype)
            g.requires_grad_(True)
            grad_outputs.append(g)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        inp, gouts = args[:n_in], args[n_in:]
        outs = _outputs(func, inp)
        d = [inp[i] for i in diff_idx]
        gs = grad(outs, d, gouts, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)  # fmt: skip
