"""`python -m torchlike`: unchanged scripts run as under `python`, with `torch` aliased to torchlike.

The oracle is the interpreter itself (and real torch for the example): every probe runs once under
`python ...` and once under `python -m torchlike ...`, and the two are compared.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
RUNNER = [PY, '-m', 'torchlike']


def run(cmd, cwd, stdin=None, timeout=240):
    env = dict(os.environ)
    env.pop('PYTHONSAFEPATH', None)
    return subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout, env=env)


def script(tmp_path, name, body):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def traceback_frames(stderr):
    """(file basename, line, function) of each frame of the last traceback in stderr, and its last line."""
    tb = stderr[stderr.rindex('Traceback (most recent call last):'):]
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', tb)
    return [(os.path.basename(f), int(n), fn) for f, n, fn in frames], tb.strip().splitlines()[-1]


# ----------------------------------------------------------------------------------------------
# The example: same stdout under real torch and under the runner


@pytest.mark.parametrize('mode', ['eager', 'lazy'])
def test_autograd_tour_prints_as_under_torch(mode):
    example = os.path.join('examples', 'autograd_tour.py')
    real = run([PY, example], cwd=ROOT)
    ours = run(RUNNER + ['--mode', mode, example], cwd=ROOT)
    assert real.returncode == 0, real.stderr
    assert ours.returncode == 0, ours.stderr
    # `print(y.grad_fn)` shows an object address, which differs from run to run.
    addr = lambda s: re.sub(r'0x[0-9a-fA-F]+', '0x...', s)  # noqa: E731
    assert addr(ours.stdout) == addr(real.stdout)
    assert 'grad_fn=<AddBackward0>' in ours.stdout


# ----------------------------------------------------------------------------------------------
# Script form: argv, __name__, __file__, sys.path[0], exit status, tracebacks

PROBE = """\
    import json, os, sys
    print(json.dumps({'argv': sys.argv, 'name': __name__, 'path0': sys.path[0],
                      'file': os.path.realpath(__file__) if '__file__' in globals() else None,
                      'main_is_me': sys.modules['__main__'].__dict__ is globals()}))
"""


def test_script_environment_as_python(tmp_path):
    path = script(tmp_path, 'sub/probe.py', PROBE)
    rel = os.path.join('sub', 'probe.py')
    real = run([PY, rel, 'a', '--flag', 'b c'], cwd=tmp_path)
    ours = run(RUNNER + [rel, 'a', '--flag', 'b c'], cwd=tmp_path)
    assert real.returncode == ours.returncode == 0, ours.stderr
    got, want = json.loads(ours.stdout), json.loads(real.stdout)
    assert got == want
    assert got['argv'] == [rel, 'a', '--flag', 'b c'] and got['name'] == '__main__'
    assert got['path0'] == str(path.parent) and got['file'] == str(path)


def test_script_dir_is_importable(tmp_path):
    script(tmp_path, 'proj/helper.py', 'VALUE = 42\n')
    script(tmp_path, 'proj/main.py', 'import helper\nprint(helper.VALUE)\n')
    ours = run(RUNNER + ['proj/main.py'], cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, '42\n'), ours.stderr


@pytest.mark.parametrize('code', ['sys.exit(3)', 'sys.exit(0)', 'sys.exit("bye")', 'sys.exit()', 'pass'])
def test_exit_status_as_python(tmp_path, code):
    script(tmp_path, 'ex.py', f'import sys\nprint("start")\n{code}\nprint("end")\n')
    real = run([PY, 'ex.py'], cwd=tmp_path)
    ours = run(RUNNER + ['ex.py'], cwd=tmp_path)
    assert ours.returncode == real.returncode
    assert ours.stdout == real.stdout
    if code == 'sys.exit("bye")':
        assert ours.stderr.strip().splitlines()[-1] == 'bye'


def test_uncaught_exception_traceback_as_python(tmp_path):
    script(tmp_path, 'boom.py', """\
        def inner():
            raise ValueError("boom")

        def outer():
            inner()

        print("before")
        outer()
    """)
    real = run([PY, 'boom.py'], cwd=tmp_path)
    ours = run(RUNNER + ['boom.py'], cwd=tmp_path)
    assert real.returncode == ours.returncode == 1
    assert ours.stdout == real.stdout == 'before\n'
    # Same frames (the runner's and runpy's own frames are not shown), same last line.
    assert traceback_frames(ours.stderr) == traceback_frames(real.stderr)
    assert traceback_frames(ours.stderr)[1] == 'ValueError: boom'


def test_excepthook_of_the_script_is_used(tmp_path):
    script(tmp_path, 'hook.py', """\
        import sys
        sys.excepthook = lambda t, v, tb: print('hooked', t.__name__, v)
        raise KeyError('k')
    """)
    real = run([PY, 'hook.py'], cwd=tmp_path)
    ours = run(RUNNER + ['hook.py'], cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (real.returncode, real.stdout) == (1, "hooked KeyError 'k'\n")


def test_missing_script(tmp_path):
    real = run([PY, 'nope.py'], cwd=tmp_path)
    ours = run(RUNNER + ['nope.py'], cwd=tmp_path)
    assert ours.returncode == real.returncode == 2
    assert "can't open file" in ours.stderr and 'nope.py' in ours.stderr


# ----------------------------------------------------------------------------------------------
# -c, -m and stdin forms


def test_dash_c_as_python(tmp_path):
    code = PROBE.replace('    ', '', 1).replace('\n    ', '\n')
    real = run([PY, '-c', code, 'x', 'y'], cwd=tmp_path)
    ours = run(RUNNER + ['-c', code, 'x', 'y'], cwd=tmp_path)
    assert real.returncode == ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout) == json.loads(real.stdout)
    assert json.loads(ours.stdout)['argv'] == ['-c', 'x', 'y']


def test_dash_c_uses_the_alias(tmp_path):
    ours = run(RUNNER + ['-c', 'import torch; print(torch.__name__, torch.ones(2, 3).sum().item())'], cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, 'torchlike 6.0\n'), ours.stderr


def test_dash_m_as_python(tmp_path):
    script(tmp_path, 'pkg/__init__.py', '')
    script(tmp_path, 'pkg/probe.py', PROBE)
    real = run([PY, '-m', 'pkg.probe', 'q'], cwd=tmp_path)
    ours = run(RUNNER + ['-m', 'pkg.probe', 'q'], cwd=tmp_path)
    assert real.returncode == ours.returncode == 0, ours.stderr
    got = json.loads(ours.stdout)
    assert got == json.loads(real.stdout)
    assert got['argv'] == [str(tmp_path / 'pkg' / 'probe.py'), 'q'] and got['name'] == '__main__'


def test_dash_m_missing_module(tmp_path):
    real = run([PY, '-m', 'no_such_module_xyz'], cwd=tmp_path)
    ours = run(RUNNER + ['-m', 'no_such_module_xyz'], cwd=tmp_path)
    assert ours.returncode == real.returncode == 1
    assert ours.stderr.strip().splitlines()[-1].endswith('No module named no_such_module_xyz')


def test_stdin_program(tmp_path):
    code = 'import sys, torch\nprint(sys.argv, repr(sys.path[0]), __name__, torch.__name__)\n'
    ours = run(RUNNER + ['-', 'a'], cwd=tmp_path, stdin=code)
    assert (ours.returncode, ours.stdout) == (0, "['-', 'a'] '' __main__ torchlike\n"), ours.stderr


@pytest.mark.parametrize('flag', ['--version', '-V', '--help', '-h'])
def test_info_flags(tmp_path, flag):
    ours = run(RUNNER + [flag], cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ('usage: python -m torchlike' in ours.stdout) == (flag in ('--help', '-h'))
    if flag in ('--version', '-V'):
        import torchlike
        assert ours.stdout.startswith('torchlike ') and f'PyTorch {torchlike.__version__} API' in ours.stdout


@pytest.mark.parametrize('args', [['-x', 'f.py'], ['-c'], ['-m']])
def test_usage_errors(tmp_path, args):
    ours = run(RUNNER + args, cwd=tmp_path)
    assert ours.returncode == 2 and 'usage: python -m torchlike' in ours.stderr


# ----------------------------------------------------------------------------------------------
# The alias itself


def test_alias_is_torchlike_and_never_real_torch(tmp_path):
    script(tmp_path, 'alias.py', """\
        import os, sys
        import torch
        import torch.autograd
        import torch.autograd as ag
        from torch.autograd import grad
        from torch import return_types
        import torch.return_types as rt
        import torchlike
        here = os.path.dirname(torchlike.__file__)
        assert sys.modules['torch'] is torch is torchlike
        assert torch.__file__.startswith(here + os.sep)
        assert ag is torchlike.autograd is sys.modules['torch.autograd'] is sys.modules['torchlike.autograd']
        assert grad is torchlike.autograd.grad and return_types is rt is torchlike.return_types
        assert torch.__spec__.name == 'torchlike' and ag.__spec__.name == 'torchlike.autograd'
        aliased = sorted(k for k in sys.modules if k == 'torch' or k.startswith('torch.'))
        # Every torch module in sys.modules is a torchlike module: nothing of real torch was loaded.
        assert all(sys.modules[k].__name__.split('.')[0] == 'torchlike' for k in aliased), aliased
        assert all(getattr(m, '__file__', None) is None or m.__file__.startswith(here + os.sep)
                   for k, m in sys.modules.items() if k.split('.')[0] in ('torch', 'torchlike'))
        x = torch.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        print(aliased, type(x).__module__, x.grad.tolist())
    """)
    ours = run(RUNNER + ['alias.py'], cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == "['torch', 'torch.autograd', 'torch.return_types'] torchlike._tensor [3.0, 3.0]\n"


def test_alias_is_lazy(tmp_path):
    # As under `python`, torch is in sys.modules only once the program imports it.
    code = "import sys; print('torch' in sys.modules); import torch; print(sys.modules['torch'].__name__)"
    ours = run(RUNNER + ['-c', code], cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, 'False\ntorchlike\n'), ours.stderr


def test_missing_torch_module_raises_module_not_found(tmp_path):
    script(tmp_path, 'missing.py', """\
        import torch
        try:
            import torch.no_such_module_xyz.sub
        except ModuleNotFoundError as e:
            print(type(e).__name__, e.name, '|', e)
        try:
            from torch.no_such_module_xyz import thing
        except ImportError as e:
            print(type(e).__name__, e.name)
        try:
            from torch import no_such_module_xyz
        except ImportError as e:
            print(type(e).__name__)
        import torch.no_such_module_xyz
    """)
    ours = run(RUNNER + ['missing.py'], cwd=tmp_path)
    assert ours.returncode == 1
    assert ours.stdout.splitlines() == [
        "ModuleNotFoundError torch.no_such_module_xyz | torchlike does not provide torch.no_such_module_xyz "
        "(no module named 'torchlike.no_such_module_xyz')",
        'ModuleNotFoundError torch.no_such_module_xyz',
        'ImportError']
    frames, last = traceback_frames(ours.stderr)
    assert frames[0] == ('missing.py', 14, '<module>')
    assert last.startswith('ModuleNotFoundError: torchlike does not provide torch.no_such_module_xyz')


def test_submodule_added_after_start_resolves(tmp_path):
    # The alias resolves names when they are imported, so a torchlike module that exists at that
    # moment is found even if it did not exist (or was not imported) when the runner started.
    script(tmp_path, 'late.py', """\
        import sys, types, torchlike
        mod = types.ModuleType('torchlike.late_probe_xyz')
        mod.VALUE = 7
        torchlike.late_probe_xyz = mod
        import torch.late_probe_xyz as late
        from torch.late_probe_xyz import VALUE
        print(late is mod, VALUE, sys.modules['torch.late_probe_xyz'] is mod)
    """)
    ours = run(RUNNER + ['late.py'], cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, 'True 7 True\n'), ours.stderr


# ----------------------------------------------------------------------------------------------
# Child processes


MP_SCRIPT = """\
    import multiprocessing as mp, sys
    import torch

    def child(q):
        import torch, sys
        t = torch.arange(4.0) * 2
        q.put((torch.__name__, sys.modules['torch'] is sys.modules.get('torchlike'), t.sum().item(), __name__))

    if __name__ == '__main__':
        ctx = mp.get_context(sys.argv[1])
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(q,))
        p.start()
        print(q.get(timeout=180))
        p.join()
        print(p.exitcode)
"""


@pytest.mark.parametrize('method', ['spawn', 'forkserver', 'fork'])
def test_multiprocessing_child_sees_the_alias(tmp_path, method):
    script(tmp_path, 'mp_child.py', MP_SCRIPT)
    ours = run(RUNNER + ['mp_child.py', method], cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    main_name = '__main__' if method == 'fork' else '__mp_main__'
    assert ours.stdout == f"('torchlike', True, 12.0, '{main_name}')\n0\n"


def test_multiprocessing_child_without_runner_gets_real_torch(tmp_path):
    # The oracle for the test above: the same script under plain python really uses torch.
    script(tmp_path, 'mp_child.py', MP_SCRIPT)
    real = run([PY, 'mp_child.py', 'spawn'], cwd=tmp_path)
    assert real.returncode == 0, real.stderr
    assert real.stdout == "('torch', False, 12.0, '__mp_main__')\n0\n"


# ----------------------------------------------------------------------------------------------
# The README's set-up commands


def test_readme_commands_match_ci():
    with open(os.path.join(ROOT, 'README.md')) as f:
        readme = f.read()
    blocks = re.findall(r'```(?:sh|bash|shell)\n(.*?)```', readme, re.S)
    commands = [line for b in blocks for line in b.splitlines() if line.startswith('pip install')]
    assert commands == ["pip install -e . && python -m torchlike examples/image_classification.py",
                        "pip install -e '.[test]' && python -m pytest -n 2 -q compat_tests"]
    with open(os.path.join(ROOT, '.ci', 'run')) as f:
        ci = [line.strip() for line in f if line.strip() and not line.lstrip().startswith('#')]
    assert commands[1] in ci
    example = shlex.split(commands[0])[-1]
    assert os.path.isfile(os.path.join(ROOT, example))


def _glibc():
    try:
        return sys.platform.startswith('linux') and os.confstr('CS_GNU_LIBC_VERSION').startswith('glibc')
    except (ValueError, OSError):
        return False


@pytest.mark.skipif(not _glibc(), reason="glibc's allocator settings (Note [Allocator settings])")
def test_runner_sets_allocator_so_steps_reuse_freed_buffers(tmp_path):
    """Note [Allocator settings]: `python -m torchlike` restarts itself with glibc's mmap and trim thresholds
    raised, so a training loop's buffers are reused instead of faulted in anew every step; TORCHLIKE_MALLOC=0
    and a user's own setting are left alone."""
    probe = script(tmp_path, 'probe.py', '''
        import os, resource, sys, torch
        torch.manual_seed(0)
        model = torch.nn.LSTM(64, 128, num_layers=2, bidirectional=True)
        opt = torch.optim.Adam(model.parameters())
        x = torch.randn(30, 16, 64)
        def step():
            opt.zero_grad()
            out, _ = model(x)
            loss = out.pow(2).mean()
            loss.backward()
            opt.step()
            return loss.item()
        for _ in range(4):
            step()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(6):
            step()
        faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) // 6
        print(os.environ.get('MALLOC_MMAP_THRESHOLD_'), os.environ.get('MALLOC_TRIM_THRESHOLD_'), faults, sys.argv)
    ''')
    res = {}
    for name, extra in (('default', {}), ('off', {'TORCHLIKE_MALLOC': '0'}),
                        ('user', {'MALLOC_TRIM_THRESHOLD_': '999'})):
        env = {k: v for k, v in os.environ.items()
               if k not in ('MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_', 'GLIBC_TUNABLES', 'TORCHLIKE_MALLOC',
                            'PYTHONSAFEPATH')}
        env.update(extra)
        p = subprocess.run(RUNNER + [str(probe), 'a'], cwd=tmp_path, capture_output=True, text=True, timeout=240,
                           env=env)
        assert p.returncode == 0, p.stderr
        mmap, trim, faults, argv = p.stdout.split(' ', 3)
        res[name] = (mmap, trim, int(faults))
        assert argv.strip() == str([str(probe), 'a'])       # the restart keeps the command line
    assert res['default'][:2] == (str(1 << 32), str(1 << 32))
    assert res['off'][:2] == ('None', 'None') and res['user'][:2] == ('None', '999')
    # pages faulted in per step: this loop's buffers are faulted in anew when freed memory goes back to the OS
    # (a small trim threshold; glibc's default adapts, and still did ~28,000 per step on the bench's LSTM)
    assert res['default'][2] * 10 < res['user'][2], res
