"""Torch-level aliases of aten ops that PyTorch exposes as ``torch.<name>`` (dropout, batch_norm,
max_pool1d, ...): imported last by the package, once every op of the nn area is registered."""

from __future__ import annotations

from ..._dispatch import dispatch
from .._registry import public


# ---- torch-level aliases of aten ops that PyTorch exposes as ``torch.<name>`` ------------------------
def _alias(name: str, sig: str | None = None) -> None:
    from .._registry import OPS, schema_sig

    op = OPS[f"aten::{name}"]
    auto, rel, _ = schema_sig(op, method=False, out=False)

    def body(*v):
        return dispatch(op, list(v))

    body.__doc__ = f"The ``aten::{name}`` op as ``torch.{name}``; see ``numtorch.nn.functional`` for the friendly form."
    public(name, sig or auto, body, relevant=rel, ops=(op,))


for _name in ("dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
              "feature_alpha_dropout", "feature_alpha_dropout_", "batch_norm", "instance_norm", "layer_norm",
              "group_norm", "native_batch_norm", "native_layer_norm", "native_group_norm", "embedding",
              "embedding_renorm_", "_adaptive_avg_pool2d", "constant_pad_nd", "binary_cross_entropy_with_logits",
              "kl_div", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "poisson_nll_loss",
              "triplet_margin_loss"):  # fmt: skip
    _alias(_name)
# list defaults written out: the generated wrappers split signatures on commas
_POOL_SIG = "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False"
for _name in ("max_pool1d", "max_pool2d", "max_pool1d_with_indices"):
    _alias(_name, _POOL_SIG)
_alias(
    "avg_pool1d",
    "input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True",
)
