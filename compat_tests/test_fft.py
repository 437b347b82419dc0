"""torch.fft, the window functions and stft/istft against real torch: values, dtypes, shapes, gradients,
grad_fn names and exception types."""
import warnings

import numpy as np
import pytest

import torchlike.fft  # noqa: F401  (torchlike.fft as torch.fft)
from conftest import assert_same, check

FNS_1D = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft']
FNS_ND = ['fft2', 'ifft2', 'fftn', 'ifftn', 'rfft2', 'irfft2', 'rfftn', 'irfftn', 'hfft2', 'ihfft2', 'hfftn', 'ihfftn']
REAL_IN = {'rfft', 'ihfft', 'rfft2', 'rfftn', 'ihfft2', 'ihfftn'}
DTYPES = ['float32', 'float64', 'complex64', 'complex128', 'int64', 'bool']


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # stft/istft's once-per-process warnings, resize warnings of out=
        yield


def _data(shape, dtype, seed=0):
    rs = np.random.RandomState(seed)
    a = rs.randn(*shape)
    if dtype.startswith('complex'):
        a = a + 1j * rs.randn(*shape)
    if dtype == 'int64':
        a = rs.randint(-5, 6, shape)
    if dtype == 'bool':
        a = rs.rand(*shape) > 0.5
    return a.astype(dtype)


def _t(T, a, grad=False):
    t = T.tensor(a)
    return t.requires_grad_(True) if grad else t


def _res(r):
    # torch returns ifft(real)/ihfft as conjugate views; numpy() needs them resolved
    return r.resolve_conj()


def _tol(dtype):
    return dict(atol=1e-4, rtol=1e-4) if dtype in ('float32', 'complex64', 'int64', 'bool') else \
        dict(atol=1e-10, rtol=1e-10)


# ---- the transforms: values and dtypes -----------------------------------------------------------

def test_classic_snippet_prints_as_torch():
    import torch
    assert str(torchlike.fft.fft(torchlike.arange(4))) == str(torch.fft.fft(torch.arange(4))) == \
        'tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])'


@pytest.mark.parametrize('name,dtype', [(n, d) for n in FNS_1D for d in DTYPES] +
                         [(n, d) for n in FNS_ND for d in ('float32', 'complex128', 'int64')])
def test_dtypes(name, dtype):
    a = _data((3, 5), dtype)
    check(lambda T: _res(getattr(T.fft, name)(_t(T, a))), **_tol(dtype))


@pytest.mark.parametrize('n', [None, 3, 8])
@pytest.mark.parametrize('norm', [None, 'forward', 'ortho'])
@pytest.mark.parametrize('name', FNS_1D)
def test_1d_n_dim_norm(name, norm, n):
    a = _data((6, 4), 'float64' if name in REAL_IN else 'complex128', seed=1)
    check(lambda T: _res(getattr(T.fft, name)(_t(T, a), n=n, dim=0, norm=norm)), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize('name', FNS_1D)
def test_backward_norm_is_the_default(name):
    a = _data((6, 4), 'float64' if name in REAL_IN else 'complex128', seed=1)
    check(lambda T: _res(getattr(T.fft, name)(_t(T, a), norm='backward')), atol=1e-10, rtol=1e-10)


ND_ARGS = [dict(), dict(s=(3, 6)), dict(s=(4, -1), dim=(0, 2)), dict(dim=(2, 0)), dict(s=(5,), dim=(1,)),
           dict(dim=-1), dict(s=7), dict(s=(2, 3, 4))]


@pytest.mark.parametrize('kw', ND_ARGS, ids=str)
@pytest.mark.parametrize('name', ['fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn'])
def test_nd_s_dim(name, kw):
    a = _data((4, 3, 5), 'float64' if name in REAL_IN else 'complex128', seed=2)
    check(lambda T: _res(getattr(T.fft, name)(_t(T, a), norm='ortho', **kw)), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize('kw', [dict(), dict(s=(3, 6)), dict(dim=(0, 2)), dict(s=(5, 4), dim=(2, 1), norm='forward')],
                         ids=str)
@pytest.mark.parametrize('name', ['fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2'])
def test_2d(name, kw):
    a = _data((4, 3, 5), 'float64' if name in REAL_IN else 'complex128', seed=3)
    check(lambda T: _res(getattr(T.fft, name)(_t(T, a), **kw)), atol=1e-10, rtol=1e-10)


def test_c2r_ignores_the_imaginary_dc_and_nyquist_parts_as_torch():
    a = _data((5,), 'complex128', seed=4)
    check(lambda T: (T.fft.irfft(_t(T, a)), T.fft.hfft(_t(T, a)), T.fft.irfft(_t(T, a), n=9),
                     T.fft.irfftn(_t(T, _data((3, 5), 'complex128', 5)))), atol=1e-10, rtol=1e-10)


def test_roundtrips_and_empty_transforms():
    a = _data((4, 6), 'float64', seed=6)
    check(lambda T: (T.fft.irfft(T.fft.rfft(_t(T, a)), n=6), T.fft.ifftn(T.fft.fftn(_t(T, a))).real,
                     T.fft.fftn(_t(T, a), dim=()), T.fft.fftn(_t(T, a), s=()), T.fft.fftn(T.tensor(2.0))),
          atol=1e-10, rtol=1e-10)


def test_default_dtype_float64_promotes_integers_to_complex128():
    def f(T):
        old = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            return T.fft.fft(T.arange(5)), T.fft.rfft(T.arange(5)), T.fft.irfft(T.arange(5)), T.fft.fftfreq(4)
        finally:
            T.set_default_dtype(old)
    check(f, atol=1e-10, rtol=1e-10)


# ---- gradients -----------------------------------------------------------------------------------

def _grad_case(name, kw, shape):
    a = _data(shape, 'float64' if name in REAL_IN or name in ('fft', 'ifft', 'fftn') else 'complex128', seed=7)

    def f(T):
        x = _t(T, a, grad=True)
        out = getattr(T.fft, name)(x, **kw)
        rs = np.random.RandomState(8)
        w1 = T.tensor(rs.randn(*out.shape))
        if out.is_complex():
            loss = (out.real * w1 + out.imag * T.tensor(rs.randn(*out.shape))).sum()
        else:
            loss = (out * w1).sum()
        loss.backward()
        return _res(out.detach()), _res(x.grad), out.grad_fn.name()
    return f


GRAD_CASES = [(n, kw) for n in FNS_1D for kw in (dict(), dict(n=3), dict(n=9, norm='ortho'))] + \
    [(n, kw) for n in FNS_ND for kw in (dict(), dict(s=(2, 7), norm='forward'))]


@pytest.mark.parametrize('name,kw', GRAD_CASES, ids=lambda v: str(v))
def test_gradients(name, kw):
    check(_grad_case(name, kw, (3, 5)), atol=1e-9, rtol=1e-9)


def test_gradients_of_real_input_to_complex_transforms():
    a = _data((4, 6), 'float64', seed=9)

    def f(T):
        x = _t(T, a, grad=True)
        y = T.fft.fft(x, dim=0)
        z = T.fft.ifft(x, n=5)
        (y.abs().sum() + (z.real * 2 - z.imag).sum()).backward()
        return x.grad, y.grad_fn.name(), z.grad_fn.name()
    check(f, atol=1e-9, rtol=1e-9)


def test_second_order_gradient():
    a = _data((6,), 'float64', seed=10)

    def f(T):
        x = _t(T, a, grad=True)
        y = (T.fft.rfft(x).abs() ** 2).sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g.detach(), x.grad
    check(f, atol=1e-9, rtol=1e-9)


# ---- argument errors, out= -----------------------------------------------------------------------

ERRORS = [
    lambda T, x: T.fft.fft(x.half()),
    lambda T, x: T.fft.fft(x.bfloat16()),
    lambda T, x: T.fft.rfft(x.half()),
    lambda T, x: T.fft.rfft(x.to(T.complex64)),
    lambda T, x: T.fft.ihfft(x.to(T.complex64)),
    lambda T, x: T.fft.rfftn(x.to(T.complex64)),
    lambda T, x: T.fft.ihfftn(x.to(T.complex64)),
    lambda T, x: T.fft.fft(x, n=0),
    lambda T, x: T.fft.fft(x, n=-1),
    lambda T, x: T.fft.fft(x, dim=2),
    lambda T, x: T.fft.fft(x, dim=(0,)),
    lambda T, x: T.fft.fft(x, n=2.0),
    lambda T, x: T.fft.fft(x, norm='foo'),
    lambda T, x: T.fft.fft(x, norm=1),
    lambda T, x: T.fft.fft([1.0, 2.0]),
    lambda T, x: T.fft.fft(T.tensor(1.0)),
    lambda T, x: T.fft.fft2(x[0]),
    lambda T, x: T.fft.fftn(x, s=(2, 3, 4)),
    lambda T, x: T.fft.fftn(x, dim=(0, 0)),
    lambda T, x: T.fft.fftn(x, dim=(0, -2)),
    lambda T, x: T.fft.fftn(x, s=(2,), dim=(0, 1)),
    lambda T, x: T.fft.fftn(x, s=(-2, 2)),
    lambda T, x: T.fft.fftn(x, s=[2.0]),
    lambda T, x: T.fft.rfftn(x, dim=()),
    lambda T, x: T.fft.irfftn(x, dim=()),
    lambda T, x: T.fft.hfftn(x, dim=()),
    lambda T, x: T.fft.ihfftn(x, dim=()),
    lambda T, x: T.fft.irfft(x[:, :1]),
    lambda T, x: T.fft.irfftn(x[:, :1]),
    lambda T, x: T.fft.fft(T.zeros(0)),
    lambda T, x: T.fft.fftn(x, dim=3),
    lambda T, x: T.fft.fft(x, out=T.empty(3, 4)),
    lambda T, x: T.fft.irfft(x, out=T.empty(3, 6, dtype=T.complex64)),
    lambda T, x: T.fft.fft(x.requires_grad_(), out=T.empty(3, 4, dtype=T.complex64)),
    lambda T, x: T.fft.fftshift(x, dim=3),
    lambda T, x: T.fft.fftshift(T.tensor(1.0)),
    lambda T, x: T.fft.fftfreq(5, dtype=T.int64),
    lambda T, x: T.fft.fftfreq(5, dtype=T.complex64),
    lambda T, x: T.fft.fftfreq(4.0),
    lambda T, x: T.fft.fftfreq(-3),
]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    a = _data((3, 4), 'float32', seed=11)
    check(lambda T: ERRORS[i](T, _t(T, a)))


def test_out():
    a = _data((3, 4), 'float32', seed=12)

    def f(T):
        x = _t(T, a)
        o1 = T.empty(3, 4, dtype=T.complex128)
        r1 = T.fft.fft(x, out=o1)
        o2 = T.empty(0, dtype=T.complex64)
        T.fft.rfft2(x, out=o2)
        o3 = T.empty(3, 6, dtype=T.float64)
        T.fft.irfft(x, out=o3)
        o4 = T.empty(2, dtype=T.float32)
        T.fft.fftfreq(5, out=o4)
        o5 = T.empty(3, 4, dtype=T.complex64)
        T.fft.fft(x.double(), out=o5)
        o6 = T.empty(3, 3, dtype=T.complex128)
        T.fft.ihfft(x.double(), out=o6)
        return r1 is o1, o1, o2, o3, o4, o5, o6
    check(f)


@pytest.mark.parametrize('call', [
    lambda T, x: T.fft.ifft(x.double(), out=T.empty(3, 4, dtype=T.complex64)),
    lambda T, x: T.fft.ihfft(x, out=T.empty(3, 3, dtype=T.complex128)),
    lambda T, x: T.fft.ifft(x.long(), out=T.empty(3, 4, dtype=T.complex128)),
])
def test_out_of_conj_results_needs_the_exact_dtype(call):
    check(lambda T: call(T, _t(T, _data((3, 4), 'float32', seed=12))))


# ---- helpers -------------------------------------------------------------------------------------

@pytest.mark.parametrize('kw', [dict(n=5), dict(n=6), dict(n=7, d=0.3), dict(n=8, d=2, dtype='float64'),
                                dict(n=5, dtype='float16'), dict(n=6, dtype='bfloat16'), dict(n=0),
                                dict(n=4, requires_grad=True)], ids=str)
def test_fftfreq(kw):
    def f(T):
        k = dict(kw)
        if 'dtype' in k:
            k['dtype'] = getattr(T, k['dtype'])
        a, b = T.fft.fftfreq(**k), T.fft.rfftfreq(**k)
        return a.detach(), b.detach(), a.requires_grad
    check(f, atol=0, rtol=0)


@pytest.mark.parametrize('dim', [None, 0, 1, -1, (0, 1), (1, 1)])
def test_shifts(dim):
    a = np.arange(35.0).reshape(5, 7)

    def f(T):
        x = _t(T, a, grad=True)
        y = T.fft.fftshift(x, dim=dim)
        z = T.fft.ifftshift(y, dim=dim)
        (y * T.arange(35.0).reshape(5, 7)).sum().backward()
        return y.detach(), z.detach(), x.grad, y.grad_fn.name()
    check(f, atol=0, rtol=0)


def test_namespace():
    import torch
    names = [n for n in dir(torch.fft) if not n.startswith('_') and callable(getattr(torch.fft, n))
             and n not in ('Tensor',)]
    assert sorted(n for n in names if not hasattr(torchlike.fft, n)) == []
    assert not hasattr(torchlike.Tensor, 'fft') and not hasattr(torch.Tensor, 'fft')


# ---- windows -------------------------------------------------------------------------------------

WINDOWS = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window']


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('periodic', [True, False])
@pytest.mark.parametrize('name', WINDOWS)
def test_windows(name, periodic, dtype):
    # half and bfloat16 bit-for-bit (torch's kernels round after every step); float within an ulp of cos
    tol = dict(atol=0, rtol=0) if dtype in ('float16', 'bfloat16') else dict(atol=2e-7, rtol=0)
    check(lambda T: [getattr(T, name)(n, periodic, dtype=getattr(T, dtype)) for n in (0, 1, 5, 8)], **tol)


WINDOW_CALLS = [
    lambda T: T.hann_window(6),
    lambda T: T.hann_window(6, periodic=False, requires_grad=True),
    lambda T: T.hamming_window(7, True, 0.3),
    lambda T: T.hamming_window(7, False, 0.3, 0.2, dtype=T.float64),
    lambda T: T.hamming_window(7, periodic=True, alpha=0.6, beta=0.1),
    lambda T: T.kaiser_window(9, False, 3.0),
    lambda T: T.kaiser_window(9, True, 0.5, dtype=T.float64),
    lambda T: T.kaiser_window(9, periodic=False, beta=5.0),
    lambda T: T.bartlett_window(T.tensor(6)),
    lambda T: T.hann_window(-1),
    lambda T: T.hann_window(4.0),
    lambda T: T.hann_window(4, dtype=T.int64),
    lambda T: T.blackman_window(4, dtype=T.complex64),
    lambda T: T.hamming_window(5, alpha=0.3),
    lambda T: T.kaiser_window(5, beta=3.0),
    lambda T: T.hann_window(5, periodic=None),
]


@pytest.mark.parametrize('i', range(len(WINDOW_CALLS)))
def test_window_arguments(i):
    check(lambda T: (lambda w: (w, w.requires_grad))(WINDOW_CALLS[i](T)), atol=1e-6, rtol=1e-6)


# ---- stft / istft --------------------------------------------------------------------------------

def _stft_in(T, shape=(64,), dtype='float64', grad=True):
    return _t(T, _data(shape, dtype, seed=13), grad=grad)


def _w(T, n=16):
    return T.hann_window(n, dtype=T.float64)


def _stft_case(call):
    def f(T):
        x = _stft_in(T)
        out = call(T, x)
        rs = np.random.RandomState(14)
        r = T.view_as_real(out) if out.is_complex() else out
        (r * T.tensor(rs.randn(*r.shape))).sum().backward()
        return _res(out.detach()), x.grad, out.grad_fn.name()
    return f


STFT_CASES = [
    lambda T, x: T.stft(x, 16, window=_w(T), return_complex=True),
    lambda T, x: T.stft(x.float(), 16, return_complex=True),
    lambda T, x: T.stft(x, 16, window=_w(T), return_complex=False),
    lambda T, x: T.stft(x.reshape(2, 32), 8, window=_w(T, 8), return_complex=True, onesided=False),
    lambda T, x: T.stft(x, 16, hop_length=3, win_length=10, window=_w(T, 10), return_complex=True, normalized=True),
    lambda T, x: T.stft(x, 16, hop_length=3, win_length=10, return_complex=True, center=False),
    lambda T, x: T.stft(x, 16, hop_length=4, win_length=10, return_complex=True, center=False,
                        align_to_window=True),
    lambda T, x: T.stft(x, 16, hop_length=5, win_length=8, window=_w(T, 8), return_complex=True, center=False,
                        align_to_window=True),
    lambda T, x: T.stft(x, 16, pad_mode='constant', return_complex=True),
    lambda T, x: T.stft(x, 16, pad_mode='circular', return_complex=True),
    lambda T, x: T.stft(x, 16, pad_mode='replicate', return_complex=True),
    lambda T, x: T.stft(x * (1 + 1j), 16, window=_w(T), return_complex=True),
    lambda T, x: T.stft(x, 16, window=_w(T).to(T.complex128), return_complex=True),
    lambda T, x: T.stft(x, 16, window=_w(T).float(), return_complex=True),
    lambda T, x: x.stft(16, window=_w(T), return_complex=True),
]


@pytest.mark.parametrize('i', range(len(STFT_CASES)))
def test_stft(i):
    check(_stft_case(STFT_CASES[i]), atol=1e-5, rtol=1e-5)


def _spec(T, x, **kw):
    return T.stft(x, 16, window=_w(T), return_complex=True, **kw)


ISTFT_CASES = [
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x), 16),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), length=70),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), length=30),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), normalized=True),
    lambda T, x: T.istft(_spec(T, x, onesided=False), 16, window=_w(T), return_complex=True),
    lambda T, x: T.istft(_spec(T, x, onesided=False), 16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x)[None].expand(2, 9, 17), 16, window=_w(T)),
    lambda T, x: T.istft(T.stft(x, 16, hop_length=4, win_length=10, window=_w(T, 10), return_complex=True), 16,
                         hop_length=4, win_length=10, window=_w(T, 10)),
    lambda T, x: T.istft(_spec(T, x), 16, window=T.ones(16), center=False),
    lambda T, x: _spec(T, x).istft(16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x).to(T.complex64), 16, window=_w(T)),
]


@pytest.mark.parametrize('i', range(len(ISTFT_CASES)))
def test_istft(i):
    check(_stft_case(ISTFT_CASES[i]), atol=1e-5, rtol=1e-5)


SPECTRAL_ERRORS = [
    lambda T, x: T.stft(x, 16, window=_w(T)),
    lambda T, x: T.stft(x, 100, window=_w(T, 100), return_complex=True),
    lambda T, x: T.stft(x, 100, return_complex=True, center=False),
    lambda T, x: T.stft(x.reshape(2, 2, 16), 16, window=_w(T), return_complex=True),
    lambda T, x: T.stft(x.long(), 16, window=_w(T), return_complex=True),
    lambda T, x: T.stft(x, 16, hop_length=0, return_complex=True),
    lambda T, x: T.stft(x, 16, win_length=20, return_complex=True),
    lambda T, x: T.stft(x, 16, win_length=8, window=T.ones(9), return_complex=True),
    lambda T, x: T.stft(x, 16, pad_mode='foo', return_complex=True),
    lambda T, x: T.stft(x, 16, align_to_window=True, return_complex=True),
    lambda T, x: T.stft(x, 16, window=_w(T).to(T.complex64), return_complex=True, onesided=True),
    lambda T, x: T.stft(x.half(), 16, return_complex=True, center=False),
    lambda T, x: T.stft(x, 12, hop_length=3, win_length=7, return_complex=True, center=False, align_to_window=True),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), center=False),
    lambda T, x: T.istft(T.view_as_real(_spec(T, x)), 16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), return_complex=True),
    lambda T, x: T.istft(_spec(T, x), 16, window=_w(T), onesided=False),
    lambda T, x: T.istft(_spec(T, x), 15, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x), 16, hop_length=20, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x), 16, window=T.ones(5)),
    lambda T, x: T.istft(_spec(T, x)[None, None], 16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x)[:, :0], 16, window=_w(T)),
    lambda T, x: T.istft(_spec(T, x), 16, window=T.zeros(16)),
    lambda T, x: T.istft(_spec(T, x, onesided=False), 16, window=_w(T).to(T.complex128)),
]


@pytest.mark.parametrize('i', range(len(SPECTRAL_ERRORS)))
def test_spectral_errors(i):
    check(lambda T: SPECTRAL_ERRORS[i](T, _stft_in(T, grad=False)))


def test_stft_istft_window_gradient():
    def f(T):
        x = _stft_in(T, grad=False)
        w = T.hann_window(16, dtype=T.float64).requires_grad_(True)
        s = T.stft(x, 16, hop_length=4, window=w, return_complex=True)
        y = T.istft(s * 1.5, 16, hop_length=4, window=w)
        (s.abs().sum() + (y * x).sum()).backward()
        return w.grad
    check(f, atol=1e-8, rtol=1e-8)


# ---- torch.signal.windows (registered in the 'signal.windows' namespace) ---------------------------

SIGNAL_WINDOWS = [('hann', {}), ('hamming', {}), ('blackman', {}), ('bartlett', {}), ('cosine', {}),
                  ('nuttall', {}), ('kaiser', dict(beta=3.0)), ('gaussian', dict(std=0.7)),
                  ('exponential', dict(tau=2.0)), ('general_cosine', dict(a=[0.4, 0.3, 0.3])),
                  ('general_hamming', dict(alpha=0.6))]


@pytest.mark.parametrize('name,kw', SIGNAL_WINDOWS, ids=lambda v: str(v))
def test_signal_windows(name, kw):
    import torch
    from torchlike._engine.registry import PUBLIC
    tl_fn, th_fn = PUBLIC['signal.windows'][name], getattr(torch.signal.windows, name)
    for M, sym, dt in ((0, True, 'float32'), (1, False, 'float64'), (7, True, 'float32'), (10, False, 'float64')):
        assert_same(tl_fn(M, sym=sym, dtype=getattr(torchlike, dt), **kw),
                    th_fn(M, sym=sym, dtype=getattr(torch, dt), **kw), atol=1e-6, rtol=1e-6)
    for bad in (dict(M=-1), dict(M=4, dtype='int64'), dict(M=4, dtype='float16')):
        k = dict(kw, **bad)
        M = k.pop('M')
        errs = []
        for lib, fn in ((torch, th_fn), (torchlike, tl_fn)):
            kk = dict(k, dtype=getattr(lib, k['dtype'])) if 'dtype' in k else k
            try:
                fn(M, **kk)
                errs.append(None)
            except Exception as e:  # noqa: BLE001 - comparing exception types with torch's
                errs.append(type(e))
        assert errs[0] is errs[1] and errs[0] is not None, (bad, errs)
