"""lsp-count: exact parameter counts and GPU memory estimates for ML models."""

__version__ = "0.1.0"
