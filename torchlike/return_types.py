"""torch.return_types: the named tuples that ops like max/sort/topk return.

``torch.return_types.max(values=tensor(...), indices=tensor(...))`` — a tuple subclass with field
names, as PyTorch's structseq types.
"""


class _StructSeq(tuple):
    _fields = ()

    def __new__(cls, seq):
        seq = tuple(seq)
        if len(seq) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__} takes a {len(cls._fields)}-sequence")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ',\n'.join(f'{n}={v!r}' for n, v in zip(self._fields, self))
        return f'torch.return_types.{type(self).__name__}(\n{body})'

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make(name, fields):
    cls = type(name, (_StructSeq,), {'_fields': fields, '__slots__': (), '__module__': 'torch.return_types'})
    for i, f in enumerate(fields):
        setattr(cls, f, property(lambda self, i=i: self[i]))
    return cls


_VI = ('values', 'indices')
for _n in ('max', 'min', 'sort', 'topk', 'kthvalue', 'median', 'nanmedian', 'mode', 'cummax', 'cummin'):
    globals()[_n] = _make(_n, _VI)
aminmax = _make('aminmax', ('min', 'max'))
std_mean = None  # std_mean/var_mean return plain tuples in torch
del std_mean
slogdet = _make('slogdet', ('sign', 'logabsdet'))
qr = _make('qr', ('Q', 'R'))
svd = _make('svd', ('U', 'S', 'V'))
geqrf = _make('geqrf', ('a', 'tau'))
frexp = _make('frexp', ('mantissa', 'exponent'))
histogram = _make('histogram', ('hist', 'bin_edges'))
histogramdd = _make('histogramdd', ('hist', 'bin_edges'))
lu_unpack = _make('lu_unpack', ('P', 'L', 'U'))
