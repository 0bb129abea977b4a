"""numtorch.nn.parallel: ``DataParallel`` and ``data_parallel``.

Without an accelerator (PyTorch's CPU-only answer) ``DataParallel`` wraps the module and simply calls
it, so scripts that wrap their model unconditionally run unchanged; ``data_parallel`` raises as
PyTorch's does there. numtorch replicates over no more than one device.

>>> dp = numtorch.nn.DataParallel(numtorch.nn.Linear(2, 3))
>>> dp(numtorch.ones(4, 2)).shape, dp.device_ids, list(dp.state_dict())
(torch.Size([4, 3]), [], ['module.weight', 'module.bias'])
"""

from __future__ import annotations

from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
