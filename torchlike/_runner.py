"""``python -m torchlike``: run an unchanged PyTorch program on torchlike.

Note [The torch alias]
``install_alias()`` puts a finder at the front of ``sys.meta_path`` that answers every import of
``torch`` and ``torch.X.Y`` with the module ``torchlike.X.Y`` itself: the same module object, so
``torch.nn is torchlike.nn`` and nothing is loaded twice (a plain ``sys.modules['torch'] = torchlike``
is not enough: the path finder would then load ``torch.nn`` a second time from torchlike's
``__path__``). Names resolve when they are imported, so submodules added later need no change here.
A name torchlike does not provide raises ModuleNotFoundError naming the torch module; real torch is
never reached. ``sys.modules['torch']`` becomes torchlike when the program first imports torch.

Child processes: a ``fork`` child inherits the finder. ``spawn`` and ``forkserver`` start a fresh
interpreter whose command line is ``python -c 'from multiprocessing.<spawn|forkserver> import ...'``,
and that child re-runs the main script (``import torch`` included) before it unpickles its target. We
prefix that ``-c`` program with ``install_alias()`` (by wrapping ``multiprocessing.spawn.get_command_line``
and, for the fork server, ``multiprocessing.util.spawnv_passfds``), so the alias is in place before
anything imports torch, whatever ``sys.path`` the child gets from its parent, with no ``.pth`` file,
``sitecustomize`` or environment variable. Other subprocesses (``subprocess.run([sys.executable, ...])``)
are plain interpreters: start them with ``python -m torchlike`` to alias them too.

The command line mirrors the interpreter's (``python script.py``, ``-c``, ``-m``, ``-``): ``sys.argv``,
``__name__ == '__main__'``, ``sys.path[0]``, tracebacks (without the runner's own frames), exit status 1
for an uncaught exception, and ``sys.exit(n)`` behave as they do under ``python``.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types

_ALIAS = 'torch'
_TARGET = 'torchlike'
_CHILD_PRELUDE = 'import torchlike._runner; torchlike._runner.install_alias(); '
_MP_PROGS = ('from multiprocessing.spawn import spawn_main', 'from multiprocessing.forkserver import main')

USAGE = """\
usage: python -m torchlike [-h | -V] [--mode M] [-c cmd | -m mod | file | -] [arg] ...
Runs an unchanged PyTorch program on torchlike: `import torch` and every `torch.X.Y`
resolve to torchlike's module of the same path. Interpreter options (-u, -O, -W, -X ...)
go before `-m torchlike`, e.g. `python -u -m torchlike train.py`.

Options:
-c cmd       : program passed in as string (terminates option list)
-m mod       : run library module as a script (terminates option list);
               a torch.X module runs torchlike.X
-h, --help   : print this help message and exit
-V, --version: print the torchlike version and exit
--mode M     : execution mode, eager (op by op) or lazy (ops recorded and run as compiled
               programs at sync points); default: $TORCHLIKE_MODE or lazy

Arguments:
file         : program read from script file (or a directory / zipfile with __main__.py)
-            : program read from stdin (default; interactive mode if a tty)
arg ...      : arguments passed to program in sys.argv[1:]
"""


class TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Meta-path finder and loader mapping ``torch[.X.Y]`` to ``torchlike[.X.Y]`` (Note [The torch alias])."""

    def __init__(self):
        self._specs = {}          # alias name -> the torchlike module's own __spec__, while it loads

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + '.'):
            return None
        module = _resolve(_target(fullname))
        if module is None:
            raise ModuleNotFoundError(
                f"torchlike does not provide {fullname} (no module named '{_target(fullname)}')", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self, origin=getattr(module, '__file__', None),
                                              is_package=hasattr(module, '__path__'))

    def create_module(self, spec):
        module = _resolve(_target(spec.name))
        self._specs[spec.name] = module.__spec__   # the import system sets __spec__ to ours next
        return module

    def exec_module(self, module):
        module.__spec__ = self._specs.pop(module.__spec__.name)


def _target(alias_name):
    """'torch.X.Y' -> 'torchlike.X.Y'."""
    return _TARGET + alias_name[len(_ALIAS):]


def _resolve(name):
    """The torchlike module ``name`` (importing it), or None if torchlike has no such module."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    parent_name, _, child = name.rpartition('.')
    if parent_name:
        # The import system imported the torch parent (= the torchlike parent) before asking for the child.
        parent = importlib.import_module(parent_name)
        attr = getattr(parent, child, None)
        if isinstance(attr, types.ModuleType) and attr.__name__.partition('.')[0] == _TARGET:
            return attr           # a submodule torchlike made without a file of its own
        if not hasattr(parent, '__path__') or importlib.util.find_spec(name) is None:
            return None
    return importlib.import_module(name)


def install_alias():
    """Make ``import torch`` (and ``torch.X.Y``) give torchlike in this process and its multiprocessing
    children. Idempotent."""
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAliasFinder())
    _patch_multiprocessing()


def _with_prelude(args):
    """``args`` with the alias prelude put before a multiprocessing child's ``-c`` program."""
    args = list(args)
    for i in range(len(args) - 1):
        if args[i] == '-c' and isinstance(args[i + 1], str) and args[i + 1].startswith(_MP_PROGS):
            args[i + 1] = _CHILD_PRELUDE + args[i + 1]
            break
    return args


def _patch_multiprocessing():
    from multiprocessing import spawn, util
    if getattr(spawn.get_command_line, '_torchlike_alias', False):
        return
    get_command_line, spawnv_passfds = spawn.get_command_line, util.spawnv_passfds

    def get_command_line_alias(**kwds):                 # spawn children (every platform)
        return _with_prelude(get_command_line(**kwds))

    def spawnv_passfds_alias(path, args, passfds):      # the fork server (POSIX); a spawn child's
        return spawnv_passfds(path, _with_prelude(args), passfds)   # program no longer matches _MP_PROGS

    get_command_line_alias._torchlike_alias = True
    spawn.get_command_line, util.spawnv_passfds = get_command_line_alias, spawnv_passfds_alias


# ---------------------------------------------------------------------------------------------
# The command line


def _version():
    import jax
    from importlib import metadata
    import torchlike
    try:
        dist = metadata.version('torchlike') + ' '
    except metadata.PackageNotFoundError:
        dist = ''
    return f'torchlike {dist}(PyTorch {torchlike.__version__} API, JAX {jax.__version__})'


def _usage_error(message):
    print(f'{message}\n{USAGE.splitlines()[0]}\nTry `python -m torchlike -h\' for more information.',
          file=sys.stderr)
    return 2


def _set_path0(entry):
    """Set ``sys.path[0]`` as ``python`` would (``python -m torchlike`` put the working directory there);
    None removes it. Nothing to do under ``-P`` / PYTHONSAFEPATH, where neither puts anything there."""
    if sys.flags.safe_path:
        return
    if entry is None:
        del sys.path[0]
    else:
        sys.path[0] = entry


def _fresh_main():
    """A new ``__main__`` module, as the interpreter makes for ``-c`` and stdin programs."""
    import builtins
    main = types.ModuleType('__main__')
    main.__builtins__ = builtins
    main.__loader__ = importlib.machinery.BuiltinImporter
    main.__annotations__ = {}
    sys.modules['__main__'] = main
    return main.__dict__


def _run_source(source, filename):
    exec(compile(source, filename, 'exec'), _fresh_main())


def _interact():
    import code
    banner = (f'Python {sys.version} on {sys.platform}\n'
              f'{_version()}: `import torch` gives torchlike.')
    code.InteractiveConsole(_fresh_main()).interact(banner=banner, exitmsg='')


def _user_traceback(tb):
    """``tb`` without the leading frames of the runner and runpy, as ``python script.py`` prints it."""
    while tb is not None and tb.tb_next is not None and \
            tb.tb_frame.f_globals.get('__name__') in ('runpy', __name__):
        tb = tb.tb_next
    return tb


def _report(exc):
    """Print an uncaught exception as the interpreter does (through sys.excepthook); exit status 1."""
    tb = _user_traceback(exc.__traceback__)
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)
    return 1


def main(argv=None):
    """Run ``python -m torchlike [args]``; returns the exit status (a SystemExit from the program propagates)."""
    args = list(sys.argv[1:] if argv is None else argv)
    first = args[0] if args else '-'
    if first in ('-h', '--help', '-?'):
        print(USAGE, end='')
        return 0
    if first in ('-V', '--version'):
        print(_version())
        return 0
    if first == '--mode' or first.startswith('--mode='):        # Note [Lazy execution]
        mode = first[7:] if first.startswith('--mode=') else (args[1] if len(args) > 1 else None)
        if mode not in ('eager', 'lazy'):
            return _usage_error(f"--mode expects 'eager' or 'lazy', got {mode!r}")
        os.environ['TORCHLIKE_MODE'] = mode       # child processes (DataLoader workers) inherit it
        from ._engine import lazy
        lazy.set_execution_mode(mode)
        return main(args[1:] if first.startswith('--mode=') else args[2:])
    if first.startswith('-c') or first.startswith('-m'):
        flag, value = first[:2], first[2:]
        rest = args[1:]
        if not value:
            if not rest:
                return _usage_error(f'Argument expected for the {flag} option')
            value, rest = rest[0], rest[1:]
    elif first == '--':
        if len(args) < 2:
            return _usage_error('Argument expected after --')
        flag, value, rest = 'file', args[1], args[2:]
    elif first != '-' and first.startswith('-'):
        return _usage_error(f'Unknown option: {first}')
    else:
        flag, value, rest = ('-' if first == '-' else 'file'), first, args[1:]

    if flag == 'file' and not os.path.exists(value):
        print(f"{sys.executable} -m torchlike: can't open file {os.path.abspath(value)!r}: "
              f"[Errno 2] No such file or directory", file=sys.stderr)
        return 2

    install_alias()
    try:
        if flag == '-c':
            sys.argv = ['-c', *rest]
            _set_path0('')
            _run_source(value, '<string>')
        elif flag == '-m':
            sys.argv = ['-m', *rest]            # runpy puts the module's path in sys.argv[0]
            if value == _ALIAS or value.startswith(_ALIAS + '.'):
                value = _target(value)
            runpy.run_module(value, run_name='__main__', alter_sys=True)
        elif flag == '-':
            sys.argv = [first if args else '', *rest]
            _set_path0('')
            if sys.stdin is not None and sys.stdin.isatty():
                _interact()
            else:
                _run_source(sys.stdin.read(), '<stdin>')
        else:
            sys.argv = [value, *rest]
            if os.path.isdir(value) or not os.path.isfile(value) or _is_zip(value):
                _set_path0(None)                # runpy puts the directory / zipfile there itself
            else:
                _set_path0(os.path.dirname(os.path.abspath(value)))
            runpy.run_path(value, run_name='__main__')
    except SystemExit:
        raise
    except ImportError as exc:
        if flag == '-m' and _user_traceback(exc.__traceback__).tb_frame.f_globals.get('__name__') == 'runpy':
            print(f'{sys.executable}: {exc}', file=sys.stderr)   # runpy found no such module, as `python -m`
            return 1
        return _report(exc)
    except KeyboardInterrupt:
        raise                                   # the interpreter reports it and exits by SIGINT
    except BaseException as exc:  # noqa: B902  (what the interpreter does with an uncaught exception)
        return _report(exc)
    return 0


def _is_zip(path):
    import zipfile
    return zipfile.is_zipfile(path)
