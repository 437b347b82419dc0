"""torch.UntypedStorage, torch.frombuffer and the byte-level view of a tensor (Tensor.untyped_storage,
Tensor.data_ptr): what libraries that move raw tensor bytes use, safetensors.torch first among them.

Note [Byte storage]
A torchlike tensor's values live in an XLA buffer (DESIGN: a Tensor is a value cell); a view keeps its root
(``_base``) and its storage_offset. The byte view follows torch's model on top of that:

* ``t.untyped_storage()`` is the root's buffer as host bytes, and its ``data_ptr()`` their address (on an
  accelerator, the device buffer's, ``jax.Array.unsafe_buffer_pointer``), so tensors that share a root
  share a storage pointer, as in torch;
* ``t.data_ptr()`` is the storage's address plus ``storage_offset() * element_size()``; the bytes there are
  the tensor's elements when it is contiguous (a write through a view has already reached the root).
  On the CPU the address is that of the host copy of the buffer, which the tensor keeps alive.

Two differences from torch, both consequences of immutable XLA buffers: an in-place op rebinds the
tensor to a new buffer, so its data_ptr changes (torch's stays); and torch.frombuffer copies the buffer
instead of aliasing it (writes to the Python buffer afterwards are not seen by the tensor).
UntypedStorage itself is host bytes (a NumPy uint8 array): ``from_file`` maps the file (``shared=False``
copy-on-write, ``shared=True`` writes through to the file), and slicing a storage shares its memory.
"""
import builtins
import operator

import numpy as np

from . import _dtype as D

__all__ = ['UntypedStorage']


class UntypedStorage:
    """Bytes, as torch.UntypedStorage: ``UntypedStorage(n)`` (n zero bytes), ``UntypedStorage(sequence of
    ints)``, ``UntypedStorage.from_file``, ``storage[i]`` / ``storage[a:b]`` (a shared slice), len, nbytes,
    tolist, data_ptr; ``torch.asarray(storage)`` and ``numpy.asarray(storage)`` read it as uint8."""

    def __init__(self, *args, device=None):
        from ._device import device as _dev
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): expected at most one positional argument, got {len(args)}")
        arg = args[0] if args else 0
        if isinstance(arg, (builtins.int, np.integer)):
            self._bytes = np.zeros(int(arg), np.uint8)
        elif isinstance(arg, (list, tuple)):
            self._bytes = np.asarray(arg, np.int64).astype(np.uint8)
        else:
            raise TypeError(f"UntypedStorage(): expected an int or a sequence of ints, got {type(arg).__name__}")
        self._device = _dev('cpu' if device is None else device)
        self._ptr = None
        if self._device.type != 'cpu':
            raise NotImplementedError(f"UntypedStorage(device='{self._device}'): torchlike storages live in host "
                                      "memory")

    @classmethod
    def _wrap(cls, host_bytes, device=None, ptr=None):
        s = cls.__new__(cls)
        s._bytes = host_bytes
        from ._device import device as _dev
        s._device = _dev('cpu') if device is None else device
        s._ptr = ptr
        return s

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """Map ``nbytes`` bytes of ``filename`` (all of it when 0)."""
        import os
        size = os.path.getsize(filename)
        n = int(nbytes) or size
        if n > size:
            if not shared:
                raise RuntimeError(f"unable to mmap {n} bytes from file <{filename}>: Cannot allocate memory (12)")
            with open(filename, 'r+b') as f:        # torch grows a shared file to the requested size
                f.truncate(n)
        if n == 0:
            return cls._wrap(np.zeros(0, np.uint8))
        return cls._wrap(np.memmap(filename, dtype=np.uint8, mode='r+' if shared else 'c', shape=(n,)))

    # -- torch.UntypedStorage surface ---------------------------------------------------------------------
    def untyped(self):
        return self

    @property
    def device(self):
        return self._device

    @property
    def dtype(self):
        return D.uint8

    @property
    def is_cuda(self):
        return self._device.type == 'cuda'

    def element_size(self):
        return 1

    def nbytes(self):
        return int(self._bytes.size)

    def size(self):
        return int(self._bytes.size)

    def __len__(self):
        return int(self._bytes.size)

    def data_ptr(self):
        if self._ptr is not None:
            return self._ptr
        return int(self._bytes.ctypes.data) if self._bytes.size else 0

    def tolist(self):
        return self._bytes.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            if step != 1:
                raise RuntimeError("slices with step != 1 are not supported by UntypedStorage")
            ptr = None if self._ptr is None else self._ptr + start
            return UntypedStorage._wrap(self._bytes[start:max(stop, start)], self._device, ptr)
        i = operator.index(idx)
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return int(self._bytes[i])

    def __setitem__(self, idx, value):
        if not self._bytes.flags.writeable:
            raise RuntimeError("this storage views a read-only buffer (a torchlike tensor's values are immutable; "
                               "write to the tensor instead)")
        self._bytes[idx] = value

    def __array__(self, dtype=None, copy=None):
        a = self._bytes if dtype is None else self._bytes.astype(dtype)
        return np.array(a, copy=True) if copy else np.asarray(a)

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        body = '\n'.join(f' {v}' for v in self._bytes[:20].tolist())
        more = '\n ...' if self._bytes.size > 20 else ''
        return (f"{body}{more}\n[torch.storage.UntypedStorage(device={self._device}) of size {len(self)}]"
                if self._bytes.size else f"[torch.storage.UntypedStorage(device={self._device}) of size 0]")


# ---- the byte view of a tensor (see Note [Byte storage]) ---------------------------------------------------

def _root(t):
    return t if t._base is None else t._base


def tensor_untyped_storage(t):
    """Tensor.untyped_storage(): the root's buffer as host bytes. On the CPU its address is that of the host
    copy jax keeps for the array (np.asarray caches it on the jax.Array, so the address is stable while the
    buffer lives); on an accelerator it is the device buffer's address, as torch's CUDA data_ptr."""
    arr = _root(t)._materialize()
    raw = np.ascontiguousarray(np.asarray(arr)).reshape(-1).view(np.uint8)
    ptr = None
    if t.device.type != 'cpu':
        try:
            ptr = int(arr.unsafe_buffer_pointer())
        except Exception:   # noqa: BLE001 - a sharded buffer has no single address: address the host copy
            ptr = None
    return UntypedStorage._wrap(raw, t.device, ptr)


def tensor_data_ptr(t):
    """Tensor.data_ptr(): the storage's address plus the view's offset in bytes (0 for an empty tensor)."""
    if t.numel() == 0 and t._base is None:
        return 0
    s = tensor_untyped_storage(t)
    base = s.data_ptr()
    if t.device.type == 'cpu' and base:
        # the pointer must stay valid while the tensor lives: keep NumPy's host copy (if any) on the tensor
        t.__dict__['_host_bytes'] = s._bytes
    return base + t.storage_offset() * t.element_size() if base else 0


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-D tensor of ``count`` elements of ``dtype`` read from ``buffer`` at byte ``offset``
    (copied: see Note [Byte storage])."""
    from ._ops import creation
    try:
        mv = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    raw = np.frombuffer(mv.cast('B') if mv.ndim != 1 or mv.format != 'B' else mv, np.uint8)
    n = raw.size
    item = dtype.itemsize
    if n <= 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if not 0 <= offset < n:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({n} bytes) minus 1")
    if count == 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if count < 0:
        if (n - offset) % item != 0:
            raise ValueError(f"buffer length ({n - offset} bytes) after offset ({offset} bytes) must be a multiple "
                             f"of element size ({item})")
        count = (n - offset) // item
    elif offset + count * item > n:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({n} bytes)")
    values = raw[offset:offset + count * item].copy().view(dtype.np)
    t = creation.from_numpy(values)
    if requires_grad:
        t.requires_grad_(True)
    return t
