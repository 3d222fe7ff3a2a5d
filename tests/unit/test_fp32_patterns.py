"""Each family's float32 lists (its classes' _keep_in_fp32_modules and _keep_in_fp32_modules_strict, which
transformers searches in every parameter's full name) mark some tensor of the family's default model: a pattern
written as transformers writes it (``self_attn.compressor.kv_proj``, ``mlp.gate.weight``) that matched no tree
tensor's name used to keep nothing in float32, silently."""

from __future__ import annotations

import json
import re

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry

# Patterns that name no parameter of the default model: a buffer (transformers 5's routers hold
# e_score_correction_bias as one), or a composite's list its vision class shares (GLM-4.5V's router gate).
NOT_PARAMETERS = {"e_score_correction_bias"}
SHARED_WITH_A_SUB_MODEL = {("glm4v_moe_vision", "gate.weight")}


@pytest.mark.parametrize("model_type", sorted(t for t, f in registry().items() if f.fp32_modules or f.fp32_modules_strict))
def test_each_float32_pattern_keeps_a_tensor_of_the_default_model(model_type: str) -> None:
    family = registry()[model_type]
    report = analyze_text(json.dumps({"model_type": model_type}), "/nonexistent/config.json")
    if not report.models:
        pytest.skip(f"{model_type}'s class defaults need more keys to build")
    # Each tensor with its name, and its name under the sub-model that holds it (a composite's qformer.).
    tensors = [(t, f"{path.split('.')[1]}.{t.name}" if "." in path else t.name)
               for path, t, _m, _f in report.models[0].tree.root.iter_tensors()]
    for pattern, dtypes in [(p, ("float16",)) for p in family.fp32_modules] + \
                           [(p, ("float16", "bfloat16")) for p in family.fp32_modules_strict]:
        if pattern in NOT_PARAMETERS or (model_type, pattern) in SHARED_WITH_A_SUB_MODEL:
            continue
        # The tensors the pattern names (a tree tensor's name starts inside its layer's self_attn or mlp, and inside
        # its sub-model) are kept.
        inside = re.sub(r"^(self_attn|mlp)\.", "", pattern)
        named = [t for t, in_model in tensors if re.search(inside, t.name) or re.search(f"^{inside}\\.", in_model)]
        assert named, pattern
        assert all(set(dtypes) <= set(t.keep_fp32) for t in named), (pattern, sorted({t.name for t in named})[:5])
