"""torch.nn.init (filled in by the nn.init work)."""
