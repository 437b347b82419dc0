"""F.linear_cross_entropy: cross_entropy of a linear projection, as torch's reference path
(torch/nn/functional.py): ``cross_entropy(linear(input, W, b).reshape(N, C, *out_features), target)``.

torch's ``options`` (a LinearCrossEntropyOptions) selects a batch-chunked kernel that precomputes the gradients
in forward to save memory; it is not implemented here: a non-None ``options`` raises NotImplementedError
(nn.LinearCrossEntropyOptions is not provided, so only a foreign object could be passed).
"""
import math

from .._engine.registry import public, PUBLIC

NN = 'nn.functional'


def _lst(shape):
    return tuple(int(s) for s in shape)


@public('linear_cross_entropy', namespace=NN)
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction='mean',
                         ignore_index=None, label_smoothing=0.0, options=None):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = _lst(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = _lst(linear_weight.shape[1:-1])
    if linear_bias is not None and _lst(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{_lst(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {_lst(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {_lst(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    # as torch: a target shaped like the logits holds class probabilities
    if _lst(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None:
        raise NotImplementedError("linear_cross_entropy: options (the chunked implementation) is not supported "
                                  "by torchlike; pass options=None")
    ignore_index = ignore_index if ignore_index is not None else -100
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    F = PUBLIC[NN]
    logits = F['linear'](input, linear_weight, linear_bias).reshape(logits_shape)
    return F['cross_entropy'](logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                              label_smoothing=label_smoothing)
