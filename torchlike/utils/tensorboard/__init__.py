"""torch.utils.tensorboard: SummaryWriter on tensorboardX.

tensorboardX writes the event files and supplies the protobuf classes and the summary helpers that match
PyTorch's; what differs in PyTorch's writer (tags kept as given, image clipping, hparams domains, the
embedding projector files, the graph of a model) is in this package. Importing ``torchlike`` does not
import this package (nor tensorboardX), as ``import torch`` does not import torch.utils.tensorboard.
"""
from .writer import FileWriter, SummaryWriter  # noqa: F401

__all__ = ['FileWriter', 'SummaryWriter']
