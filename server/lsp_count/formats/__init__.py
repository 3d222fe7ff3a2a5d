"""Training and config formats written as YAML: readers, base-model resolution, LoRA plans."""
