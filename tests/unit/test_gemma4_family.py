"""Gemma 4's text model (gemma4_text), its vision and audio towers (gemma4_vision, gemma4_audio) and the composite
the released checkpoints are (gemma4: Gemma4ForConditionalGeneration), without torch: small configs counted by hand
(each total also what transformers 5.25 builds on the meta device), the class defaults' totals (taken there once),
configs its config classes refuse, and the KV cache the memory estimate holds (what transformers' cache holds:
tests/parity/test_gemma4_parity.py)."""

from __future__ import annotations

import json

import pytest

from config_models import analyze, errors
from config_models import model as count

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

# vocab 10, hidden 4, a gated MLP 6 wide, 2 layers (default types: sliding, then the last forced full), 1 head and 1
# key/value head; sliding layers' heads 2 wide, full layers' (global_head_dim) 4 wide; no per-layer inputs; tied.
BASE = {"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"], "vocab_size": 10, "hidden_size": 4,
        "intermediate_size": 6, "num_hidden_layers": 2, "num_attention_heads": 1, "num_key_value_heads": 1,
        "head_dim": 2, "global_head_dim": 4, "hidden_size_per_layer_input": 0}
EMBED = 10 * 4
MLP = 3 * 4 * 6  # gate, up, down = 72
NORMS = 4 * 4  # input, post-attention, pre- and post-feedforward
SLIDING_ATTN = 4 * 2 + 2 + 2 + 4 * 2 + 4 * 2 + 2 * 4  # q, q_norm, k_norm, k, v, o = 36
FULL_ATTN = 4 * 4 + 4 + 4 + 4 * 4 + 4 * 4 + 4 * 4  # the same 4 wide = 72
FINAL = 4
BASE_PARAMS = EMBED + (SLIDING_ATTN + MLP + NORMS) + (FULL_ATTN + MLP + NORMS) + FINAL  # 328


def test_a_small_config_by_hand() -> None:
    assert BASE_PARAMS == 328
    assert count(BASE).tree.total == 328
    assert count({**BASE, "tie_word_embeddings": False}).tree.total == 328 + EMBED
    assert count({**BASE, "architectures": ["Gemma4TextModel"], "tie_word_embeddings": False}).tree.total == 328


def test_keys_as_values_drop_the_full_layers_v_proj() -> None:
    # attention_k_eq_v: the full layer has no v_proj (4 × 4); the sliding layer keeps its own.
    assert count({**BASE, "attention_k_eq_v": True}).tree.total == 328 - 16
    # ... and its key/value heads from num_global_key_value_heads (2 heads of 4: k_proj 4 × 8), only then.
    assert count({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2}).tree.total == \
        328 + (4 * 2 + 2 * 4) + (4 * 4 + 4 * 4)  # q and o twice as wide in both layers
    assert count({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2,
                  "attention_k_eq_v": True}).tree.total == 328 + 16 + 32 - 16 + 16


def test_kv_sharing_layers_and_their_double_wide_mlp() -> None:
    # Two full layers; the last reuses the first's keys and values: no k_norm, k_proj, v_proj; MLP 12 wide.
    config = {**BASE, "layer_types": ["full_attention", "full_attention"], "num_kv_shared_layers": 1,
              "use_double_wide_mlp": True}
    shared = (4 * 4 + 4 + 4 * 4) + 3 * 4 * 12 + NORMS  # q, q_norm, o; the MLP; norms = 196
    assert count(config).tree.total == EMBED + (FULL_ATTN + MLP + NORMS) + shared + FINAL == 400
    assert count({**config, "use_double_wide_mlp": False}).tree.total == 400 - 3 * 4 * 6


def test_per_layer_inputs() -> None:
    # 3 per-layer values per layer over a 5-token per-layer vocabulary: the packed embedding 5 × (2 × 3), the
    # projection 4 → 6 and its norm (3); per layer a gate 4 → 3, a projection 3 → 4 and a norm (4).
    config = {**BASE, "hidden_size_per_layer_input": 3, "vocab_size_per_layer_input": 5}
    assert count(config).tree.total == 328 + (5 * 6 + 4 * 6 + 3) + 2 * (12 + 12 + 4) == 441


def test_the_moe_block() -> None:
    # 3 experts 2 wide, top 1: per layer the router (proj 4 → 3, scale 4, per-expert scale 3), the experts
    # (gate_up 4 × 4 and down 2 × 4 each) and three norms.
    config = {**BASE, "enable_moe_block": True, "num_experts": 3, "moe_intermediate_size": 2, "top_k_experts": 1}
    per_layer = (12 + 4 + 3) + 3 * (16 + 8) + 3 * 4
    assert count(config).tree.total == 328 + 2 * per_layer == 534
    assert count(config).tree.active == 534 - 2 * 2 * (16 + 8)


def test_per_layer_config_as_transformers_saves_it() -> None:
    # The file's per_layer_config wins over global_head_dim: the full layer's heads 2 wide here, as the sliding one's.
    config = {**BASE, "per_layer_config": {"1": {"head_dim": 2}}}
    assert count(config).tree.total == EMBED + 2 * (SLIDING_ATTN + MLP + NORMS) + FINAL
    assert count({**BASE, "per_layer_config": None}).tree.total == EMBED + 2 * (SLIDING_ATTN + MLP + NORMS) + FINAL


def test_class_defaults() -> None:
    # Gemma4TextConfig() on the meta device: 5,077,177,856 (Gemma4ForCausalLM, tied).
    assert count({"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"]}).tree.total == 5_077_177_856


def test_configs_transformers_refuses() -> None:
    # The sharing layers' types must all appear among the earlier layers (Gemma4TextConfig.kv_sharing_modes).
    assert errors({**BASE, "num_kv_shared_layers": 1})
    assert errors({**BASE, "num_kv_shared_layers": 3})
    assert errors({**BASE, "enable_moe_block": True})  # no num_experts / moe_intermediate_size
    assert errors({**BASE, "hidden_size_per_layer_input": 3, "vocab_size_per_layer_input": 5, "pad_token_id": 7})
    assert errors({**BASE, "global_head_dim": None})
    assert errors({**BASE, "attention_k_eq_v": True, "num_global_key_value_heads": 2.0})
    assert not errors({**BASE, "num_global_key_value_heads": 2.0})  # (not read without attention_k_eq_v)
    assert errors({**BASE, "layer_types": ["sliding_attention"]})
    # The rotary embedding reads one head width per layer type: two sliding layers must agree (an override equal to
    # the global head_dim is dropped).
    three = {**BASE, "num_hidden_layers": 3}
    assert errors({**three, "per_layer_config": {"0": {"head_dim": 4}}})
    assert not errors({**three, "per_layer_config": {"0": {"head_dim": 2}}})
    assert errors({**BASE, "per_layer_config": {"1": {"intermediate_size": 4}}})
    assert errors({**BASE, "use_bidirectional_attention": "text"})


def _kv(config: dict, context: int, batch: int = 1) -> int:
    line = estimate_memory(count(config), Settings(context=context, batch=batch)).line("kv_cache")
    assert line is not None and line.exact
    return line.bytes


def test_the_kv_cache() -> None:
    # bfloat16, 100 tokens: the sliding layer 2 × 1 head × 2 × 100 × 2 bytes, the full one 4 wide.
    assert _kv(BASE, 100) == 2 * 2 * 100 * 2 + 2 * 4 * 100 * 2 == 2400
    # A window of 16: the sliding layer holds 16 tokens.
    assert _kv({**BASE, "sliding_window": 16}, 100) == 2 * 2 * 16 * 2 + 1600
    # ... halved (+ 1) with bidirectional attention everywhere: 9 tokens.
    assert _kv({**BASE, "sliding_window": 16, "use_bidirectional_attention": "all"}, 100) == 2 * 2 * 9 * 2 + 1600
    # A layer reusing another's keys and values caches nothing.
    shared = {**BASE, "layer_types": ["full_attention", "full_attention"], "num_kv_shared_layers": 1}
    assert _kv(shared, 100, batch=3) == 3 * 1600
    # Keys serving as values are cached twice all the same; num_global_key_value_heads sets the full layer's heads.
    assert _kv({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2, "attention_k_eq_v": True}, 100) == \
        800 + 2 * 2 * 4 * 100 * 2


def test_num_experts_without_the_moe_block_draws_no_top_k_warning() -> None:
    # enable_moe_block off: no experts are built, so no missing top_k_experts to warn about; on, the warning stands.
    dense = {**BASE, "num_experts": 3, "moe_intermediate_size": 2}
    assert not [p for p in analyze(dense).problems if p.code == "LC103"]
    assert [p for p in analyze({**dense, "enable_moe_block": True}).problems if p.code == "LC103"]


def test_lora_note_names_no_router_peft_adapts() -> None:
    # Gemma 4's router holds an nn.Linear (router.proj), which peft adapts; gpt-oss's router is no nn.Linear.
    config = {**BASE, "enable_moe_block": True, "num_experts": 3, "moe_intermediate_size": 2, "top_k_experts": 1}
    notes = estimate_memory(count(config), Settings(mode="lora")).notes
    assert "peft leaves gemma4_text's fused experts (3-D parameters) without adapters" in notes
    gpt_oss = count({"model_type": "gpt_oss", "num_hidden_layers": 1})
    assert "peft leaves gpt_oss's fused experts (3-D parameters) and its router (not an nn.Linear) without adapters" \
        in estimate_memory(gpt_oss, Settings(mode="lora")).notes


# --- the towers and the composite ----------------------------------------------------------------------------------

# Vision: hidden 4, a gated MLP 6 wide, 1 layer of 2 heads 2 wide and 1 key/value head, 2-pixel patches, position
# tables of 5 rows.
VISION = {"hidden_size": 4, "intermediate_size": 6, "num_hidden_layers": 1, "num_attention_heads": 2,
          "num_key_value_heads": 1, "head_dim": 2, "patch_size": 2, "position_embedding_size": 5}
PATCH_EMBEDDER = 3 * 2 * 2 * 4 + 2 * 5 * 4  # input_proj 12 → 4 (no bias), the x and y tables = 88
VISION_LAYER = (4 * 4 + 4 * 2 + 4 * 2 + 4 * 4 + 2 + 2) + 3 * 4 * 6 + 4 * 4  # q, k, v, o, q_norm, k_norm; MLP; norms
VISION_PARAMS = PATCH_EMBEDDER + VISION_LAYER  # 228
# Audio: hidden 4, 2 heads (2 wide), 1 layer, subsampling channels 8 and 2, a kernel of 3, output 5 wide.
AUDIO = {"hidden_size": 4, "num_attention_heads": 2, "num_hidden_layers": 1, "subsampling_conv_channels": [8, 2],
         "conv_kernel_size": 3, "output_proj_dims": 5}
SUBSAMPLING = 8 * 1 * 3 * 3 + 8 + 2 * 8 * 3 * 3 + 2 + (8 // 4) * 2 * 4  # two convs, their norms, input_proj_linear
FEED_FORWARD = 4 * 16 + 16 * 4 + 2 * 4  # ffw_layer_1, ffw_layer_2 (4 × wide), two norms
AUDIO_ATTENTION = 3 * 4 * 4 + 4 * 4 + 4 * 4 + 2  # q, k, v; post; relative_k_proj; per_dim_scale over a head
LCONV = 4 * 8 + 4 * 4 + 4 * 1 * 3 + 2 * 4  # linear_start (to 2 × hidden), linear_end, the depthwise conv, two norms
AUDIO_PARAMS = SUBSAMPLING + 2 * FEED_FORWARD + AUDIO_ATTENTION + LCONV + 3 * 4 + (4 * 5 + 5)  # 701
TEXT = {k: v for k, v in BASE.items() if k not in ("model_type", "architectures")}
COMPOSITE = {"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"], "text_config": TEXT,
             "vision_config": VISION, "audio_config": AUDIO}


def test_the_towers_by_hand() -> None:
    assert VISION_PARAMS == 228 and AUDIO_PARAMS == 701
    assert count({"model_type": "gemma4_vision", **VISION}).tree.total == 228
    assert count({"model_type": "gemma4_audio", **AUDIO}).tree.total == 701
    # The clipping bounds and standardize's bias and scale are buffers, the rotary frequencies too.
    assert count({"model_type": "gemma4_vision", **VISION, "use_clipped_linears": True, "standardize": True}).tree.total \
        == 228
    # Heads that do not divide the width: 3 heads of 4 // 3 = 1 (q, k, v and relative_k_proj 3 wide, per_dim_scale 1).
    assert count({"model_type": "gemma4_audio", **AUDIO, "num_attention_heads": 3}).tree.total == \
        701 - 3 * 4 - 4 - 1
    # A third subsampling channel count is not read.
    assert count({"model_type": "gemma4_audio", **AUDIO, "subsampling_conv_channels": [8, 2, 7]}).tree.total == 701


def test_the_composite_by_hand() -> None:
    # The towers, the text model (its head tied), embed_vision 4 → 4 and embed_audio 5 → 4 (their norms no weight).
    total = VISION_PARAMS + BASE_PARAMS + AUDIO_PARAMS + 4 * 4 + 5 * 4
    assert total == 1293
    assert count(COMPOSITE).tree.total == 1293
    assert count({**COMPOSITE, "architectures": ["Gemma4Model"]}).tree.total == 1293
    assert count({**COMPOSITE, "tie_word_embeddings": False}).tree.total == 1293 + EMBED
    # text_config's tie_word_embeddings is not read: the composite's own (true) ties the head.
    assert count({**COMPOSITE, "text_config": {**TEXT, "tie_word_embeddings": False}}).tree.total == 1293
    # No audio_config (or null): no audio tower and no embed_audio; the same without a vision_config.
    no_audio = 1293 - AUDIO_PARAMS - 5 * 4
    assert count({**COMPOSITE, "audio_config": None}).tree.total == no_audio
    assert count({k: v for k, v in COMPOSITE.items() if k != "audio_config"}).tree.total == no_audio
    assert count({**COMPOSITE, "audio_config": None, "vision_config": None}).tree.total == BASE_PARAMS
    # An output_proj_dims in vision_config (not its class's key, kept as written) is what embed_vision projects from.
    assert count({**COMPOSITE, "vision_config": {**VISION, "output_proj_dims": 7}}).tree.total == 1293 - 4 * 4 + 7 * 4
    assert errors({**COMPOSITE, "vision_config": {**VISION, "output_proj_dims": 7.0}})
    assert count({"model_type": "gemma4_vision", **VISION, "output_proj_dims": 7.0}).tree.total == 228  # (not read)
    # The sub-configs are Gemma4Config's own classes whatever model_type they name.
    assert count({**COMPOSITE, "vision_config": {**VISION, "model_type": "siglip_vision_model"},
                  "text_config": {**TEXT, "model_type": "gemma3_text"}}).tree.total == 1293


def test_class_defaults_of_the_towers_and_the_composite() -> None:
    # On the meta device: Gemma4VisionModel 167,364,608; Gemma4AudioModel 304,824,608; Gemma4Config() the text model
    # alone (no towers), 5,077,177,856; with both towers' defaults 5,554,675,488 (untied 6,158,655,264).
    assert count({"model_type": "gemma4_vision"}).tree.total == 167_364_608
    assert count({"model_type": "gemma4_audio"}).tree.total == 304_824_608
    assert count({"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"]}).tree.total == \
        5_077_177_856
    towers = {"model_type": "gemma4", "vision_config": {}, "audio_config": {}}
    assert count(towers).tree.total == 5_554_675_488
    assert count({**towers, "tie_word_embeddings": False}).tree.total == 6_158_655_264


def test_tower_configs_transformers_refuses() -> None:
    assert errors({**COMPOSITE, "tie_word_embeddings": None})
    assert errors({**COMPOSITE, "audio_config": {**AUDIO, "subsampling_conv_channels": [8]}})
    assert errors({**COMPOSITE, "audio_config": {**AUDIO, "subsampling_conv_channels": None}})
    assert errors({**COMPOSITE, "audio_config": {**AUDIO, "num_attention_heads": 5}})  # heads 0 wide
    assert errors({**COMPOSITE, "vision_config": {**VISION, "head_dim": 5}})  # odd and fully rotated
    assert not errors({**COMPOSITE, "vision_config": {**VISION, "head_dim": 3}})  # (not checked up to 4)
    assert errors({**COMPOSITE, "vision_config": {**VISION, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}})
    assert not errors({**COMPOSITE, "vision_config": {**VISION, "rope_parameters": {"rope_type": "default"}}})
    assert errors({**COMPOSITE, "vision_config": {**VISION, "num_key_value_heads": 0}})
    assert errors({**COMPOSITE, "text_config": {**TEXT, "num_kv_shared_layers": 1}})
    assert errors({**COMPOSITE, "vision_config": [1]})


def test_the_composite_caches_what_its_text_model_caches() -> None:
    # memory._decoder_spec takes the text sub-spec: its cache is Gemma 4's, layer by layer (test_the_kv_cache).
    for text in ({**BASE}, {**BASE, "layer_types": ["full_attention", "full_attention"], "num_kv_shared_layers": 1,
                           "sliding_window": 16}):
        alone = _kv(text, 100, batch=2)
        inner = {k: v for k, v in text.items() if k not in ("model_type", "architectures")}
        assert _kv({**COMPOSITE, "text_config": inner}, 100, batch=2) == alone


def test_lora_names_that_reach_a_tower_s_clippable_linear_are_refused(tmp_path) -> None:
    # The towers' q_proj is a Gemma4ClippableLinear holding the nn.Linear q_proj.linear: peft refuses a target list
    # naming q_proj ("Target module Gemma4ClippableLinear ... is not supported"); without towers it adapts the text
    # model's (tests/parity/test_gemma4_parity.py checks both against peft).
    def lora(config: dict, targets: str) -> list[str]:
        (tmp_path / "base").mkdir(exist_ok=True)
        (tmp_path / "base" / "config.json").write_text(json.dumps(config))
        report = analyze_text(f"base_model: ./base\nadapter: lora\nlora_r: 2\nlora_target_modules: {targets}\n",
                              str(tmp_path / "train.yaml"),
                              AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
        return [p.message for p in report.problems if p.severity == "error"]

    (refused,) = lora(COMPOSITE, '["q_proj", "v_proj"]')
    assert "q_proj also names" in refused and "peft refuses it" in refused
    assert not lora({**COMPOSITE, "vision_config": None, "audio_config": None}, '["q_proj", "v_proj"]')
    assert not lora(COMPOSITE, '["linear", "embedding_projection"]')
    assert not lora(COMPOSITE, "'.*language_model.*\\.(q_proj|v_proj)'")


@pytest.mark.parametrize("towers, said", [
    ({}, " (the language model's)"),
    ({"vision_config": {}}, "the vision tower's, over image patches, are not counted"),
    ({"audio_config": {}}, "the audio tower's, over audio frames, are not counted"),
    ({"vision_config": {}, "audio_config": {}},
     "the vision and audio towers', over image patches and audio frames, are not counted"),
])
def test_training_activations_say_which_towers_are_left_out(towers: dict, said: str) -> None:
    # A training step's activations are the language model's; the line names the towers this config builds (none,
    # where both sub-configs are absent) as the ones left out.
    report = estimate_memory(count({"model_type": "gemma4", **towers}), Settings(mode="train", context=1024, batch=2))
    activations = report.line("activations")
    assert activations is not None and activations.detail.endswith(said if said.startswith(" (") else said + ")")


def test_lora_targets_naming_a_tower_s_clippable_linear_are_refused_as_peft_refuses_them() -> None:
    # --lora-targets q_proj,v_proj: with a tower, q_proj also names Gemma4ClippableLinear (self_attn.q_proj, whose
    # nn.Linear is q_proj.linear), which peft refuses as a target; without towers the same targets are counted.
    from lsp_count.core.memory import SettingsError

    settings = Settings(mode="lora", lora_targets=("q_proj", "v_proj"))
    with pytest.raises(SettingsError, match=r"q_proj also names self_attn\.q_proj.*peft refuses"):
        estimate_memory(count({"model_type": "gemma4", "vision_config": {}}), settings)
    assert estimate_memory(count({"model_type": "gemma4"}), settings).line("adapters") is not None
    # The towers' linear layers by their own name are taken.
    inner = Settings(mode="lora", lora_targets=("linear",))
    assert estimate_memory(count({"model_type": "gemma4", "vision_config": {}}), inner).line("adapters") is not None
