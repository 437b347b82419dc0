"""Whole-script differential tests of examples/: each example runs unchanged as a subprocess under real torch
(`python examples/x.py`) and under torchlike (`python -m torchlike examples/x.py`) from the same initial weights
(made here with real torch and passed with --init); their per-step losses and accuracies must agree.

Independent runs start together (Popen) so that the file's wall time is the slowest chain, not the sum.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, 'examples')
IMAGE = os.path.join(EXAMPLES, 'image_classification.py')
CHAR = os.path.join(EXAMPLES, 'char_lstm.py')
TIMEOUT = 240
MODES = ('eager', 'lazy')


def _load(path):
    """The example as a module (under the test process's real torch); its __main__ guard keeps it from running."""
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Run:
    """An example run as a subprocess under real torch or torchlike, once ``start()`` is called."""

    def __init__(self, lib, script, args, log, after=None, then=None):
        runner = [sys.executable] if lib == 'torch' else [sys.executable, '-m', 'torchlike', '--mode', lib]
        self.cmd = runner + [script, '--loss-log', str(log)] + [str(a) for a in args]
        self.log, self.after, self.then, self.proc = log, after, then, None

    def start(self):
        # output to files, not pipes: _run_all polls, and nobody would drain a full pipe meanwhile
        self.out, self.err = open(f'{self.log}.out', 'w+'), open(f'{self.log}.err', 'w+')
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=self.out, stderr=self.err, text=True)

    def result(self):
        self.proc.wait(timeout=TIMEOUT)
        with self.out, self.err:
            self.out.seek(0)
            self.err.seek(0)
            out, err = self.out.read(), self.err.read()
        assert self.proc.returncode == 0, f'{self.cmd} failed:\n{out}\n{err}'
        if self.then is not None:
            self.then()
        with open(self.log) as f:
            return json.load(f), out


def _run_all(runs, parallel=3):
    """Run ``runs`` (name -> Run), ``parallel`` at a time (more only thrash two cores), each after the one its
    ``after`` names (and its ``then``); -> name -> (log, stdout)."""
    pending, running, done = dict(runs), {}, {}
    while pending or running:
        for name, run in list(pending.items()):
            if len(running) < parallel and (run.after is None or run.after in done):
                run.start()
                running[name] = pending.pop(name)
        finished = [name for name, run in running.items() if run.proc.poll() is not None]
        for name in finished:
            done[name] = running.pop(name).result()
        if not finished:
            time.sleep(0.05)
    return done


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    """Every example run of this file.

    image: 256 training images in order, batch 32, 2 epochs, same initial weights: under torch; under torchlike
    one epoch, then --resume to 2 epochs under torchlike, and under real torch from torchlike's checkpoint.
    char: one batch of 64 windows, dropout 0, 4 epochs, under both libraries; and one torchlike run with dropout
    and shuffling. Each torchlike run in eager and in lazy mode."""
    tmp = tmp_path_factory.mktemp('examples')
    torch.manual_seed(0)
    torch.save(_load(IMAGE).Net().state_dict(), tmp / 'init.pt')
    char = _load(CHAR)
    with open(char.TEXT, encoding='utf-8') as f:
        vocab = char.Vocab(f.read())
    torch.manual_seed(0)
    torch.save(char.build_model(len(vocab), char.parse_args(['--dropout', '0'])).state_dict(), tmp / 'char.pt')

    image = ['--init', tmp / 'init.pt', '--no-shuffle', '--limit', 256, '--batch-size', 32]
    chars = ['--init', tmp / 'char.pt', '--dropout', 0, '--limit', 64, '--batch-size', 64, '--epochs', 4,
             '--sample-len', 3]
    runs = {'torch': Run('torch', IMAGE, image + ['--epochs', 2, '--checkpoint', tmp / 'th.ckpt'], tmp / 'th.json'),
            'char_torch': Run('torch', CHAR, chars, tmp / 'char_th.json')}
    # every whole-script run of torchlike, in both execution modes (Note [Lazy execution])
    for mode in MODES:
        ckpt = tmp / f'tl_{mode}.ckpt'
        runs.update({
            # both resumed runs start from torchlike's epoch-1 checkpoint; each writes its own epoch-2 checkpoint
            f'first_{mode}': Run(mode, IMAGE, image + ['--epochs', 1, '--checkpoint', ckpt], tmp / f'first_{mode}.json',
                                 then=lambda ckpt=ckpt: shutil.copy(ckpt, f'{ckpt}.th')),
            f'resumed_{mode}': Run(mode, IMAGE, image + ['--epochs', 2, '--resume', '--checkpoint', ckpt],
                                   tmp / f'resumed_{mode}.json', after=f'first_{mode}'),
            f'resumed_th_{mode}': Run('torch', IMAGE, image + ['--epochs', 2, '--resume', '--checkpoint', f'{ckpt}.th'],
                                      tmp / f'resumed_th_{mode}.json', after=f'first_{mode}'),
            f'char_{mode}': Run(mode, CHAR, chars, tmp / f'char_{mode}.json'),
            f'char_dropout_{mode}': Run(mode, CHAR, ['--limit', 64, '--batch-size', 64, '--epochs', 4, '--shuffle',
                                                     '--lr', 0.02, '--sample-len', 0], tmp / f'char_dropout_{mode}.json'),
        })
    return _run_all(runs)


@pytest.mark.parametrize('mode', MODES)
def test_image_classification_matches_torch(runs, mode):
    """The whole script under both libraries from the same weights: per-step losses, accuracies and printed lines
    agree. The torchlike side stops after epoch 1 and resumes from its checkpoint (model, momentum buffers,
    epoch)."""
    (th, th_out), (first, first_out), (resumed, resumed_out) = runs['torch'], runs[f'first_{mode}'], runs[f'resumed_{mode}']
    assert len(th['losses']) == 16 and len(first['losses']) == len(resumed['losses']) == 8   # 256 / 32 per epoch
    np.testing.assert_allclose(first['losses'] + resumed['losses'], th['losses'], rtol=1e-4, atol=1e-4)
    # one test image is 100/360 %; equal weights up to float rounding give the same predictions
    np.testing.assert_allclose(first['accuracy'] + resumed['accuracy'], th['accuracy'], atol=0.3)
    assert th_out.splitlines()[0] == first_out.splitlines()[0]   # '[epoch 1] loss: ... test accuracy: ... %'
    assert resumed_out.splitlines()[0].startswith('resumed from') and 'after epoch 1' in resumed_out
    assert resumed_out.splitlines()[1] == th_out.splitlines()[1]
    assert th_out.splitlines()[-1] == resumed_out.splitlines()[-1] == 'Finished Training'
    assert len(th_out.splitlines()) == 3                         # one line per epoch: no progress bar in a pipe


@pytest.mark.parametrize('mode', MODES)
def test_image_classification_checkpoint_resumes_in_torch(runs, mode):
    """torchlike's checkpoint (model + SGD momentum state + epoch) resumes in real torch on the same trajectory."""
    th, resumed_th = runs['torch'][0], runs[f'resumed_th_{mode}'][0]
    np.testing.assert_allclose(resumed_th['losses'], th['losses'][8:], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(resumed_th['accuracy'], th['accuracy'][1:], atol=0.3)


@pytest.mark.parametrize('mode', MODES)
def test_char_lstm_matches_torch(runs, mode):
    """Dropout 0 makes the run deterministic: same initial weights give the same per-step losses and the same
    greedy sample. The packed batch mixes window lengths 8..24 (enforce_sorted=False)."""
    (th, th_out), (tl, tl_out) = runs['char_torch'], runs[f'char_{mode}']
    assert len(th['losses']) == len(tl['losses']) == 4
    np.testing.assert_allclose(tl['losses'], th['losses'], rtol=1e-4, atol=1e-4)
    assert tl['losses'][-1] < tl['losses'][0]
    assert tl_out.splitlines()[-1] == th_out.splitlines()[-1]    # the greedy sample
    assert th_out.splitlines()[-1].startswith("'Shall I compare thee")


@pytest.mark.parametrize('mode', MODES)
def test_char_lstm_trains_with_dropout_and_shuffle(runs, mode):
    """The default dropout (0.2) and a shuffled order: random masks differ between the libraries, so this checks
    a property (the loss goes down) rather than values."""
    log, out = runs[f'char_dropout_{mode}']
    assert len(log['losses']) == 4
    assert log['losses'][-1] < log['losses'][0], log['losses']
    assert out.count('[epoch') == 4
