"""torch.stft / torch.istft (and the Tensor methods), following ATen's SpectralOps.cpp.

stft: the centre padding is torch.nn.functional.pad (as torch.functional.stft does it, so pad_mode and its
errors are F.pad's); then one op frames the signal (a gather of hop-strided windows), multiplies by the
window zero-padded to n_fft, transforms the last dim and puts frequencies before frames.
istft: one op inverts each frame, multiplies by the window, overlap-adds (a scatter-add: ATen's
unfold_backward) and divides by the overlap-added squared window; torch's "window overlap add min"
check reads that envelope's minimum back to the host, as torch's ``.item()`` does.
Both bodies are pure JAX, so their backward is the VJP of one compiled program.
"""
import warnings

from .. import _dtype as D
from .._engine.registry import op, public
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.dispatch import _tname
from .._engine.jaxrt import jnp
from .._tensor import Tensor

_warned = set()


def _warn_once(key, msg, stacklevel=3):
    # torch's TORCH_WARN_ONCE: once per process
    if key not in _warned:
        _warned.add(key)
        warnings.warn(msg, UserWarning, stacklevel=stacklevel)


def _full_window(window, n_fft, win_length, dtype):
    """The window zero-padded on both sides to n_fft points (ATen centres a short window); None: rectangular."""
    left = (n_fft - win_length) // 2
    if window is None:
        if win_length == n_fft:
            return None
        window = jnp.ones((win_length,), dtype)
    return jnp.pad(window, (left, n_fft - win_length - left)) if win_length != n_fft else window


def _tname_of(t):
    return f"torch.{_tname(t.dtype)}Tensor{list(t.shape)}"


def _win_repr(window):
    return 'None' if window is None else f"torch.{_tname(window.dtype)}Tensor{{{list(window.shape)}}}"


# ---- stft ----------------------------------------------------------------------------------------

@op('_stft', static=('n_fft', 'hop', 'win_length', 'n_frames', 'normalized', 'onesided', 'squeeze'),
    promote='same', saves=(), function=False, method=False, out=False,
    node=lambda squeeze, **_: 'SqueezeBackward4' if squeeze else 'TransposeBackward1')
def _stft(input, window, *, n_fft, hop, win_length, n_frames, normalized, onesided, squeeze):
    x = input if input.ndim == 2 else input[None]
    idx = hop * jnp.arange(n_frames)[:, None] + jnp.arange(n_fft)[None, :]
    frames = x[:, idx]                                          # (batch, n_frames, n_fft)
    w = _full_window(window, n_fft, win_length, x.dtype)
    if w is not None:
        frames = frames * w
    norm = 'ortho' if normalized else 'backward'
    if jnp.iscomplexobj(frames) or not onesided:
        out = jnp.fft.fft(frames.astype(jnp.result_type(frames.dtype, jnp.complex64)), axis=-1, norm=norm)
    else:
        out = jnp.fft.rfft(frames, axis=-1, norm=norm)
    out = jnp.swapaxes(out, 1, 2)
    return out[0] if squeeze else out


@public('stft', method=True)
@autocast_entry('stft')
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect',
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect',
    normalized=False, onesided=None, return_complex=None, align_to_window=None) -> Tensor"""
    from ..nn import functional as F
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:    # torch.functional.stft pads in Python, through F.pad
        sdim = input.dim()
        pad = int(n_fft // 2)
        input = F.pad(input.view([1] * (3 - sdim) + list(input.shape)), [pad, pad], pad_mode)
        input = input.view(input.shape[-sdim:])
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        _warn_once('stft_window', "A window was not provided. A rectangular window will be applied,which is "
                   "known to cause spectral leakage. Other windows such as torch.hann_window or torch.hamming_window "
                   "are recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                   "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", stacklevel=4)
    rc = return_complex if return_complex is not None else (
        input.is_complex() or (window is not None and window.is_complex()))
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        _warn_once('stft_real', "stft with return_complex=False is deprecated. In a future pytorch release, stft "
                   "will return complex tensors for all inputs, and return_complex=False will raise an error.\n"
                   "Note: you can still call torch.view_as_real on the complex output to recover the old "
                   "return format.", stacklevel=4)
    head = (f"stft({_tname_of(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_win_repr(window)}, normalized={int(normalized)}, onesided={onesided}, "
            f"return_complex={int(rc)}, align_to_window={align_to_window}) ")
    if input.dim() not in (1, 2):
        raise RuntimeError(head + ": expected a 1D or 2D tensor")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(head + ": expected a tensor of floating point or complex values")
    length = input.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(head + f": expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(head + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(head + f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(head + f": expected a 1D window tensor of size equal to win_length={win}, but got "
                           f"window with size {list(window.shape)}")
    for t in (input, window):
        if t is not None and t.dtype in (D.float16, D.bfloat16):
            raise RuntimeError(f"MKL FFT doesn't support tensors of type: {_tname(t.dtype)}")
    n_frames = 1 + (length - n_fft) // hop
    if align_to_window:
        # ATen pads (n_fft - win_length) // 2 zeros on both sides so that frame t's window starts at t * hop
        left = (n_fft - win) // 2
        n_frames = 1 + (length - win) // hop
        if (n_frames - 1) * hop + n_fft > length + 2 * left:
            raise RuntimeError(f"stft: the aligned frames need {(n_frames - 1) * hop + n_fft} samples but the "
                               f"padded input has {length + 2 * left}")
        input = F.pad(input, [left, left])
    cplx = input.is_complex() or (window is not None and window.is_complex())
    one = (not cplx) if onesided is None else onesided
    if cplx and one:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    out = _stft.function(input, window, n_fft=n_fft, hop=hop, win_length=win, n_frames=n_frames,
                         normalized=bool(normalized), onesided=one, squeeze=input.dim() == 1)
    if not rc:
        from .. import view_as_real
        out = view_as_real(out)
    return out


# ---- istft ---------------------------------------------------------------------------------------

def _overlap_add(frames, hop, total):
    """ATen's unfold_backward: frames (batch, n_frames, n_fft) summed into (batch, total)."""
    n_frames, n_fft = frames.shape[-2:]
    idx = hop * jnp.arange(n_frames)[:, None] + jnp.arange(n_fft)[None, :]
    return jnp.zeros(frames.shape[:-2] + (total,), frames.dtype).at[..., idx].add(frames)


def _envelope(window, n_fft, hop, win_length, n_frames, dtype):
    w = _full_window(window, n_fft, win_length, dtype)
    if w is None:
        w = jnp.ones((n_fft,), dtype)
    w2 = w * w                                      # window.pow(2): complex windows square, not abs^2
    return w, _overlap_add(jnp.broadcast_to(w2, (1, n_frames, n_fft)), hop, n_fft + hop * (n_frames - 1))


def _trim(n_fft, center, length, total):
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else total)
    return start, end


@op('_istft_envelope_min', static=('n_fft', 'hop', 'win_length', 'n_frames', 'center', 'length', 'dtype'),
    function=False, method=False, out=False, differentiable=False)
def _istft_envelope_min(window, *, n_fft, hop, win_length, n_frames, center, length, dtype):
    _, env = _envelope(window, n_fft, hop, win_length, n_frames, dtype.np)
    start, end = _trim(n_fft, center, length, env.shape[-1])
    return jnp.min(jnp.abs(env[:, start:end]))


def _istft_node(squeeze, pad, **_):
    if pad:
        return 'ConstantPadNdBackward0'
    return 'SqueezeBackward1' if squeeze else 'DivBackward0'


@op('_istft', static=('n_fft', 'hop', 'win_length', 'center', 'normalized', 'onesided', 'length',
                      'return_complex', 'squeeze', 'pad'),
    saves=(), function=False, method=False, out=False, node=_istft_node)
def _istft(input, window, *, n_fft, hop, win_length, center, normalized, onesided, length, return_complex,
           squeeze, pad):
    x = input if input.ndim == 3 else input[None]
    x = jnp.swapaxes(x, 1, 2)                                   # (batch, n_frames, fft_size)
    norm = 'ortho' if normalized else 'backward'
    if return_complex:
        frames = jnp.fft.ifft(x, axis=-1, norm=norm)
    else:
        if not onesided:
            x = x[..., :n_fft // 2 + 1]
        frames = jnp.fft.irfft(x, n=n_fft, axis=-1, norm=norm)
    n_frames = x.shape[1]
    real_dt = jnp.real(x).dtype
    w, env = _envelope(window, n_fft, hop, win_length, n_frames, real_dt)
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames * w, hop, total)
    start, end = _trim(n_fft, center, length, total)
    y = y[:, start:end] / env[:, start:end]
    if squeeze:
        y = y[0]
    if pad:
        y = jnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, end - total)])
    return y


@public('istft', method=True)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
    onesided=None, length=None, return_complex=False) -> Tensor"""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if window is None:
        _warn_once('istft_window', "A window was not provided. A rectangular window will be applied.Please provide "
                   "the same window used by stft to make the inversion lossless.To suppress this warning and use a "
                   "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    head = (f"istft(CPU{_tname(input.dtype)}Type{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_win_repr(window)}, center={int(center)}, normalized={int(normalized)}, "
            f"onesided={onesided}, length={length}, return_complex={int(return_complex)}) ")
    if input.numel() == 0:
        raise RuntimeError(head + ": input tensor cannot be empty.")
    if input.dim() not in (2, 3):
        raise RuntimeError(head + f": expected a tensor with 3 or 4 dimensions of complex dtype, but got "
                           f"{input.dim() + 1}")
    fft_size, n_frames = input.shape[-2], input.shape[-1]
    one = (fft_size != n_fft) if onesided is None else onesided
    if one and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(head + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one and n_fft != fft_size:
        raise RuntimeError(head + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(head + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(head + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(head + ": Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex and one:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if not return_complex and window is not None and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    real_dt = input.dtype.to_real()
    wdt = real_dt if window is None else D.promote_types(real_dt, window.dtype)
    total = n_fft + hop * (n_frames - 1)
    start, end = _trim(n_fft, center, length, total)
    # torch reads the envelope's minimum back (a sync point) before dividing by it
    mn = dispatch.apply(_istft_envelope_min, (window,), (n_fft, hop, win, n_frames, bool(center), length, wdt))
    if mn.item() < 1e-11:
        raise RuntimeError(head + "window overlap add min: 1")
    pad = end > total
    if pad:
        _warn_once('istft_pad', "The length of signal is shorter than the length parameter. Result is being "
                   "padded with zeros in the tail. Please check your center and hop_length settings.")
    return _istft.function(input, window, n_fft=n_fft, hop=hop, win_length=win, center=bool(center),
                           normalized=bool(normalized), onesided=one, length=length,
                           return_complex=bool(return_complex), squeeze=input.dim() == 2, pad=pad)
