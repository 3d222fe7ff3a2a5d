"""The KV cache of Llama 3.2 Vision (mllama), against transformers 5: its self-attention layers cache the text's
keys and values, its cross_attention_layers the image's (after a forward over one image: max_num_tiles tiles of
(image_size // patch_size)² + 1 positions each), whatever the prompt length; the text model alone
(MllamaForCausalLM) runs no image, and skips its cross-attention layers, which cache nothing. The memory
estimate's kv_cache line is the bytes of every tensor of that cache, after a forward pass of a model in bfloat16
over random small configs that run. (GLM-4.1V's, a plain decoder cache of its text model, is checked too.)"""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _held(cache) -> int:
    """Bytes of the tensors a cache holds (its 0-d counters left out)."""
    held = [t for layer in cache.layers for t in vars(layer).values() if torch.is_tensor(t) and t.dim() > 0]
    return sum(t.numel() * t.element_size() for t in held)


def _model(config: dict):
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(json.loads(json.dumps(config)))
    return getattr(transformers, config["architectures"][0])(cfg).to(torch.bfloat16).eval()


def _estimate(config: dict, batch: int, tokens: int) -> int:
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    assert report.models and not report.has_errors, report.problems
    line = estimate_memory(report.models[0], Settings(mode="inference", context=tokens, batch=batch)).line("kv_cache")
    assert line is not None, report.models[0]
    return line.bytes


@st.composite
def runnable_mllama(draw) -> dict:
    """A small Llama 3.2 Vision that runs: even head widths (rotary), the projector's input as wide as the tower's
    output (its last layer and the intermediate ones side by side), intermediate layers the tower has."""
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2) if heads % k == 0]))
    layers = draw(st.integers(1, 4))
    text = {"vocab_size": 40, "hidden_size": heads * draw(st.sampled_from([4, 8])), "num_attention_heads": heads,
            "num_key_value_heads": kv, "num_hidden_layers": layers, "intermediate_size": 16, "pad_token_id": 0,
            "cross_attention_layers": draw(st.lists(st.integers(0, layers), max_size=3, unique=True))}
    vh, local = draw(st.sampled_from([8, 12])), draw(st.integers(1, 3))
    indices = draw(st.lists(st.integers(0, local - 1), min_size=1, max_size=2, unique=True))
    ratios = draw(st.sampled_from([None, [[1, 1], [1, 2], [2, 1]]]))
    vision = {"hidden_size": vh, "num_hidden_layers": local, "num_global_layers": draw(st.integers(0, 2)),
              "attention_heads": 2, "intermediate_size": 16, "vision_output_dim": vh * (len(indices) + 1),
              "intermediate_layers_indices": indices, "image_size": draw(st.sampled_from([14, 28, 42])),
              "patch_size": 14}
    if ratios is not None:
        vision.update(supported_aspect_ratios=ratios, max_num_tiles=draw(st.integers(1, 2)))
    return {"model_type": "mllama", "architectures": ["MllamaForConditionalGeneration"], "text_config": text,
            "vision_config": vision, "image_token_index": 1}


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(runnable_mllama(), st.sampled_from([(1, 3), (2, 5)]))
def test_the_cross_attention_layers_cache_the_image(config: dict, shape: tuple[int, int]) -> None:
    batch, tokens = shape
    model = _model(config)
    vision = model.config.vision_config
    tiles, side = vision.max_num_tiles, vision.image_size
    pixels = torch.randn(batch, 1, tiles, vision.num_channels, side, side, dtype=torch.bfloat16)
    ids = torch.randint(2, 40, (batch, tokens))
    with torch.no_grad():
        out = model(input_ids=ids, pixel_values=pixels, aspect_ratio_ids=torch.ones(batch, 1, dtype=torch.long),
                    aspect_ratio_mask=torch.ones(batch, 1, tiles, dtype=torch.long),
                    cross_attention_mask=torch.ones(batch, tokens, 1, tiles, dtype=torch.long), use_cache=True)
    assert _estimate(config, batch, tokens) == _held(out.past_key_values), json.dumps(config)


@pytest.mark.parametrize("cross", [[], [0], [1, 2]])
def test_the_text_model_alone_caches_its_self_attention_layers(cross: list[int]) -> None:
    config = {"model_type": "mllama_text_model", "architectures": ["MllamaForCausalLM"], "vocab_size": 40,
              "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
              "intermediate_size": 16, "pad_token_id": 0, "cross_attention_layers": cross}
    model = _model(config)
    for batch, tokens in ((1, 3), (2, 7)):
        with torch.no_grad():
            out = model(torch.randint(2, 40, (batch, tokens)), use_cache=True)
        assert _estimate(config, batch, tokens) == _held(out.past_key_values), (cross, batch, tokens)


def test_glm4v_caches_its_text_model_s_layers() -> None:
    config = {"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"],
              "text_config": {"vocab_size": 40, "hidden_size": 24, "num_attention_heads": 3, "num_key_value_heads": 1,
                              "num_hidden_layers": 2, "intermediate_size": 16, "pad_token_id": 0,
                              # (the multimodal rotary sections, 4 = head width 8 / 2)
                              "rope_parameters": {"rope_type": "default", "mrope_section": [1, 1, 2]}},
              "vision_config": {"depth": 1, "hidden_size": 8, "num_heads": 2, "intermediate_size": 8,
                                "out_hidden_size": 24, "image_size": 28}}
    model = _model(config)
    for batch, tokens in ((1, 3), (2, 6)):
        with torch.no_grad():
            out = model(input_ids=torch.randint(2, 40, (batch, tokens)), use_cache=True)
        assert _estimate(config, batch, tokens) == _held(out.past_key_values), (batch, tokens)


# --- LoRA on the text model alone (MllamaForCausalLM) and on the composite's cross-attention layers: peft's counts ---

_TEXT = {"model_type": "mllama_text_model", "architectures": ["MllamaForCausalLM"], "vocab_size": 64, "hidden_size": 16,
         "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 4, "intermediate_size": 32,
         "pad_token_id": 0, "cross_attention_layers": [1, 3]}


def _lora_matches_peft(tmp_path, config: dict, targets) -> None:
    from .test_lora_parity import analyze_any, lora_yaml, peft_outcome

    pytest.importorskip("peft")
    expected = peft_outcome(config, 2, "all-linear" if targets is None else targets)
    assert not isinstance(expected, str), expected
    report = analyze_any(tmp_path, config, lora_yaml(2, targets))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert model.tree.trainable > 0
    assert (model.tree.total, model.tree.trainable) == expected, targets


@pytest.mark.parametrize("targets", [None, ["q_proj", "v_proj"], r"model\.layers\.\d+\.cross_attn\.(q|k)_proj",
                                     r"model\.layers\.[12]\.(self_attn|cross_attn)\.o_proj",
                                     r"model\.layers\.\d+\.mlp\.down_proj"])
def test_lora_on_the_text_model_matches_peft(tmp_path, targets) -> None:
    _lora_matches_peft(tmp_path, _TEXT, targets)


@pytest.mark.parametrize("targets", [r"model\.language_model\.layers\.\d+\.cross_attn\.(q|v)_proj",
                                     r"model\.vision_model\.global_transformer\.layers\.\d+\.mlp\.fc1",
                                     r"model\.multi_modal_projector", ["cross_attn.o_proj", "fc2"]])
def test_lora_on_the_composite_s_own_modules_matches_peft(tmp_path, targets) -> None:
    from .test_lora_parity import COMPOSITE_CONFIGS

    _lora_matches_peft(tmp_path, {"model_type": "mllama", "architectures": ["MllamaForConditionalGeneration"],
                                  **COMPOSITE_CONFIGS["mllama"]}, targets)
