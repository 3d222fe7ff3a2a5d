"""from_pretrained in a Python model file counts the class the loader builds, as transformers
builds it from the same config on the meta device."""

from __future__ import annotations

import json
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.catalog import CATALOG_DIR

from .meta_count import transformers_count

pytestmark = pytest.mark.parity
pytest.importorskip("transformers")


@pytest.mark.parametrize(("loader", "hub_id", "cls"), [
    ("AutoModel", "google-bert/bert-base-uncased", "BertModel"),  # the pooler, no MLM head
    ("AutoModelForSequenceClassification", "google-bert/bert-base-uncased", "BertForSequenceClassification"),
    ("BertForTokenClassification", "google-bert/bert-base-uncased", "BertForTokenClassification"),
    ("AutoModel", "google-t5/t5-small", "T5Model"),
    ("AutoModel", "google/vit-base-patch16-224", "ViTModel"),
    ("AutoModelForCausalLM", "openai-community/gpt2", "GPT2LMHeadModel"),
])
def test_the_class_a_loader_builds_is_counted_as_transformers_builds_it(loader, hub_id, cls) -> None:
    report = analyze_text(textwrap.dedent(f"""
        import transformers
        from transformers import {loader}
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = {loader}.from_pretrained("{hub_id}")
    """), "model.py", AnalyzeOptions())
    config = json.loads((CATALOG_DIR / f"{hub_id}.json").read_text())
    expected, _ = transformers_count(config, cls)
    (model,) = report.models
    assert model.tree.total == expected
    ((_, _, total, message),) = report.hub_counts
    assert total == expected and f"builds {cls}" in message and "exact" in message
