"""torch.nn.modules.module (filled in by the Module-system work)."""
