"""torch.nn.utils.rnn: PackedSequence and the (un)packing / (un)padding helpers.

A PackedSequence stores the time steps of a batch of sequences, sorted by decreasing length, one after
another: ``data`` is (sum(lengths), *) and ``batch_sizes[t]`` (a CPU int64 tensor) says how many
sequences are still running at step t. The packed <-> padded layouts are gathers whose index arrays are
computed on the host from the lengths (which torch, too, requires on the CPU) and passed to the ops as
data (torchlike/_ops/nn_rnn.py).

Note [Packed sequences keep their padded source]
Every op on packed data has a shape that depends on N = sum(lengths), so under XLA each new N compiles new
programs, while the recurrent kernels run on the padded (T, B) grid anyway (Note [One op per recurrent
network]). So a PackedSequence made by pack_padded_sequence, or returned by an RNN module, also remembers
the padded grid it was cut from (sorted batch order, zeros or the caller's padding outside the lengths)
and the lengths. An RNN module given such a sequence runs on that grid directly, and pad_packed_sequence
re-cuts it (one op whose shape does not depend on N) instead of scattering ``data``: values and gradients
are the same as through ``data``, and in the usual pack -> RNN -> unpack chain only the two gathers that
produce the ``data`` fields see N (forward only, unless ``data`` itself is used). The grid is used only
while both it and ``data`` still hold the arrays they held when packed (an in-place write to either
drops it), and sequences built any other way take the general path.
"""
from collections.abc import Iterable
from typing import NamedTuple, Optional

import numpy as np

from ... import _dtype as D
from ..._engine import dispatch, lazy as _lazy
from ..._ops import nn_rnn as _K
from ..._ops.pointwise import _broadcast_error
from ..._tensor import Tensor

__all__ = ['PackedSequence', 'invert_permutation', 'pack_padded_sequence', 'pad_packed_sequence', 'pad_sequence',
           'unpad_sequence', 'pack_sequence', 'unpack_sequence']


def _torch():
    import torchlike
    return torchlike


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    r"""Holds the data and list of :attr:`batch_sizes` of a packed sequence.

    Instances should never be created manually: they come from :func:`pack_padded_sequence` and
    :func:`pack_sequence`. ``data`` may be on any device and of any dtype; ``batch_sizes`` is always a CPU
    int64 tensor; ``sorted_indices`` / ``unsorted_indices`` are the permutation that sorted the batch by
    decreasing length and its inverse (None when the input was already sorted).
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def __reduce__(self):
        # the four fields only: the kept padded grid (Note [Packed sequences keep their padded source]) is a cache
        return (type(self), tuple(self))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """Performs dtype and/or device conversion on ``self.data`` (as ``Tensor.to``); the indices follow
        ``data``'s device, ``batch_sizes`` stays on the CPU. Returns ``self`` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def call_to(t):
            return t.to(data.device)
        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = _torch().tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs['device'] = 'cuda'
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = _torch().tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == 'cpu':
            return self.to(*args, **kwargs)
        kwargs['device'] = 'cpu'
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    # unsorted_indices, when given, is the inverse of sorted_indices (only internal callers pass both)
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:      # PackedSequence(data, batch_sizes, sorted_indices)
        if batch_sizes.device.type != 'cpu':
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequences "
                "in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    # PackedSequence((data, batch_sizes), *, sorted_indices)
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse of ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    t = _torch()
    with _lazy.now():   # a permutation of the batch is host metadata, like the lengths it came from
        output = t.empty_like(permutation)
        output.scatter_(0, permutation, t.arange(0, permutation.numel(), device=permutation.device))
    return output


def _index(a, device=None):
    """A host index/mask array as a Tensor (data for the layout ops)."""
    return _torch().as_tensor(np.ascontiguousarray(a), device=device)


def _keep_source(packed, grid, lengths, batch_first):
    """See Note [Packed sequences keep their padded source]; ``lengths``: sorted, a Tensor on grid's device."""
    packed.__dict__['_padded'] = (grid, grid._raw(), packed.data._raw(), lengths, batch_first)
    return packed


def padded_source(packed):
    """(grid, lengths, batch_first) a packed sequence was cut from, or None (Note [Packed sequences keep their
    padded source])."""
    kept = getattr(packed, '__dict__', {}).get('_padded')
    if kept is None:
        return None
    grid, grid_v, data_v, lengths, batch_first = kept
    if grid._raw() is not grid_v or packed.data._raw() is not data_v:
        return None
    return grid, lengths, batch_first


def _pack(input, lengths, batch_first):
    """ATen's _pack_padded_sequence: (packed data, batch_sizes)."""
    if lengths.ndim != 1 or lengths.device.type != 'cpu' or lengths.dtype is not D.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                           f"{lengths.device} {dispatch._tname(lengths.dtype)} tensor")
    seq_dim, batch_dim = (1, 0) if batch_first else (0, 1)
    nb = input.size(batch_dim)
    nt = input.size(seq_dim)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lens = np.asarray(lengths.tolist(), dtype=np.int64)
    if lens.shape[0] != nb:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.shape[0]} "
                           f"(batch_size={nb})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lens[:-1] < lens[1:]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if lens[0] > nt:
        # torch reads past the end of the input here; refusing is the only defined behaviour
        raise RuntimeError(f"pack_padded_sequence: a length ({int(lens[0])}) exceeds the sequence length of the "
                           f"input ({nt})")
    batch_sizes = _K.batch_sizes_of(lens)
    data = dispatch.apply(_K._pack_padded_sequence,
                          (input, _index(_K.rows_of_grid(batch_sizes, nt, nb, batch_first), input.device)))
    return data, _index(batch_sizes, 'cpu'), lens


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Packs a Tensor containing padded sequences of variable length.

    ``input`` is (T, B, *) (or (B, T, *) with ``batch_first``); ``lengths`` (a list or a CPU tensor) gives
    each sequence's length. With ``enforce_sorted=True`` the lengths must be decreasing; otherwise the batch is
    sorted here and the permutation is kept in the result's ``sorted_indices``.
    """
    t = _torch()
    with _lazy.now():   # lengths are host data (a CPU tensor in torch): sorted now, not recorded into a graph
        if not isinstance(lengths, Tensor):
            lengths = t.as_tensor(lengths, dtype=D.int64, device='cpu')
        else:
            lengths = lengths.to(dtype=D.int64)
        if enforce_sorted:
            sorted_indices = None
        else:
            lengths, sorted_indices = t.sort(lengths, descending=True)
            sorted_indices = sorted_indices.to(input.device)
    if not enforce_sorted:
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes, lens = _pack(input, lengths, batch_first)
    packed = _packed_sequence_init(data, batch_sizes, sorted_indices, None)
    return _keep_source(packed, input, _index(lens, input.device), batch_first)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""Pads a packed batch of variable length sequences (the inverse of :func:`pack_padded_sequence`).

    Returns the padded (T, B, *) tensor ((B, T, *) with ``batch_first``; T is ``total_length`` if given) and
    the CPU int64 tensor of lengths, both in the batch order of the sequences before packing.
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    index, valid, lengths = _K.grid_of_packed(sequence.batch_sizes.tolist(), max_seq_length, batch_first)
    kept = padded_source(sequence)
    if kept is not None:
        grid, lens, grid_bf = kept
        padded = dispatch.apply(_K._repad_sequence, (grid, lens, padding_value),
                                (max_seq_length, grid_bf, bool(batch_first)))
    else:
        dev = sequence.data.device
        padded = dispatch.apply(_K._pad_packed_sequence,
                                (sequence.data, _index(index, dev), _index(valid, dev), padding_value))
    lengths = _index(lengths, 'cpu')
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        with _lazy.now():
            lengths = lengths[unsorted_indices.cpu()]
        return padded.index_select(batch_dim, unsorted_indices), lengths
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'):
    r"""Pads a list of variable length Tensors (L_i, *) with ``padding_value`` into one (T, B, *) tensor
    ((B, T, *) with ``batch_first``); ``padding_side`` 'left' aligns the sequences to the end."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ('left', 'right'):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    from .. import functional as F
    t = _torch()
    first = sequences[0]
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(first.shape[1:])
    rows = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:     # torch copies each sequence in, broadcasting its trailing dims
            dest = (s.size(0),) + trailing
            msg = _broadcast_error(dest, tuple(s.shape))
            if msg is not None:
                raise RuntimeError(msg)
            s = s.expand(dest)
        s = s.to(device=first.device, dtype=first.dtype)
        extra = max_len - s.size(0)
        if extra:
            pad = (0, 0) * len(trailing) + ((0, extra) if padding_side == 'right' else (extra, 0))
            s = F.pad(s, pad, value=padding_value)
        rows.append(s)
    return t.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    r"""Unpads a padded Tensor into a list of variable length Tensors (the inverse of :func:`pad_sequence`).
    As in torch, a time-first ``padded_sequences`` is transposed in place."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        unpadded_sequences.append(seq[:int(length)])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    r"""Packs a list of variable length Tensors: ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = _torch().as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    r"""Unpacks a PackedSequence into a list of variable length Tensors (the inverse of :func:`pack_sequence`)."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
