"""numtorch.nn.modules: ``Module``, the containers and every layer, one family per file."""

from __future__ import annotations

from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    MultiheadAttention,
    PReLU,
    RReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)  # fmt: skip
from .channelshuffle import ChannelShuffle
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm
from .container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CTCLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    NLLLoss2d,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)  # fmt: skip
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)  # fmt: skip
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    LPPool1d,
    LPPool2d,
    MaxPool1d,
    MaxPool2d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)  # fmt: skip
from .lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
)  # fmt: skip
from .pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d,
                      LPPool3d, MaxPool3d)  # fmt: skip
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .normalization import CrossMapLRN2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear",
    "Threshold", "ReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish", "Hardswish", "ELU",
    "CELU", "SELU", "GLU", "GELU", "LeakyReLU", "LogSigmoid", "Softplus", "Softsign", "Tanhshrink", "Softmin",
    "Softmax", "LogSoftmax", "MultiheadAttention", "Hardshrink", "Softshrink",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
    "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d",
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm",
    "PReLU", "RReLU", "Softmax2d", "ChannelShuffle", "LocalResponseNorm", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "Embedding", "EmbeddingBag", "Flatten", "Unflatten", "Fold", "Unfold", "PixelShuffle", "PixelUnshuffle",
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d",
    "ConstantPad3d", "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d",
    "CosineSimilarity", "PairwiseDistance",
    "CTCLoss", "L1Loss", "NLLLoss", "NLLLoss2d", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SmoothL1Loss",
    "HuberLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss",
    "GaussianNLLLoss", "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "MultiMarginLoss", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
]  # fmt: skip
