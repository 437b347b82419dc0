"""torch.nn.utils (filled in by the nn.utils work)."""
