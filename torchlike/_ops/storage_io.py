"""Registers torch.frombuffer and torch.UntypedStorage (defined in torchlike/storage.py, Note [Byte storage])
in the torch namespace."""
from .._engine.registry import public
from ..storage import UntypedStorage, frombuffer

public('frombuffer')(frombuffer)
public('UntypedStorage')(UntypedStorage)
