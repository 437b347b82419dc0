"""Tensor printing, identical to PyTorch's ``torch/_tensor_str.py``.

A port of PyTorch's algorithm (BSD-licensed; see ``torch/_tensor_str.py``): the ``_Formatter``
(int mode, scientific mode, the width computation), the print options and their profiles,
summarisation with ``...``, nested brackets and indentation, and the suffixes
(``device=``, ``size=``, ``dtype=``, ``grad_fn=`` / ``requires_grad=True``) with their line
wrapping. PyTorch formats values through tensor ops on the tensor itself; here the tensor is
materialised once (the repr is a sync point) and everything runs on the NumPy array. Values are
formatted from Python floats/ints exactly as PyTorch's ``.item()`` / ``.tolist()`` produce them
(float16/bfloat16/float32 values widen exactly to Python floats).
"""
import contextlib
import dataclasses
import math
from typing import Optional

import numpy as np

from . import _dtype as D

inf = math.inf


@dataclasses.dataclass
class __PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: Optional[bool] = None


PRINT_OPTS = __PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    r"""Set options for printing (as ``torch.set_printoptions``).

    Args:
        precision: Number of digits of precision for floating point output (default = 4).
        threshold: Total number of array elements which trigger summarization rather than full
            `repr` (default = 1000).
        edgeitems: Number of array items in summary at beginning and end of each dimension
            (default = 3).
        linewidth: The number of characters per line for the purpose of inserting line breaks
            (default = 80). Thresholded matrices will ignore this parameter.
        profile: Sane defaults for pretty printing. Can override with any of the above options.
            (any one of `default`, `short`, `full`)
        sci_mode: Enable (True) or disable (False) scientific notation. If None (default) is
            specified, the value is chosen automatically by the formatter.
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    r"""The current options for printing, as a dictionary that can be passed as ``**kwargs`` to
    set_printoptions()."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    r"""Context manager that temporarily changes the print options. Accepted arguments are the
    same as :func:`set_printoptions`."""
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


# -- values --------------------------------------------------------------------------------
# The printing routines below work on the tensor's NumPy array ``a`` (in its own dtype, so that a
# summarised print of a large tensor converts only the edges it shows). Values are read through
# ``_tolist``, which widens floating values exactly to float64 and complex ones to complex128, so
# that they are the same Python floats/complexes as PyTorch's ``.tolist()`` / ``.item()``.

def _tolist(a):
    k = a.dtype.kind
    if k == 'c':
        return a.astype(np.complex128).tolist()
    if k in 'biu':
        return a.tolist()
    return a.astype(np.float64).tolist()      # float16/32/64 and ml_dtypes' bfloat16 (kind 'V')


class _Formatter:
    def __init__(self, a, floating):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = a.reshape(-1)

        if not self.floating_dtype:
            for value in _tolist(flat):
                value_str = f"{value}"
                self.max_width = max(self.max_width, len(value_str))
            return

        flat = flat.astype(np.float64)
        nonzero_finite_vals = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite_vals.size == 0:
            # no valid number, do nothing
            return

        nonzero_finite_abs = np.abs(nonzero_finite_vals)
        nonzero_finite_min = nonzero_finite_abs.min()
        nonzero_finite_max = nonzero_finite_abs.max()

        if np.any(nonzero_finite_vals != np.ceil(nonzero_finite_vals)):
            self.int_mode = False

        if PRINT_OPTS.sci_mode is None:
            with np.errstate(over='ignore'):        # the ratio may overflow to inf, as in torch
                ratio = nonzero_finite_max / nonzero_finite_min
            self.sci_mode = bool(ratio > 1000.0
                                 or nonzero_finite_max > 1.0e8
                                 or nonzero_finite_min < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        values = nonzero_finite_vals.tolist()
        if self.int_mode:
            # in int_mode for floats, all numbers are integers, and we append a decimal to nonfinites
            # to indicate that the tensor is of floating type. add 1 to the len to account for this.
            if self.sci_mode:
                fmt = f"{{:.{PRINT_OPTS.precision}e}}".format
                self.max_width = max(self.max_width, max(len(fmt(v)) for v in values))
            else:
                self.max_width = max(self.max_width, max(len(f"{v:.0f}") + 1 for v in values))
        else:
            if self.sci_mode:
                fmt = f"{{:.{PRINT_OPTS.precision}e}}".format
            else:
                fmt = f"{{:.{PRINT_OPTS.precision}f}}".format
            self.max_width = max(self.max_width, max(len(fmt(v)) for v in values))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{PRINT_OPTS.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val, formatter1, formatter2):
    real_str = formatter1.format(val.real)
    imag_str = (formatter2.format(val.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _scalar_str(a, formatter1, formatter2=None):
    if formatter2 is not None:
        return _complex_str(complex(_tolist(a)), formatter1, formatter2)
    return formatter1.format(_tolist(a))


def _vector_str(a, indent, summarize, formatter1, formatter2=None):
    # length includes spaces and comma between elements
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        # width for imag_formatter + an extra j for complex
        element_length += formatter2.width() + 1

    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (element_length)))

    if formatter2 is not None:
        def _val_formatter(val):
            return _complex_str(val, formatter1, formatter2)
    else:
        _val_formatter = formatter1.format

    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = ([_val_formatter(val) for val in _tolist(a[:e])]
                + [" ..."]
                + [_val_formatter(val) for val in _tolist(a[-e:])])
    else:
        data = [_val_formatter(val) for val in _tolist(a)]

    data_lines = [data[i:i + elements_per_line] for i in range(0, len(data), elements_per_line)]
    lines = [", ".join(line) for line in data_lines]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


# formatter2 is only used for printing complex tensors: formatter1 and formatter2 are then the
# formatters of the real and imaginary parts.
def _tensor_str_with_formatter(a, indent, summarize, formatter1, formatter2=None):
    dim = a.ndim

    if dim == 0:
        return _scalar_str(a, formatter1, formatter2)

    if dim == 1:
        return _vector_str(a, indent, summarize, formatter1, formatter2)

    e = PRINT_OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        slices = ([_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter1, formatter2)
                   for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter1, formatter2)
                     for i in range(n - e, n)])
    else:
        slices = [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter1, formatter2)
                  for i in range(n)]

    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


def _get_summarized_data(a):
    dim = a.ndim
    e = PRINT_OPTS.edgeitems
    if dim == 0:
        return a
    if dim == 1:
        if a.shape[0] > 2 * e:
            # a[-0:] is the whole vector, as in PyTorch
            return np.concatenate((a[:e], a[-e:]))
        return a
    if not e:
        return np.empty([0] * dim, a.dtype)
    n = a.shape[0]
    rows = list(range(e)) + list(range(n - e, n)) if n > 2 * e else range(n)
    return np.stack([_get_summarized_data(a[i]) for i in rows])


def _numpy_values(t):
    """The tensor's values (one sync point), as a NumPy array of its own dtype."""
    return np.asarray(t._materialize())


def _array_str(a, dt, indent):
    """PyTorch's ``_tensor_str`` on the NumPy array ``a`` of a tensor of torch dtype ``dt``."""
    if a.size == 0:
        return "[]"

    summarize = a.size > PRINT_OPTS.threshold

    if dt.is_complex:
        summary = _get_summarized_data(a) if summarize else a
        real_formatter = _Formatter(summary.real, True)
        imag_formatter = _Formatter(summary.imag, True)
        return _tensor_str_with_formatter(a, indent, summarize, real_formatter, imag_formatter)
    formatter = _Formatter(_get_summarized_data(a) if summarize else a, dt.is_floating_point)
    return _tensor_str_with_formatter(a, indent, summarize, formatter)


def _tensor_str(self, indent):
    return _array_str(_numpy_values(self), self.dtype, indent)


def _add_suffixes(tensor_str, suffixes, indent, force_newline):
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _parameter_class():
    import sys
    nn = sys.modules.get('torchlike.nn')
    return getattr(nn, 'Parameter', None) if nn is not None else None


def _str_intern(inp, *, tensor_contents=None):
    from ._tensor import Tensor
    Parameter = _parameter_class()
    is_plain_tensor = type(inp) is Tensor or (Parameter is not None and type(inp) is Parameter)
    if getattr(inp, 'is_nested', False):
        raise NotImplementedError("printing nested tensors is not supported by torchlike")
    prefix = "tensor(" if is_plain_tensor else f"{type(inp).__name__}("
    indent = len(prefix)
    suffixes = []
    custom_contents_provided = tensor_contents is not None
    if custom_contents_provided:
        tensor_str = tensor_contents

    self = inp

    # Note [Print tensor device]: the device is printed only when it is not the default device.
    from ._api import get_default_device
    dev = self.device
    if dev.type != get_default_device().type or dev.type == 'mps':
        suffixes.append("device='" + str(dev) + "'")

    default = D.get_default_dtype()
    default_complex = D.complex128 if default is D.float64 else D.complex64
    dt = self.dtype
    has_default_dtype = dt in (default, default_complex, D.int64, D.bool)

    if getattr(self, 'is_meta', False):
        suffixes.append("size=" + str(tuple(self.shape)))
        if dt is not default:
            suffixes.append("dtype=" + str(dt))
        if not custom_contents_provided:
            tensor_str = "..."
    elif self.numel() == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if self.dim() != 1:
            suffixes.append("size=" + str(tuple(self.shape)))
        # In an empty tensor there are no elements to infer the dtype from: always show it.
        if dt is not default:
            suffixes.append("dtype=" + str(dt))
        if not custom_contents_provided:
            tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(self.shape)))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(dt))
        if not custom_contents_provided:
            tensor_str = _tensor_str(self, indent)

    grad_fn_name = None
    try:
        grad_fn = inp.grad_fn
    except RuntimeError:
        grad_fn_name = "Invalid"
    if grad_fn_name is None and grad_fn is not None:
        grad_fn_name = grad_fn.name().rsplit("::", 1)[-1]

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif inp.requires_grad:
        suffixes.append("requires_grad=True")

    string_repr = _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)

    # Subclasses of Parameter print as Parameter(...) (plain Parameters keep the tensor repr).
    if Parameter is not None and isinstance(self, Parameter) and not is_plain_tensor:
        string_repr = f"Parameter({string_repr})"

    return string_repr


def _str(self, *, tensor_contents=None):
    from .autograd.grad_mode import no_grad
    with no_grad():
        return _str_intern(self, tensor_contents=tensor_contents)
