"""no_grad / enable_grad / set_grad_enabled / inference_mode: contexts and decorators."""
import functools
import inspect

from .._engine.state import state


class _DecoratorContextManager:
    def __call__(self, fn):
        if inspect.isclass(fn):
            raise RuntimeError("Cannot decorate a class with a grad mode context")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*a, **k):
                g = fn(*a, **k)
                with self.clone():
                    resp = g.send(None)
                while True:
                    try:
                        req = yield resp
                    except GeneratorExit:
                        g.close()
                        raise
                    with self.clone():
                        resp = g.send(req)
            return gen

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.clone():
                return fn(*a, **k)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *a):
        state.grad_enabled = self.prev


class enable_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = True

    def __exit__(self, *a):
        state.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    def __init__(self, mode):
        self.prev = state.grad_enabled
        self.mode = bool(mode)
        state.grad_enabled = self.mode

    def __call__(self, fn):
        state.grad_enabled = self.prev
        return super().__call__(fn)

    def __enter__(self):
        pass

    def __exit__(self, *a):
        state.grad_enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)      # used as a bare decorator

    def __enter__(self):
        self.prev = (state.grad_enabled, state.inference)
        if self.mode:
            state.grad_enabled = False
            state.inference = True

    def __exit__(self, *a):
        state.grad_enabled, state.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)


def is_grad_enabled():
    return state.grad_enabled


def is_inference_mode_enabled():
    return state.inference
