"""torch.save / torch.load in PyTorch's own checkpoint format (torch.serialization).

Note [Checkpoint format]
A checkpoint is PyTorch's zip archive, written and read here without torch:
  <prefix>/data.pkl            the object, pickled at protocol 2; every tensor is a
                               ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                               requires_grad, OrderedDict())`` call whose storage is a persistent id
                               ``('storage', torch.<Type>Storage, key, location, numel)``
  <prefix>/.format_version     '1'
  <prefix>/.storage_alignment  '64'
  <prefix>/byteorder           'little'
  <prefix>/data/<key>          the raw little-endian bytes of each storage, the record's data
                               aligned to 64 bytes (padding in an 'FB' zip extra field), stored
  <prefix>/version             '3'
Tensors that are views of one base share its storage (offset and strides from the view's
geometry), so ``torch.load`` in PyTorch gives views sharing memory too. Globals are written under
torch's names (``torchlike.nn.modules.linear.Linear`` pickles as ``torch.nn.modules.linear.Linear``)
and read back mapped onto torchlike, so both libraries read each other's files.
The pure-Python pickler is used for writing because torch's globals (``torch._utils``...) must be
written by name without importing them.

``weights_only=True`` (the default) unpickles through an allowlist (tensors, Parameters, containers,
dtypes, devices, sizes, numbers, strings) extended by add_safe_globals / safe_globals; any other global
raises pickle.UnpicklingError with torch's hint. ``weights_only=False`` (or
TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1) unpickles any object. The pre-1.6 (non-zip) format is read too.
Saving to a path is atomic: the archive is written to a temporary file in the same folder, then
renamed over the target, so an interrupted save never leaves a truncated checkpoint.
"""
import collections
import contextlib
import io
import os
import pickle
import struct
import sys
import tempfile
import zipfile

import numpy as np

from . import _dtype as D
from ._device import device as _device

DEFAULT_PROTOCOL = 2
_ALIGN = 64
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001

# torch storage class name <-> torchlike dtype
_STORAGE_OF = {'float64': 'DoubleStorage', 'float32': 'FloatStorage', 'float16': 'HalfStorage',
               'bfloat16': 'BFloat16Storage', 'int64': 'LongStorage', 'int32': 'IntStorage',
               'int16': 'ShortStorage', 'int8': 'CharStorage', 'uint8': 'ByteStorage', 'bool': 'BoolStorage',
               'complex64': 'ComplexFloatStorage', 'complex128': 'ComplexDoubleStorage',
               'uint16': 'UInt16Storage', 'uint32': 'UInt32Storage', 'uint64': 'UInt64Storage'}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE_OF.items()}


# ---- writing ---------------------------------------------------------------------------------

class _Global:
    """A global written by name (GLOBAL opcode) without importing it: torch's functions and classes."""
    __slots__ = ('module', 'name')

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):          # pickle requires reduce functions to be callable; never called
        raise TypeError(f'{self.module}.{self.name} is a name written into a checkpoint, not a function')


def _torch_name(module):
    return 'torch' + module[len('torchlike'):] if module == 'torchlike' or module.startswith('torchlike.') else module


class _Pickler(pickle._Pickler):
    def __init__(self, file, protocol, storages):
        super().__init__(file, protocol)
        self._storages = storages          # id(root) -> (key, root tensor value as numpy, root dtype)

    def _write_global(self, module, name):
        self.write(pickle.GLOBAL + module.encode('utf-8') + b'\n' + name.encode('utf-8') + b'\n')

    def save(self, obj, save_persistent_id=True):
        if type(obj) is _Global:
            self._write_global(obj.module, obj.name)
            return
        if isinstance(obj, (D.dtype,)):
            self._write_global('torch', obj.name)
            return
        from . import _layout
        if isinstance(obj, (_layout.layout, _layout.memory_format)):
            self._write_global('torch', obj.name)
            return
        super().save(obj, save_persistent_id)

    def save_global(self, obj, name=None):
        module = getattr(obj, '__module__', None)
        if module and (module == 'torchlike' or module.startswith('torchlike.')):
            qual = name or getattr(obj, '__qualname__', obj.__name__)
            self._write_global(_torch_name(module), qual)
            self.memoize(obj)
            return
        super().save_global(obj, name)

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[type(len)] = dispatch[type(_torch_name)] = save_global     # functions by name, through ours

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ('storage', _Global('torch', _STORAGE_OF[obj.dtype.name]), obj.key, obj.location, obj.numel)
        return None

    def reducer_override(self, obj):
        from ._tensor import Tensor, Size
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter
            if isinstance(obj, Parameter):
                plain = _plain_tensor(obj)
                return (_Global('torch._utils', '_rebuild_parameter'),
                        (plain, obj.requires_grad, collections.OrderedDict()))
            ref, offset, size, stride = self._storage_of(obj)
            return (_Global('torch._utils', '_rebuild_tensor_v2'),
                    (ref, offset, size, stride, obj.requires_grad, collections.OrderedDict()))
        if type(obj) is Size:
            return (_Global('torch', 'Size'), (tuple(obj),))
        if type(obj) is _device:
            return (_Global('torch', 'device'), (str(obj),))
        return NotImplemented

    def _storage_of(self, t):
        from ._ops.view_geometry import view_geometry
        root = t._base
        strides = None
        if root is not None and root._value().dtype == t._value().dtype:
            strides, offset = view_geometry(t)
        if strides is None:             # a base, a non-affine view or a dtype view: its own storage
            root, offset, strides = t, 0, None
        ent = self._storages.get(id(root))
        if ent is None:
            arr = np.ascontiguousarray(np.asarray(root._materialize()))
            ent = self._storages[id(root)] = (str(len(self._storages)), arr, root)
        key, arr, _ = ent
        size = tuple(t.shape)
        if strides is None:
            from ._ops.view_geometry import _contiguous_strides
            strides = _contiguous_strides(size)
        ref = _StorageRef(key, D.from_np(arr.dtype), _location(t), arr.size)
        return ref, offset, size, tuple(strides)


def _plain_tensor(p):
    from ._engine import dispatch
    t = dispatch.wrap(p._materialize())
    return t


def _location(t):
    d = t.device
    return 'cpu' if d.type == 'cpu' else str(d) if d.index is not None else f'{d.type}:0'


class _StorageRef:
    __slots__ = ('key', 'dtype', 'location', 'numel')

    def __init__(self, key, dtype, location, numel):
        self.key, self.dtype, self.location, self.numel = key, dtype, location, numel


def _aligned_extra(header_offset, name, size):
    """The 'FB' extra field that puts a record's data at a multiple of 64 bytes (as PyTorch's writer does)."""
    hdr = 30 + len(name.encode('utf-8'))
    if size * 1.05 > zipfile.ZIP64_LIMIT:
        hdr += 20                      # zipfile adds a zip64 extra record after ours
    pad = (-(header_offset + hdr + 4)) % _ALIGN
    return b'FB' + struct.pack('<H', pad) + b'Z' * pad


def _write_record(zf, name, data):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.extra = _aligned_extra(zf.fp.tell(), name, len(data))
    zf.writestr(info, data)


def _save_archive(obj, f, pickle_protocol, prefix):
    storages = {}
    buf = io.BytesIO()
    _Pickler(buf, pickle_protocol, storages).dump(obj)
    with zipfile.ZipFile(f, 'w', zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f'{prefix}/data.pkl', buf.getvalue())
        _write_record(zf, f'{prefix}/.format_version', b'1')
        _write_record(zf, f'{prefix}/.storage_alignment', b'64')
        _write_record(zf, f'{prefix}/byteorder', sys.byteorder.encode())
        for key, arr, _ in storages.values():
            _write_record(zf, f'{prefix}/data/{key}', arr.tobytes())
        _write_record(zf, f'{prefix}/version', b'3\n')


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """torch.save: ``obj`` to a path (atomically) or a writable binary file object, in PyTorch's zip format."""
    if pickle_module is not pickle:
        raise NotImplementedError("torch.save(pickle_module=...): torchlike writes with the standard pickle module only")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torch.save(_use_new_zipfile_serialization=False): torchlike writes only the "
                                  "zip format (it reads the legacy one)")
    if _disable_byteorder_record:
        raise NotImplementedError("torch.save(_disable_byteorder_record=True) is not supported by torchlike")
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        prefix = os.path.splitext(os.path.basename(path))[0] or 'archive'
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', suffix='.tmp', dir=folder)
        try:
            with os.fdopen(fd, 'wb') as fh:
                _save_archive(obj, fh, pickle_protocol, prefix)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return
    if not hasattr(f, 'write'):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    _save_archive(obj, f, pickle_protocol, 'archive')


# ---- reading ---------------------------------------------------------------------------------

class _LoadedStorage:
    """A storage read from a checkpoint: a flat numpy array, and the device it is to be loaded on."""

    def __init__(self, array, location):
        self.array = array
        self.location = location
        self.base = None          # the flat tensor the storage's tensors view (made on first use)
        self.users = []
        self.device = _device('cpu') if location is None or location.startswith('cpu') else _device(location)

    def cpu(self):
        s = _LoadedStorage(self.array, 'cpu')
        return s

    def cuda(self, device=None):
        return self.to(_device('cuda' if device is None else device if not isinstance(device, int)
                               else f'cuda:{device}'))

    def to(self, device):
        s = _LoadedStorage(self.array, str(_device(device)))
        return s

    def size(self):
        return self.array.size

    def __len__(self):
        return self.array.size


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    """A tensor over ``storage``: a strided view of the storage's flat tensor, so tensors saved as views of
    one another come back sharing memory (_unshare_single_users turns sole users into plain tensors)."""
    from ._engine import dispatch
    from ._engine.jaxrt import jnp
    size = tuple(size)
    if 0 in size:
        t = dispatch.wrap(jnp.zeros(size, storage.array.dtype))
        t.requires_grad = bool(requires_grad)
        return t
    if storage.base is None:
        storage.base = dispatch.wrap(jnp.asarray(np.array(storage.array)))
        if storage.device.type != 'cpu':
            storage.base = storage.base.to(storage.device)
    from ._ops.view_geometry import as_strided
    t = as_strided(storage.base, tuple(size), tuple(stride), storage_offset)
    storage.users.append(t)
    if requires_grad:
        t.requires_grad = True
    return t


def _unshare_single_users(storages):
    for st in storages:
        if len(st.users) == 1:
            t = st.users[0]
            v = t._value()
            for k in ('_view', '_src', '_multi_view', '_may_overlap', '_detached_view'):
                t.__dict__.pop(k, None)
            t._base = None
            t._vc = None
            t._v = v


def _rebuild_parameter(data, requires_grad, backward_hooks=None, *args):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class _StorageType:
    """``torch.FloatStorage`` etc. as they appear in a checkpoint: the storage's dtype."""

    def __init__(self, name):
        self.name = name
        self.dtype = getattr(D, _DTYPE_OF_STORAGE[name])


_STORAGE_TYPES = {n: _StorageType(n) for n in _DTYPE_OF_STORAGE}

# globals a weights-only load may resolve (torch's default allowlist, as torchlike objects)
_SPECIAL = {
    ('torch._utils', '_rebuild_tensor_v2'): _rebuild_tensor_v2,
    ('torch._utils', '_rebuild_parameter'): _rebuild_parameter,
    ('torch._utils', '_rebuild_parameter_with_state'): _rebuild_parameter_with_state,
    ('collections', 'OrderedDict'): collections.OrderedDict,
    ('collections', 'Counter'): collections.Counter,
    ('builtins', 'set'): set,
    ('builtins', 'frozenset'): frozenset,
    ('builtins', 'bytearray'): bytearray,
    ('builtins', 'complex'): complex,
    ('builtins', 'slice'): slice,
    ('builtins', 'range'): range,
}
_safe_globals = []


def _torch_level(name):
    import torchlike
    if name == 'Size':
        return torchlike.Size
    if name == 'device':
        return _device
    v = getattr(torchlike, name, None)
    if isinstance(v, D.dtype):
        return v
    from . import _layout
    return _layout.NAMES.get(name)


def _resolve_allowed(module, name):
    fn = _SPECIAL.get((module, name))
    if fn is not None:
        return fn
    if module == 'torch':
        if name in _STORAGE_TYPES:
            return _STORAGE_TYPES[name]
        v = _torch_level(name)
        if v is not None:
            return v
    for g in _safe_globals:
        obj, full = (g if isinstance(g, tuple) else (g, None))
        gm = getattr(obj, '__module__', None)
        gn = full or getattr(obj, '__qualname__', getattr(obj, '__name__', None))
        if full is not None and full == f'{module}.{name}':
            return obj
        if gn == name and gm is not None and (gm == module or _torch_name(gm) == module):
            return obj
    return None


def _resolve_any(module, name):
    fn = _resolve_allowed(module, name)
    if fn is not None:
        return fn
    if module == 'torch' or module.startswith('torch.'):
        import importlib
        mod = importlib.import_module('torchlike' + module[len('torch'):])
        obj = mod
        for part in name.split('.'):
            obj = getattr(obj, part)
        return obj
    import importlib
    obj = importlib.import_module(module)
    for part in name.split('.'):
        obj = getattr(obj, part)
    return obj


def _weights_only_error(module, name):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
        "only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the default value of "
        "the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
        "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it "
        "only if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` "
        "please check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
        f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{name}])` or the `torch.serialization.safe_globals([{name}])` "
        "context manager to allowlist this global if you trust this class/function.")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only, load_storage):
        super().__init__(file)
        self._weights_only = weights_only
        self._load_storage = load_storage

    def find_class(self, module, name):
        import _compat_pickle      # protocol-2 pickles name Python 2 modules (__builtin__, copy_reg)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if self._weights_only:
            fn = _resolve_allowed(module, name)
            if fn is None:
                raise _weights_only_error(module, name)
            return fn
        return _resolve_any(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == 'storage'):
            raise pickle.UnpicklingError(f"Unknown persistent id {pid!r} in the checkpoint")
        return self._load_storage(pid)


def _map_location(storage, location, map_location):
    if map_location is None:
        pass
    elif callable(map_location) and not isinstance(map_location, (str, _device, dict)):
        r = map_location(storage, location)
        if r is not None:
            return r
    elif isinstance(map_location, dict):
        location = map_location.get(location, location)
        storage = storage.to(location if not isinstance(location, _device) else str(location))
    else:
        storage = storage.to(str(_device(map_location)) if not isinstance(map_location, _device)
                             else str(map_location))
    if storage.device.type == 'cuda':
        from ._device import gpus_known
        if not gpus_known():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
    return storage


def _load_zip(zf, map_location, weights_only, mmap_path):
    names = zf.namelist()
    pkl = [n for n in names if n.endswith('data.pkl') and n.count('/') == 1]
    if not pkl:
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl[0].rsplit('/', 1)[0]
    order = 'little'
    if f'{prefix}/byteorder' in names:
        order = zf.read(f'{prefix}/byteorder').decode()
    loaded = {}

    def load_storage(pid):
        _, stype, key, location, numel = pid[:5]
        if key not in loaded:
            dt = np.dtype(stype.dtype.np)
            if order != sys.byteorder:
                dt = dt.newbyteorder()
            rec = f'{prefix}/data/{key}'
            if mmap_path is not None:
                info = zf.getinfo(rec)
                arr = np.memmap(mmap_path, dtype=dt, mode='r', offset=_data_offset(zf, info), shape=(numel,))
            else:
                arr = np.frombuffer(zf.read(rec), dtype=dt, count=numel)
            if order != sys.byteorder:
                arr = arr.astype(dt.newbyteorder())
            loaded[key] = _map_location(_LoadedStorage(arr, location), location, map_location)
        return loaded[key]
    obj = _Unpickler(io.BytesIO(zf.read(pkl[0])), weights_only, load_storage).load()
    _unshare_single_users(loaded.values())
    return obj


def _data_offset(zf, info):
    zf.fp.seek(info.header_offset)
    h = zf.fp.read(30)
    n, m = struct.unpack('<HH', h[26:30])
    return info.header_offset + 30 + n + m


def _load_legacy(f, map_location, weights_only):
    """PyTorch's pre-1.6 format: magic, protocol, sys info, the object pickle, the storage keys, then each
    storage's element count and bytes. The bytes come after the object, so the object pickle is first
    skipped over (building nothing), the storages read, and the object then unpickled for real."""
    def small():
        return _Unpickler(f, True, None).load()
    if small() != _LEGACY_MAGIC:
        raise RuntimeError("Invalid magic number; corrupt file?")
    if small() != _LEGACY_PROTOCOL:
        raise RuntimeError("Invalid protocol version")
    small()                                    # sys info
    start = f.tell()
    types = {}
    skipper = _Skipper(f)
    skipper.persistent_load = lambda pid: types.setdefault(pid[2], pid) and None
    skipper.load()
    keys = small()
    arrays = {}
    for key in keys:
        _, stype, _, location, numel = types[key][:5]
        dt = np.dtype(stype.dtype.np) if isinstance(stype, _StorageType) else np.dtype(_STORAGE_TYPES[stype.name].dtype.np)
        n = struct.unpack('<q', f.read(8))[0]
        arrays[key] = np.frombuffer(f.read(n * dt.itemsize), dtype=dt, count=n)
    end = f.tell()
    f.seek(start)
    loaded = {}

    def load_storage(pid):
        key, location = pid[2], pid[3]
        if len(pid) > 5 and pid[5] is not None:
            raise NotImplementedError("torch.load: legacy checkpoints with storage views are not supported by torchlike")
        if key not in loaded:
            loaded[key] = _map_location(_LoadedStorage(arrays[key], location), location, map_location)
        return loaded[key]
    obj = _Unpickler(f, weights_only, load_storage).load()
    f.seek(end)
    _unshare_single_users(loaded.values())
    return obj


class _Anything:
    """What the skipping pass builds for every global: accepts any pickle operation and keeps nothing."""
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Anything()

    def __setstate__(self, state):
        pass

    def __setitem__(self, k, v):
        pass

    def append(self, v):
        pass

    def extend(self, v):
        pass


class _Skipper(pickle.Unpickler):
    def find_class(self, module, name):
        if module == 'torch' and name in _STORAGE_TYPES:
            return _STORAGE_TYPES[name]
        return _Anything()


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """torch.load: read a checkpoint written by torch.save (PyTorch's or torchlike's)."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("torch.load(pickle_module=...): torchlike reads with the standard pickle module only")
    if pickle_load_args:
        raise NotImplementedError(f"torch.load: extra pickle arguments {sorted(pickle_load_args)} are not supported "
                                  "by torchlike")
    if weights_only is None:
        weights_only = os.environ.get('TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD', '0') in ('0', '')
        if os.environ.get('TORCH_FORCE_WEIGHTS_ONLY_LOAD', '0') not in ('0', ''):
            weights_only = True
    mmap_path = None
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if mmap:
            mmap_path = path
        with open(path, 'rb') as fh:
            return _load_file(fh, map_location, weights_only, mmap_path)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    return _load_file(f, map_location, weights_only, None)


def _load_file(fh, map_location, weights_only, mmap_path):
    start = fh.tell() if hasattr(fh, 'tell') else 0
    head = fh.read(4)
    fh.seek(start)
    if head[:2] == b'PK':
        try:
            zf = zipfile.ZipFile(fh)
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {e}") from None
        with zf:
            return _load_zip(zf, map_location, weights_only, mmap_path)
    if not head:
        raise EOFError("Ran out of input")
    try:
        return _load_legacy(fh, map_location, weights_only)
    except pickle.UnpicklingError:
        raise
    except (EOFError, ValueError, struct.error, IndexError) as e:
        raise pickle.UnpicklingError(f"invalid load key or corrupt checkpoint: {e}") from None


# ---- the allowlist API -----------------------------------------------------------------------

def add_safe_globals(safe_globals):
    """Allow these globals (objects, or (object, 'module.name') pairs) in weights_only loads."""
    _safe_globals.extend(safe_globals)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """Context manager: the given globals are allowed in weights_only loads inside the block."""

    def __init__(self, safe_globals):
        self._globals = list(safe_globals)

    def __enter__(self):
        self._saved = list(_safe_globals)
        _safe_globals.extend(self._globals)

    def __exit__(self, *exc):
        _safe_globals[:] = self._saved
        return False
