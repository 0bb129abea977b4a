"""nn ops: activations, attention, convolution, layers (dropout, linear, embedding, ...), losses,
normalization, pooling, resampling; ``aliases`` (the ``torch.<name>`` forms) comes last because
it looks up ops the other modules register."""

from . import activation, attention, conv, conv3d, layers, layers_extra, loss, loss_margin, loss_pointwise, normalization, pooling, pooling3d, resample, sampling, embedding_bag, ctc  # noqa: F401
from . import rnn, rnn_cells  # noqa: F401,E402  (recurrent layers: one op per layer and direction, and the cells)
from . import aliases  # noqa: F401,E402
from . import fast_nn  # noqa: F401,E402  (Note [Padding, pooling and prelu fast calls])
from . import fast_conv  # noqa: F401,E402  (Note [Convolution fast calls])
from . import loss_fast, norm_layers_fast  # noqa: F401,E402  (session 15: Note [Loss binding fast calls], Note [Layer norm binding fast call])
from . import adaptive_fast, embedding_bag_fast, lp_pool_fast, pool_plan, shuffle_fast, softmax_fast, unpool_fast  # noqa: F401,E402  (session 16)
from . import attention_fast, hinge_fast, pixel_shuffle_fast  # noqa: F401,E402  (session 17, perf17e: installed by shuffle_fast.install)
from . import attention_mha_fast  # noqa: F401,E402  (session 18: Note [Multi-head attention fast call])
