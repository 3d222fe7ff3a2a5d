"""Static parameter counting for Python ``nn.Module`` files (no torch, no execution)."""
