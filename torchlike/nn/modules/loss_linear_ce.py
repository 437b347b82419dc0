"""LinearCrossEntropyLoss (torch/nn/modules/loss.py): a Linear head fused with CrossEntropyLoss. As torch, the
head's weight is stored flat, (C * prod(out_features), in_features), and reshaped in forward; the math is
F.linear_cross_entropy (torchlike/_ops/nn_linear_ce.py)."""
import math

from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ['LinearCrossEntropyLoss']


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy between ``input`` projected to logits by an internal Linear and ``target``
    (as torch.nn.LinearCrossEntropyLoss).

    Args:
        in_features: size of each input sample.
        num_classes: number of classes, C.
        out_features: dimensions (d_1, ..., d_K) of a K-dimensional loss. Default: ``()``.
        bias: if True, the internal Linear adds a bias. Default: False.
        weight: a manual rescaling weight of shape (C,). reduction, ignore_index, label_smoothing: as
            CrossEntropyLoss (ignore_index None means -100 for class-index targets).
        options: must be None (torch's chunked implementation is not supported).
    """
    __constants__ = ['num_classes', 'out_features', 'reduction', 'ignore_index', 'label_smoothing']

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction='mean', weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        if options is not None:
            raise NotImplementedError("LinearCrossEntropyLoss: options (the chunked implementation) is not "
                                      "supported by torchlike; pass options=None")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        linear_bias = (self.linear.bias.reshape((self.num_classes, *self.out_features))
                       if self.linear.bias is not None else None)
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
