"""torch.nn.parameter (filled in by the Module-system work)."""
