"""Ground truth: what transformers counts for a config, built on the meta device."""

from __future__ import annotations

import logging
import warnings


def transformers_count(config: dict, architecture: str | None = None) -> tuple[int, int]:
    """(total, trainable) parameters of the transformers class for ``config`` (meta device).

    ``sum(p.numel() for p in model.parameters())`` counts a tied tensor once.
    """
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    arch = architecture or (config.get("architectures") or [None])[0]
    cls = getattr(transformers, arch)
    with torch.device("meta"):
        model = cls(cfg)
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)
