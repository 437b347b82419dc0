"""torch._dynamo.exc: the exception types compile errors come as (all RuntimeErrors, as in torch)."""


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    """The function cannot be captured as one graph (raised under fullgraph=True)."""


class InvalidBackend(TorchDynamoException):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")
