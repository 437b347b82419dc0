"""torch.layout and torch.memory_format.

torchlike tensors are dense and report C-contiguous strides: XLA chooses physical layouts
itself, so there is nothing a channels-last request could change that a program can observe
except strides. The creation and conversion functions therefore accept the formats that mean
"contiguous" (contiguous_format, preserve_format) and the strided layout, and raise
NotImplementedError naming the option for the others rather than ignoring them.
"""


class layout:
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f'torch.{self.name}'

    def __reduce__(self):
        return self.name


class memory_format:
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f'torch.{self.name}'

    def __reduce__(self):
        return self.name


strided = layout('strided')
sparse_coo = layout('sparse_coo')
sparse_csr = layout('sparse_csr')
sparse_csc = layout('sparse_csc')
sparse_bsr = layout('sparse_bsr')
sparse_bsc = layout('sparse_bsc')
_mkldnn = layout('_mkldnn')
jagged = layout('jagged')

contiguous_format = memory_format('contiguous_format')
preserve_format = memory_format('preserve_format')
channels_last = memory_format('channels_last')
channels_last_3d = memory_format('channels_last_3d')

NAMES = {o.name: o for o in (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, _mkldnn, jagged,
                              contiguous_format, preserve_format, channels_last, channels_last_3d)}


def check_memory_format(fmt, api):
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{api}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    raise NotImplementedError(f"{api}(memory_format={fmt!r}) is not supported by torchlike: tensors are always "
                              "contiguous (XLA chooses physical layouts)")


def check_layout(lay, api):
    if lay is None or lay is strided:
        return
    if not isinstance(lay, layout):
        raise TypeError(f"{api}(): argument 'layout' must be torch.layout, not {type(lay).__name__}")
    raise NotImplementedError(f"{api}(layout={lay!r}) is not supported by torchlike: only torch.strided tensors exist")


def is_contiguous_as(shape, strides, fmt):
    """Whether a tensor with these (C-contiguous) strides is contiguous in memory format ``fmt``."""
    if fmt is None or fmt is contiguous_format:
        return True
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    order = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}.get(fmt)
    if order is None or len(shape) != len(order):
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True
