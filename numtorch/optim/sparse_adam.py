"""SparseAdam, mirroring ``torch.optim.SparseAdam``: Adam for sparse gradients (nn.Embedding(sparse=True)),
updating only the rows a gradient names, moments included."""

from __future__ import annotations

import math

import numpy as np

import numtorch

from ..kernels import lazy
from ..ops.sparse._coo import coalesced, linear, sparse_sizes
from .optimizer import Optimizer, _closure_loss

__all__ = ["SparseAdam"]
K = lazy("numtorch.kernels.cpu.sparse")


class SparseAdam(Optimizer):
    """Lazy Adam for sparse gradients: the moments and parameters of rows absent from a step's
    gradient are left as they are.

    >>> emb = numtorch.nn.Embedding(4, 2, sparse=True)
    >>> opt = numtorch.optim.SparseAdam(emb.parameters(), lr=0.1)
    >>> emb(numtorch.tensor([1])).sum().backward(); opt.step()
    """

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:  # fmt: skip
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse, cplx = [], []
        for gi, group in enumerate(self.param_groups):
            for pi, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse.append([gi, pi])
                if p.is_complex():
                    cplx.append([gi, pi])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")
        if cplx:
            raise ValueError(f"Complex params at indices {cplx}: SparseAdam does not support complex parameters")

    @numtorch.no_grad()
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = numtorch.zeros_like(p)
                    state["exp_avg_sq"] = numtorch.zeros_like(p)
                state["step"] += 1
                _update(p, state, group)
        return loss


def _update(p, state, group) -> None:
    g = coalesced(p.grad)  # the update is not linear in the gradient: one entry per row
    vals = g._sp_val._data
    if not vals.size:
        return
    beta1, beta2 = group["betas"]
    step = state["step"]
    step_size = group["lr"] * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    sizes = sparse_sizes(g)
    nrows = int(np.prod(sizes, dtype=np.int64))
    dt = p._data.dtype if p._data.dtype != np.float16 else np.dtype(np.float32)
    rows = np.ascontiguousarray(vals, dtype=dt).reshape(vals.shape[0], -1)
    if group["maximize"]:
        rows = -rows
    arrs = [t._data.reshape(nrows, -1).astype(dt, copy=False) for t in (p, state["exp_avg"], state["exp_avg_sq"])]
    s = (dt.type(1 - beta1), dt.type(1 - beta2), dt.type(group["eps"]), dt.type(-step_size))
    K.sparse_adam_rows(linear(g._sp_idx._data, sizes), rows, *arrs, s)
    for t, a in zip((p, state["exp_avg"], state["exp_avg_sq"]), arrs):
        if not np.shares_memory(a, t._data):  # a float16 or non-contiguous tensor: write back
            t._data[...] = a.reshape(t._data.shape)
        t._vc[0] += 1
