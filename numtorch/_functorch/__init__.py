"""The machinery behind numtorch.func: transform levels, BatchedTensor and the vmap key with its
batching rules. Nothing is imported here: numtorch._dispatch imports the leaf ``_levels``."""
