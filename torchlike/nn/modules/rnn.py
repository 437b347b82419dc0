"""RNNBase, RNN, LSTM, GRU and the cells RNNCell, LSTMCell, GRUCell.

The parameters are PyTorch's, by name, shape and order (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``,
``bias_hh_l0``, ``weight_hr_l0`` with LSTM projections, ``_reverse`` for the second direction), listed in
``_flat_weights`` in the order the kernels take them. A whole forward is one op (torch.lstm / gru /
rnn_tanh / rnn_relu, see Note [One op per recurrent network] in torchlike/_ops/nn_rnn.py).
"""
import math
import numbers
import warnings
import weakref

from ..._ops import creation
from ..._ops import nn_rnn as _VF
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _keep_source, padded_source
from .module import Module

__all__ = ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell']


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def _zeros(*shape, like):
    return creation.zeros(*shape, dtype=like.dtype, device=like.device)


class RNNBase(Module):
    r"""Base class for RNN modules (RNN, LSTM, GRU): holds the per-layer, per-direction parameters."""
    __constants__ = ['mode', 'input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout',
                     'bidirectional', 'proj_size']
    __jit_unused_properties__ = ['all_weights']

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == 'LSTM':
            gate_size = 4 * hidden_size
        elif mode == 'GRU':
            gate_size = 3 * hidden_size
        elif mode in ('RNN_TANH', 'RNN_RELU'):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(creation.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(creation.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(creation.empty(gate_size, **factory_kwargs))
                # a second bias vector, as cuDNN's layout (one would do)
                b_hh = Parameter(creation.empty(gate_size, **factory_kwargs))
                if self.proj_size == 0:
                    layer_params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                else:
                    w_hr = Parameter(creation.empty((proj_size, hidden_size), **factory_kwargs))
                    layer_params = (w_ih, w_hh, b_ih, b_hh, w_hr) if bias else (w_ih, w_hh, w_hr)

                suffix = '_reverse' if direction == 1 else ''
                param_names = ['weight_ih_l{}{}', 'weight_hh_l{}{}']
                if bias:
                    param_names += ['bias_ih_l{}{}', 'bias_hh_l{}{}']
                if self.proj_size > 0:
                    param_names += ['weight_hr_l{}{}']
                param_names = [x.format(layer, suffix) for x in param_names]
                for name, param in zip(param_names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, '_flat_weights_names') and attr in self._flat_weights_names:
            # keep self._flat_weights up to date after `self.weight_ih_l0 = ...`
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Resets parameter data pointers for cuDNN. The kernels read the parameters as they are, so there is
        nothing to do (as torch on the CPU)."""
        return None

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes.numpy()[0])   # host metadata: read, not recorded
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg='Expected hidden size {}, got {}'):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        # True when the parameters were swapped since the last forward (e.g. by torch.func.functional_call)
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if self.proj_size != 0:
            s += ', proj_size={proj_size}'
        if self.num_layers != 1:
            s += ', num_layers={num_layers}'
        if self.bias is not True:
            s += ', bias={bias}'
        if self.batch_first is not False:
            s += ', batch_first={batch_first}'
        if self.dropout != 0:
            s += ', dropout={dropout}'
        if self.bidirectional is not False:
            s += ', bidirectional={bidirectional}'
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = super().__getstate__()
        state.pop('_flat_weight_refs', None)    # weak references do not pickle
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if 'proj_size' not in d:
            self.proj_size = 0
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        # the replica must not share the flat-weights lists
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    # ---- the shared forward ---------------------------------------------------------------------

    def _forward(self, input, hx):
        """The forward of RNN / GRU / LSTM (LSTM's hx is a pair)."""
        self._update_flat_weights()
        lstm = self.mode == 'LSTM'
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        orig_input = input
        is_batched = True
        batch_dim = 0 if self.batch_first else 1
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes.numpy()[0])   # host metadata: read, not recorded
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{self._rnn_name}: Expected input to be 2D or 3D, got {input.dim()}D"
                                 f"{' tensor' if self.mode.startswith('RNN') else ''} instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            if hx is not None:
                _check_hx_dims(hx, is_batched, lstm)
                if not is_batched:
                    hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
        if hx is None:
            h0 = _zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size, like=input)
            if lstm:
                hx = (h0, _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size, like=input))
            else:
                hx = h0
        else:
            # each batch entry of the given state belongs to the sequence the caller put at that index
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)

        args = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        fname = _FNAMES[self.mode]
        if batch_sizes is None:
            result = _VF.rnn_padded(self.mode, input, None, hx, *args, self.batch_first, fname)
        else:
            # packed: run on the padded grid (Note [Packed sequences keep their padded source])
            kept = padded_source(orig_input)
            if kept is None:
                grid, lengths = _VF.grid_from_packed(input, batch_sizes)
                grid_bf = False
            else:
                grid, lengths, grid_bf = kept
            result = _VF.rnn_padded(self.mode, grid, lengths, hx, *args, grid_bf, fname)
        output = result[0]
        hidden = tuple(result[1:]) if lstm else result[1]
        if batch_sizes is not None:
            packed = PackedSequence(_VF.packed_from_grid(output, batch_sizes.tolist(), grid_bf), batch_sizes,
                                    sorted_indices, unsorted_indices)
            return _keep_source(packed, output, lengths, grid_bf), self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if lstm else hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


_FNAMES = {'RNN_TANH': 'rnn_tanh', 'RNN_RELU': 'rnn_relu', 'LSTM': 'lstm', 'GRU': 'gru'}


def _check_hx_dims(hx, is_batched, lstm):
    want = 3 if is_batched else 2
    kind = 'batched 3-D' if is_batched else 'unbatched 2-D'
    if lstm:
        if hx[0].dim() != want or hx[1].dim() != want:
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({hx[0].dim()}-D, "
                               f"{hx[1].dim()}-D) tensors")
    elif hx.dim() != want:
        raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx.dim()}-D tensor")


class RNN(RNNBase):
    r"""A multi-layer Elman RNN with tanh or ReLU non-linearity:
    :math:`h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1}W_{hh}^T + b_{hh})`.

    Args: input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False.
    """
    _rnn_name = 'RNN'

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if self.nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif self.nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory (LSTM) RNN, gates (i, f, g, o) as PyTorch; ``proj_size > 0``
    adds a projection of the hidden state (``weight_hr_l[k]``).

    Args: input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0.
    """
    _rnn_name = 'LSTM'

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes.numpy()[0])   # host metadata: read, not recorded
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               'Expected hidden[0] size {}, got {}')
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               'Expected hidden[1] size {}, got {}')

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class GRU(RNNBase):
    r"""A multi-layer gated recurrent unit (GRU) RNN, gates (r, z, n) as PyTorch:
    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn}))`.

    Args: input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False.
    """
    _rnn_name = 'GRU'

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__('GRU', *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


# ---- cells -------------------------------------------------------------------------------------------

class RNNCellBase(Module):
    __constants__ = ['input_size', 'hidden_size', 'bias']

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if 'bias' in self.__dict__ and self.bias is not True:
            s += ', bias={bias}'
        if 'nonlinearity' in self.__dict__ and self.nonlinearity != 'tanh':
            s += ', nonlinearity={nonlinearity}'
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name, input, hxs):
        """Validate ranks as torch's cells do; returns (is_batched, 2-D input, 2-D states or None)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hxs is not None:
            for idx, value in enumerate(hxs):
                if value.dim() not in (1, 2):
                    what = f'hx[{idx}]' if name == 'LSTMCell' else 'hidden'
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hxs is None:
            z = _zeros(input.size(0), self.hidden_size, like=input)
            hxs = (z, z)
        elif not is_batched:
            hxs = tuple(h.unsqueeze(0) for h in hxs)
        return is_batched, input, hxs


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell with tanh or ReLU non-linearity."""
    __constants__ = ['input_size', 'hidden_size', 'bias', 'nonlinearity']

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        is_batched, input, hxs = self._batched('RNNCell', input, None if hx is None else (hx,))
        if self.nonlinearity == 'tanh':
            f = _VF.rnn_tanh_cell
        elif self.nonlinearity == 'relu':
            f = _VF.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = f(input, hxs[0], self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""A long short-term memory (LSTM) cell; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched, input, hxs = self._batched('LSTMCell', input, hx)
        ret = _VF.lstm_cell(input, hxs, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else (ret[0].squeeze(0), ret[1].squeeze(0))


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit (GRU) cell."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched, input, hxs = self._batched('GRUCell', input, None if hx is None else (hx,))
        ret = _VF.gru_cell(input, hxs[0], self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
