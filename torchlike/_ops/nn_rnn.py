"""Recurrent kernels: torch.rnn_tanh / rnn_relu / lstm / gru (a whole multi-layer, optionally bidirectional
network over a sequence, padded or packed) and the single-step cells rnn_tanh_cell / rnn_relu_cell /
lstm_cell / gru_cell; plus the layout ops between packed rows and the padded grid behind nn.utils.rnn.

Note [One op per recurrent network]
A call of nn.LSTM (or RNN, GRU) is ONE registry op, ``_rnn``: its body runs every layer, and the time loop
of each layer is a ``lax.scan``, so the forward is one compiled program and the backward is the VJP of
those scans, compiled once per (mode, layers, shapes) like any op's (Note [Backward rules]); nothing is
dispatched per time step. The two directions of a bidirectional layer share one scan: their states are
stacked on a leading axis of size 2 and the reverse direction reads its (pre-computed) input projection
flipped in time. The input projection ``x W_ih^T + b_ih`` of all time steps is one matmul outside the
scan; the scan carries only the recurrent product.

Packed sequences (variable lengths) run on the padded (T, B) grid with a mask built from the (sorted)
sequence lengths: step t of sequence b is valid while t < lengths[b]. A masked step leaves the state
unchanged and emits zero, so the final state is each sequence's state at its last valid step and the
reverse direction of a sequence starts from h0 at that step, exactly as torch's packed kernel. The lengths
are data and the grid's shape does not depend on them, so the expensive program (the scans and their VJP)
is compiled once per (T, B) however the lengths vary; only the cheap gathers between the packed rows
(N = sum(lengths) of them) and the grid see N (see Note [Packed sequences keep their padded source] in
nn/utils/rnn.py for how the common pack -> RNN -> unpack chain skips most of those).

Gate layouts are PyTorch's: LSTM rows (i, f, g, o), GRU rows (r, z, n) with the reset gate applied to
``W_hn h + b_hn``. Dropout between layers (training mode) draws its mask in the program from the default
generator's (seed, offset) (Note [Randomness is explicit] in random.py).
"""
import numpy as np

from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public
from .._tensor import Tensor
from .linalg import _HI, _acc, cname
from .nn_activation import call, next_key
from . import random as _random

# ---- the recurrence ---------------------------------------------------------------------------------

def _mm(a, w):
    """a @ w^T over the last two axes (w may carry a leading direction axis)."""
    return jnp.matmul(a, jnp.swapaxes(w, -1, -2), precision=_HI,
                      preferred_element_type=_acc(a.dtype)).astype(a.dtype)


def _cell(mode, gx, gh, h, c, w_hr):
    """One step given the input part ``gx`` (with b_ih) and the hidden part ``gh`` (with b_hh) of the gates:
    the new (h, c) (c is None except for LSTM)."""
    if mode == 'RNN_TANH':
        return jnp.tanh(gx + gh), None
    if mode == 'RNN_RELU':
        v = gx + gh
        return jnp.where(v > 0, v, jnp.zeros((), v.dtype)), None   # zero gradient at 0, as torch's relu
    if mode == 'LSTM':
        i, f, g, o = jnp.split(gx + gh, 4, axis=-1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h2 = jax.nn.sigmoid(o) * jnp.tanh(c2)
        if w_hr is not None:
            h2 = _mm(h2, w_hr)
        return h2, c2
    xr, xz, xn = jnp.split(gx, 3, axis=-1)
    hr, hz, hn = jnp.split(gh, 3, axis=-1)
    r = jax.nn.sigmoid(xr + hr)
    z = jax.nn.sigmoid(xz + hz)
    n = jnp.tanh(xn + r * hn)
    return n + z * (h - n), None


def _flip(x):
    return jnp.flip(x, 0)


def _layer(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, valid):
    """One layer, all directions at once. x (T, B, I); h0/c0 (D, B, H); weights stacked on a leading
    direction axis D. Returns the layer output (T, B, D*Hout) and the final (h, c)."""
    nd = w_ih.shape[0]
    gx = jnp.einsum('tbi,dgi->tdbg', x, w_ih, precision=_HI, preferred_element_type=_acc(x.dtype)).astype(x.dtype)
    if b_ih is not None:
        gx = gx + b_ih[:, None, :]
    mask = None if valid is None else valid[:, None, :, None]          # (T, 1, B, 1)
    if nd == 2:   # the reverse direction walks the sequence backwards: give it the time-flipped inputs
        gx = jnp.concatenate([gx[:, :1], _flip(gx[:, 1:])], axis=1)
        if mask is not None:
            mask = jnp.concatenate([mask, _flip(mask)], axis=1)

    def step(carry, inp):
        h, c = carry
        g, m = inp
        gh = _mm(h, w_hh)
        if b_hh is not None:
            gh = gh + b_hh[:, None, :]
        h2, c2 = _cell(mode, g, gh, h, c, w_hr)
        if m is None:
            return (h2, c2), h2
        h2 = jnp.where(m, h2, h)
        if c is not None:
            c2 = jnp.where(m, c2, c)
        return (h2, c2), jnp.where(m, h2, jnp.zeros((), h2.dtype))

    (hn, cn), ys = lax.scan(step, (h0, c0), (gx, mask))                # ys (T, D, B, Hout)
    if nd == 1:
        return ys[:, 0], hn, cn
    return jnp.concatenate([ys[:, 0], _flip(ys[:, 1])], axis=-1), hn, cn


def grid_of_packed(batch_sizes, length=None, batch_first=False):
    """Host arrays for the padded grid of packed data with ``batch_sizes`` (a list): the packed row of each
    (T, B) cell (0 where invalid), the validity mask, and each sequence's length. ``length`` (default
    len(batch_sizes)) may exceed the longest sequence; batch_first transposes the grid to (B, T)."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    nt = bs.shape[0] if length is None else length
    full = np.zeros(nt, np.int64)
    full[:bs.shape[0]] = bs
    b = np.arange(int(bs[0]))
    valid = b[None, :] < full[:, None]
    index = np.where(valid, (np.cumsum(full) - full)[:, None] + b[None, :], 0)
    lengths = valid.sum(0).astype(np.int64)
    if batch_first:
        valid, index = valid.T, index.T
    return np.ascontiguousarray(index), np.ascontiguousarray(valid), lengths


def batch_sizes_of(lengths):
    """Host: batch_sizes (sequences still running at each step) of decreasing ``lengths``."""
    lens = np.asarray(lengths, dtype=np.int64)
    return (lens[None, :] > np.arange(int(lens[0]))[:, None]).sum(1)


def rows_of_grid(batch_sizes, nt, nb, batch_first=False):
    """Host: for each packed row (time-major, sequences sorted by decreasing length), its index into the
    flattened (T, B) grid of nt steps and nb sequences ((B, T) with batch_first)."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    t = np.repeat(np.arange(bs.shape[0]), bs)
    b = np.arange(t.shape[0]) - np.repeat(np.cumsum(bs) - bs, bs)
    return (b * nt + t) if batch_first else (t * nb + b)


def _rnn_node(mode, num_layers, bidirectional, batch_first, has_biases, proj, dropout_on):
    # torch's CPU kernels end in a stack of the per-layer states, or a cat of the two directions
    return 'CatBackward0' if bidirectional else 'StackBackward0'


@op('_rnn', function=False, method=False, lists=('weights',), diff=('input', 'hx', 'cx', 'weights'),
    static=('mode', 'num_layers', 'bidirectional', 'batch_first', 'has_biases', 'proj', 'dropout_on'),
    node=_rnn_node, residuals=True)
def _rnn(input, hx, cx, weights, lengths, p, seed, offset, *, mode, num_layers, bidirectional, batch_first,
         has_biases, proj, dropout_on):
    """See Note [One op per recurrent network]. ``input`` is padded; ``lengths`` (B,), sorted decreasing, or
    None (every step valid). Returns (output, h_n) or, for LSTM, (output, h_n, c_n); the output is zero at
    the invalid steps."""
    nd = 2 if bidirectional else 1
    per = 2 + 2 * has_biases + proj
    x = jnp.swapaxes(input, 0, 1) if batch_first else input
    valid = None
    if lengths is not None:
        valid = jnp.arange(x.shape[0])[:, None] < lengths[None, :]
        # the padding of a caller's grid is never read by torch: zero it, so that even a NaN there cannot
        # reach the gradients through the masked (discarded) steps
        x = jnp.where(valid[..., None], x, jnp.zeros((), x.dtype))
    hs, cs = [], []
    for layer in range(num_layers):
        ws = [weights[(layer * nd + d) * per:(layer * nd + d + 1) * per] for d in range(nd)]

        def stacked(i):
            return jnp.stack([w[i] for w in ws])
        b_ih, b_hh = (stacked(2), stacked(3)) if has_biases else (None, None)
        w_hr = stacked(per - 1) if proj else None
        sl = slice(layer * nd, (layer + 1) * nd)
        x, hn, cn = _layer(mode, x, hx[sl], None if cx is None else cx[sl], stacked(0), stacked(1), b_ih, b_hh,
                           w_hr, valid)
        hs.append(hn)
        cs.append(cn)
        if dropout_on and layer < num_layers - 1:
            keep = _random.keep_mask(_random.fold_in(_random._key(seed, offset), layer), x.shape, p, x.dtype)
            w = jnp.float64 if x.dtype == jnp.float64 else jnp.float32
            scale = jnp.where(p < 1, 1 / (1 - jnp.asarray(p, w)), 0).astype(x.dtype)   # p == 1 zeroes
            x = x * (keep.astype(x.dtype) * scale)
    out = jnp.swapaxes(x, 0, 1) if batch_first else x
    h = jnp.concatenate(hs, axis=0)
    if mode == 'LSTM':
        return out, h, jnp.concatenate(cs, axis=0)
    return out, h


# ---- torch.rnn_tanh / rnn_relu / lstm / gru ---------------------------------------------------------

def _bind(fname, args, kwargs, packed_names, padded_names, packed):
    """Match torch's two overloads (padded input / packed data + batch_sizes) to a dict of arguments."""
    names = packed_names if packed else padded_names
    if len(args) > len(names):
        raise TypeError(f"{fname}() takes at most {len(names)} arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        bound[k] = v
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{fname}() missing required argument '{missing[0]}'")
    return bound


_COMMON = ('params', 'has_biases', 'num_layers', 'dropout', 'train', 'bidirectional')


def _proj(fname, mode, params, has_biases, num_layers, bidirectional):
    """Whether ``params`` carries LSTM projections (weight_hr), from its length."""
    nd = 2 if bidirectional else 1
    per = 2 + 2 * has_biases
    if mode == 'LSTM' and len(params) == num_layers * nd * (per + 1):
        return True
    if len(params) == num_layers * nd * per:
        return False
    raise RuntimeError("got an incorrect number of RNN parameters")


def rnn_padded(mode, input, lengths, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first,
               fname):
    """Run the network over padded ``input`` (3-D); ``lengths`` a Tensor of sorted lengths or None. ``hx`` is
    h0, or (h0, c0) for LSTM. Returns (output, h_n) or (output, h_n, c_n)."""
    if mode == 'LSTM':
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = hx
    else:
        h0, c0 = hx, None
    params = list(params)
    has_biases, num_layers, bidirectional = bool(has_biases), int(num_layers), bool(bidirectional)
    proj = _proj(fname, mode, params, has_biases, num_layers, bidirectional)
    if input.ndim != 3:
        raise RuntimeError(f"input must have 3 dimensions, got {input.ndim}")
    for t in [h0, c0] + params:
        if t is not None and t.dtype is not input.dtype:
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{cname(input.dtype)} != {cname(t.dtype)}")
    p, train = float(dropout), bool(train)
    dropout_on = train and p > 0 and num_layers > 1
    seed, offset = next_key(input, fname) if dropout_on else (0, 0)
    static = (mode, num_layers, bidirectional, bool(batch_first), has_biases, proj, dropout_on)
    return call(_rnn, (input, h0, c0, params, lengths, p, seed, offset), static)


def grid_from_packed(data, batch_sizes):
    """Packed ``data`` on its time-major padded grid (zeros outside), and the sorted lengths as a Tensor on
    data's device."""
    from .creation import tensor
    if batch_sizes.ndim != 1 or batch_sizes.numel() == 0:
        raise RuntimeError("batch_sizes must be a non-empty 1D tensor")
    index, valid, lengths = grid_of_packed(batch_sizes.tolist())
    dev = data.device
    grid = dispatch.apply(_pad_packed_sequence, (data, tensor(index, device=dev), tensor(valid, device=dev), 0.0))
    return grid, tensor(lengths, device=dev)


def packed_from_grid(grid, batch_sizes, batch_first=False):
    """The packed rows of a padded grid, given the packing's batch_sizes (host list)."""
    from .creation import tensor
    nt, nb = (grid.shape[1], grid.shape[0]) if batch_first else grid.shape[:2]
    rows = rows_of_grid(batch_sizes, nt, nb, batch_first)
    return dispatch.apply(_pack_padded_sequence, (grid, tensor(rows, device=grid.device)))


def _run(mode, fname, args, kwargs):
    # the packed overload has batch_sizes (a Tensor) where the padded one has hx (LSTM: a tuple) / params
    packed = 'batch_sizes' in kwargs or (len(args) > 2 and isinstance(args[1], Tensor)
                                         and (mode == 'LSTM' or isinstance(args[2], Tensor)))
    b = _bind(fname, args, kwargs, ('data', 'batch_sizes', 'hx') + _COMMON,
              ('input', 'hx') + _COMMON + ('batch_first',), packed)
    common = [b[k] for k in _COMMON]
    if not packed:
        return rnn_padded(mode, b['input'], None, b['hx'], *common, b['batch_first'], fname)
    data = b['data']
    if data.ndim != 2:
        raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
    grid, lengths = grid_from_packed(data, b['batch_sizes'])
    res = rnn_padded(mode, grid, lengths, b['hx'], *common, False, fname)
    return (packed_from_grid(res[0], b['batch_sizes'].tolist()),) + tuple(res[1:])


@public('rnn_tanh')
def rnn_tanh(*args, **kwargs):
    return _run('RNN_TANH', 'rnn_tanh', args, kwargs)


@public('rnn_relu')
def rnn_relu(*args, **kwargs):
    return _run('RNN_RELU', 'rnn_relu', args, kwargs)


@public('lstm')
def lstm(*args, **kwargs):
    return _run('LSTM', 'lstm', args, kwargs)


@public('gru')
def gru(*args, **kwargs):
    return _run('GRU', 'gru', args, kwargs)


# ---- cells ------------------------------------------------------------------------------------------

def _cell_node(mode):
    # the last op of torch's composite cell: tanh / relu, LSTM's o * tanh(c), GRU's n + z * (h - n)
    return {'RNN_TANH': 'TanhBackward0', 'RNN_RELU': 'ReluBackward0', 'LSTM': 'MulBackward0'}.get(mode, 'AddBackward0')


@op('_rnn_cell', function=False, method=False, static=('mode',), node=_cell_node)
def _rnn_cell(input, hx, cx, w_ih, w_hh, b_ih, b_hh, *, mode):
    gx = _mm(input, w_ih)
    if b_ih is not None:
        gx = gx + b_ih
    gh = _mm(hx, w_hh)
    if b_hh is not None:
        gh = gh + b_hh
    h, c = _cell(mode, gx, gh, hx, cx, None)
    return (h, c) if mode == 'LSTM' else h


def _check_cell(input, hxs, w_ih, w_hh):
    """torch's check_rnn_cell_forward_input / _hidden and the matmul dtype check."""
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    for i, h in enumerate(hxs):
        if input.shape[0] != h.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                               f"{h.shape[0]}")
        if h.shape[1] != w_hh.shape[1]:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                               f"{w_hh.shape[1]}")
    for a, w in ((input, w_ih),) + tuple((h, w_hh) for h in hxs):
        if a.dtype is not w.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {dispatch._tname(a.dtype)} and "
                               f"{dispatch._tname(w.dtype)}")


def _simple_cell(name, mode):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_cell(input, (hx,), w_ih, w_hh)
        return call(_rnn_cell, (input, hx, None, w_ih, w_hh, b_ih, b_hh), (mode,))
    cell.__name__ = cell.__qualname__ = name
    return public(name)(cell)


rnn_tanh_cell = _simple_cell('rnn_tanh_cell', 'RNN_TANH')
rnn_relu_cell = _simple_cell('rnn_relu_cell', 'RNN_RELU')
gru_cell = _simple_cell('gru_cell', 'GRU')


@public('lstm_cell')
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(input, tuple(hx), w_ih, w_hh)
    return call(_rnn_cell, (input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh), ('LSTM',))


# ---- packing layouts (nn.utils.rnn) -----------------------------------------------------------------

@op('_pack_padded_sequence', function=False, method=False, diff=('input',), saves=(),
    node='PackPaddedSequenceBackward0')
def _pack_padded_sequence(input, index):
    """Rows ``index`` of the (T*B, *) flattened time-major input: the packed data."""
    return input.reshape((-1,) + input.shape[2:])[index]


@op('_pad_packed_sequence', function=False, method=False, diff=('data',), saves=(), node='CopySlices')
def _pad_packed_sequence(data, index, valid, padding_value):
    """The padded (T, B, *) grid: packed row ``index[t, b]`` where ``valid``, else padding_value."""
    v = valid.reshape(valid.shape + (1,) * (data.ndim - 1))
    return jnp.where(v, data[index], jnp.asarray(padding_value, data.dtype))


@op('_repad_sequence', function=False, method=False, diff=('src',), saves=(), node='CopySlices',
    static=('length', 'src_batch_first', 'batch_first'))
def _repad_sequence(src, lengths, padding_value, *, length, src_batch_first, batch_first):
    """A padded grid re-cut to ``length`` steps, with ``padding_value`` outside each sequence's length."""
    x = jnp.swapaxes(src, 0, 1) if src_batch_first else src
    nt = x.shape[0]
    if length <= nt:
        x = x[:length]
    else:
        x = jnp.pad(x, [(0, length - nt)] + [(0, 0)] * (x.ndim - 1))
    valid = jnp.arange(length)[:, None] < lengths[None, :]
    x = jnp.where(valid.reshape(valid.shape + (1,) * (x.ndim - 2)), x, jnp.asarray(padding_value, x.dtype))
    return jnp.swapaxes(x, 0, 1) if batch_first else x
