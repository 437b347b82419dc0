"""PixelShuffle / PixelUnshuffle layers over F.pixel_shuffle / F.pixel_unshuffle (as torch)."""
from .. import functional as F
from .module import Module

__all__ = ['PixelShuffle', 'PixelUnshuffle']


class PixelShuffle(Module):
    """Rearranges (*, C*r^2, H, W) into (*, C, H*r, W*r) (as torch.nn.PixelShuffle)."""
    __constants__ = ['upscale_factor']

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f'upscale_factor={self.upscale_factor}'


class PixelUnshuffle(Module):
    """Reverses PixelShuffle: (*, C, H*r, W*r) into (*, C*r^2, H, W) (as torch.nn.PixelUnshuffle)."""
    __constants__ = ['downscale_factor']

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f'downscale_factor={self.downscale_factor}'
