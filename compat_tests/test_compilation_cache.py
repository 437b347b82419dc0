"""Note [Compilation cache]: a second run of a script loads its XLA programs from the persistent cache."""
import os
import subprocess
import sys

import numpy as np

PROGRAM = ("import torchlike as torch, numpy as np\n"
           "torch.manual_seed(0)\n"
           "m = torch.nn.Linear(5, 3)\n"
           "torch.nn.init.constant_(m.weight, 0.5)\n"
           "y = torch.tanh(m(torch.arange(10.).reshape(2, 5))).sum()\n"
           "y.backward()\n"
           "print(repr(np.asarray(m.weight.grad.numpy()).tolist()))\n")


def _run_code(code, env_dir, min_secs='0'):
    env = dict(os.environ)
    env.pop('JAX_COMPILATION_CACHE_DIR', None)
    env['TORCHLIKE_CACHE_DIR'] = env_dir
    env['TORCHLIKE_CACHE_MIN_SECS'] = min_secs      # every program, however quick to compile
    return subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout


def _run(env_dir):
    return _run_code(PROGRAM, env_dir)


def _entries(d):
    # programs (JAX's '-cache' files), not its lock file
    return sorted(f for f in os.listdir(d) if not f.startswith('.')) if os.path.isdir(d) else []


def test_second_run_reuses_cached_programs(tmp_path):
    d = str(tmp_path / 'xla')
    first = _run(d)
    written = _entries(d)
    assert written, 'the first run wrote no cache entries'
    second = _run(d)
    assert _entries(d) == written              # every program of the second run came from the cache
    assert first == second
    # the values are right, not only repeated: with the bias zeroed they do not depend on the generator
    prog = PROGRAM.replace('torchlike', 'torch').replace('torch.nn.init.constant_(m.weight, 0.5)',
                                                           'torch.nn.init.constant_(m.weight, 0.5); m.bias.data.zero_()')
    ours = _run_code(prog.replace('import torch as torch', 'import torchlike as torch'), d)
    theirs = subprocess.run([sys.executable, '-c', prog], capture_output=True, text=True, check=True).stdout
    np.testing.assert_allclose(eval(ours), eval(theirs), atol=1e-6)


def _env_home(home, **settings):
    env = dict(os.environ, XDG_CACHE_HOME=str(home), HOME=str(home), **settings)
    env.pop('JAX_COMPILATION_CACHE_DIR', None)
    for k in ('TORCHLIKE_CACHE_DIR', 'TORCHLIKE_CACHE_MIN_SECS'):
        if k not in settings:
            env.pop(k, None)
    return env


def test_on_by_default_in_the_user_cache_folder(tmp_path):
    subprocess.run([sys.executable, '-c', PROGRAM], env=_env_home(tmp_path, TORCHLIKE_CACHE_MIN_SECS='0'),
                   capture_output=True, check=True)
    assert _entries(str(tmp_path / 'torchlike' / 'xla'))


def test_quick_programs_are_not_written(tmp_path):
    # the threshold (default 0.2 s) keeps the many small eager programs out of the folder
    subprocess.run([sys.executable, '-c', PROGRAM], env=_env_home(tmp_path, TORCHLIKE_CACHE_MIN_SECS='1000'),
                   capture_output=True, check=True)
    assert not _entries(str(tmp_path / 'torchlike' / 'xla'))


def test_off_with_an_empty_setting(tmp_path):
    subprocess.run([sys.executable, '-c', PROGRAM], env=_env_home(tmp_path, TORCHLIKE_CACHE_DIR='',
                                                                  TORCHLIKE_CACHE_MIN_SECS='0'),
                   capture_output=True, check=True)
    assert not any(tmp_path.rglob('*'))
