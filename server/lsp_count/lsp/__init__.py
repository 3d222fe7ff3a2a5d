"""The lsp-count language server: a thin pygls adapter over ``lsp_count.core``."""
