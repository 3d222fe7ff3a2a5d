"""Adapters the training tools build outside peft's usual shapes: torchtune's split phi3, NeMo's
ParallelLinearAdapter on fused Megatron layers, peft on transformers 5 fused MoE experts."""

from __future__ import annotations

from pathlib import Path

from lsp_count.core.analyze import analyze_path, analyze_text
from lsp_count.formats.lora import LoraTargets, apply_lora, split_fused

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "training"
PHI3_MINI = 3_821_079_552


def only_model(report):
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model


def test_torchtune_phi3_lora_fixture():
    model = only_model(analyze_path(str(FIX / "torchtune-phi3-mini-lora.yaml")))
    # torchtune lora_phi3: q_proj, v_proj, output_proj 3072->3072 and w1/w3 3072->8192, w2 8192->3072, r=8, 32 layers
    per_layer = 8 * (3 * (3072 + 3072) + 3 * (3072 + 8192))
    assert model.tree.trainable == 32 * per_layer == 13_369_344
    assert model.tree.total == PHI3_MINI + 13_369_344
    assert model.plan["mode"] == "lora"
    assert set(model.plan["lora_targets"]) == {"q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
    messages = [p.message for p in analyze_path(str(FIX / "torchtune-phi3-mini-lora.yaml")).problems]
    assert any("torchtune builds phi3 with separate q_proj" in m for m in messages)


def test_torchtune_qlora_phi3_output():
    text = ("model:\n  _component_: torchtune.models.phi3.qlora_phi3_mini\n  lora_attn_modules: [k_proj]\n"
            "  apply_lora_to_output: true\n  lora_rank: 4\n")
    model = only_model(analyze_text(text, "x.yaml"))
    assert model.tree.trainable == 32 * 4 * (3072 + 3072) + 4 * (3072 + 32064)
    assert model.plan["mode"] == "qlora"


def test_split_fused_keeps_the_count():
    model = only_model(analyze_text("model_type: phi3\nhidden_size: 64\nnum_attention_heads: 4\n"
                                    "num_key_value_heads: 2\nintermediate_size: 96\nnum_hidden_layers: 2\n"
                                    "vocab_size: 100\npad_token_id: 0\n", "c.yaml"))  # (Phi-3's default pad is 32,000)
    split = split_fused(model.tree, {"qkv_proj": (("q_proj", 64), ("k_proj", 32), ("v_proj", 32)), "gate_up_proj": None})
    assert split.total == model.tree.total
    names = {t.module for _p, t, _m, _f in split.root.iter_tensors() if t.kind == "linear"}
    assert {"q_proj", "k_proj", "v_proj", "gate_proj", "up_proj", "down_proj", "o_proj"} <= names
    assert "qkv_proj" not in names
    adapted = apply_lora(split, 2, LoraTargets(names=("k_proj",)), model_type="phi3")
    assert adapted.adapter_params == 2 * 2 * (64 + 32)


def test_moe_qwen2_experts_and_router_adapted_by_all_linear():
    # peft 0.22 converts qwen2_moe (0.21 left its experts and router alone)
    text = ("model_type: qwen2_moe\nhidden_size: 32\nnum_attention_heads: 2\nnum_key_value_heads: 1\n"
            "num_hidden_layers: 1\nintermediate_size: 40\nmoe_intermediate_size: 8\nnum_experts: 4\n"
            "num_experts_per_tok: 2\nshared_expert_intermediate_size: 16\nvocab_size: 50\n")
    model = only_model(analyze_text(text, "c.yaml"))
    adapted = apply_lora(model.tree, 2, LoraTargets(), model_type="qwen2_moe")
    # q, k, v, o; the router r·(32 + 4); gate_up_proj 4 experts · 2r·(32 + 2·8), down_proj 4 · r·(8 + 32); the shared
    # expert's gate, up, down (32 ↔ 16) and its nn.Linear gate (32 → 1)
    attn = 2 * ((32 + 32) + (32 + 16) * 2 + (32 + 32))
    assert adapted.adapter_params == attn + 2 * (32 + 4) + 4 * 4 * (32 + 16) + 4 * 2 * (8 + 32) + 3 * 2 * (32 + 16) \
        + 2 * (32 + 1)
    assert {"gate", "experts.gate_up_proj", "experts.down_proj", "gate_proj", "shared_expert_gate"} <= set(adapted.modules)
    assert not any("leaves qwen2_moe's fused experts" in n for n in adapted.notes)


def test_moe_mixtral_experts_adapted_by_all_linear():
    text = ("model_type: mixtral\nhidden_size: 32\nnum_attention_heads: 2\nnum_key_value_heads: 1\n"
            "num_hidden_layers: 2\nintermediate_size: 40\nnum_local_experts: 4\nvocab_size: 50\n")
    model = only_model(analyze_text(text, "c.yaml"))
    adapted = apply_lora(model.tree, 2, LoraTargets(), model_type="mixtral")
    # per layer: q,k,v,o + router r(32+4) + gate_up 4 experts · 2r·(32+80) + down 4 · r·(40+32)
    attn = 2 * ((32 + 32) + (32 + 16) * 2 + (32 + 32))
    per_layer = attn + 2 * (32 + 4) + 4 * 4 * (32 + 80) + 4 * 2 * (40 + 32)
    assert adapted.adapter_params == 2 * per_layer
    assert {"gate", "experts.gate_up_proj", "experts.down_proj"} <= set(adapted.modules)
    refused = apply_lora(model.tree, 2, LoraTargets(names=("w1", "q_proj")), model_type="mixtral")
    assert refused.errors and "without w3" in refused.errors[0]


# --- NeMo LoRA ------------------------------------------------------------------------------------------

NEMO_BASE = ("model:\n  num_layers: 4\n  hidden_size: 512\n  ffn_hidden_size: 1376\n  num_attention_heads: 8\n"
             "  num_query_groups: 2\n  normalization: rmsnorm\n  bias: False\n  activation: {act}\n"
             "  position_embedding_type: rope\n  share_embeddings_and_output_weights: False\n"
             "  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n  peft:\n    peft_scheme: {scheme}\n"
             "    lora_tuning:\n{lora}")
NEMO_BASE_TOTAL = 62_591_488  # the fixture's llama-shaped base (4 layers, hidden 512, vocab 50,304)


def nemo(lora: str = "      adapter_dim: 8\n", act: str = "fast-swiglu", scheme: str = "lora"):
    return analyze_text(NEMO_BASE.format(act=act, scheme=scheme, lora=lora), "megatron_gpt_peft.yaml")


def test_nemo_lora_fixture():
    model = only_model(analyze_path(str(FIX / "nemo-llama-lora.yaml")))
    qkv, dense, fc1, fc2 = 512 + 64 * (8 + 2 * 2), 512 + 512, 512 + 2 * 1376, 1376 + 512
    assert model.tree.trainable == 4 * 32 * (qkv + dense + fc1 + fc2) == 954_368
    assert model.tree.total == NEMO_BASE_TOTAL + 954_368
    plan = model.plan
    assert (plan["mode"], plan["lora_rank"], plan["lora_alpha"], plan["context"], plan["batch"]) == ("lora", 32, 32, 4096, 1)
    assert plan["lora_targets"] == ["linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"]
    names = {t.module for _p, t, _m, _f in model.tree.root.iter_tensors() if t.kind == "linear"}
    assert {"linear_qkv", "linear_fc1"} <= names  # the base shown with Megatron's fused layers


def test_nemo_lora_default_target_is_qkv():
    model = only_model(nemo())
    assert model.tree.trainable == 4 * 8 * (512 + 768)
    assert model.tree.total == NEMO_BASE_TOTAL + model.tree.trainable


def test_nemo_lora_groups_and_layer_selection():
    model = only_model(nemo("      adapter_dim: 4\n      target_modules: [mlp]\n      layer_selection: [1, 3, 9]\n"))
    assert model.tree.trainable == 2 * 4 * ((512 + 2 * 1376) + (1376 + 512))


def test_nemo_lora_plain_swiglu_fc1_is_ffn_wide_with_a_warning():
    report = nemo("      adapter_dim: 4\n      target_modules: [mlp_fc1]\n", act="swiglu")
    model = only_model(report)
    assert model.tree.trainable == 4 * 4 * (512 + 1376)
    assert any(p.severity == "warning" and "fast-*" in p.message for p in report.problems)


def test_nemo_peft_refusals():
    assert "adapter_dim" in str(nemo("      target_modules: [all]\n").problems)
    assert nemo("      adapter_dim: 4\n      variant: fused\n").has_errors
    assert nemo("      adapter_dim: 4\n      weight_tying: true\n").has_errors
    assert nemo("      adapter_dim: 4\n      target_modules: [attention_q]\n").has_errors
    report = nemo("      adapter_dim: 4\n", scheme="selective")
    model = only_model(report)
    assert model.tree.trainable == model.tree.total == NEMO_BASE_TOTAL
    assert any(p.severity == "warning" and "selective" in p.message for p in report.problems)


def test_nemo_peft_bad_values_are_errors_at_their_key():
    lora = "      adapter_dim: 4\n"
    cases = {
        "[lora, ia3]": ("peft_scheme must name a scheme", "got a list", 15),
        "',,'": ("peft_scheme must name a scheme", "got ',,'", 15),
        "5": ("peft_scheme must name a scheme", "got 5", 15),
    }
    for scheme, (what, got, line) in cases.items():
        errors = [p for p in nemo(lora, scheme=scheme).problems if p.severity == "error"]
        assert len(errors) == 1 and what in errors[0].message and got in errors[0].message, errors
        assert errors[0].span.start.line == line
    for section, what in (("      variant: [nemo]\n", "variant: a list is none of NeMo's"),
                          ("      layer_selection: all\n", "layer_selection must be a list of layer numbers")):
        errors = [p for p in nemo(lora + section).problems if p.severity == "error"]
        assert len(errors) == 1 and what in errors[0].message, errors


def test_nemo_canonical_lora_splits_qkv_and_fc1():
    # q 512 -> 512, k and v 512 -> 64·2 (kv_channels 64, 2 groups); gate and up 512 -> 1376 each (fast-swiglu: 2·ffn / 2)
    model = only_model(nemo("      adapter_dim: 4\n      variant: canonical\n      target_modules: [attention_qkv, mlp_fc1]\n"))
    assert model.tree.trainable == 4 * 4 * ((512 + 512) + 2 * (512 + 128) + 2 * (512 + 1376))
    names = {t.name for _p, t, _m, _f in model.tree.root.iter_tensors() if t.kind == "lora"}
    assert {"attention_qkv.q_adapter.linear_in.weight", "mlp_fc1.up_adapter.linear_out.weight"} <= names
    assert model.plan["lora_rank"] == 4 and model.plan["lora_targets"] == ["linear_qkv", "linear_fc1"]


def test_nemo_canonical_lora_odd_fc1_is_a_warning():
    text = ("model:\n  num_layers: 2\n  hidden_size: 64\n  ffn_hidden_size: 255\n  num_attention_heads: 4\n"
            "  normalization: layernorm\n  bias: True\n  activation: gelu\n  position_embedding_type: rope\n"
            "  share_embeddings_and_output_weights: False\n  tokenizer:\n    library: megatron\n"
            "    type: GPT2BPETokenizer\n  peft:\n    peft_scheme: lora\n    lora_tuning:\n      adapter_dim: 2\n"
            "      variant: canonical\n      target_modules: [mlp_fc1]\n")
    report = analyze_text(text, "megatron_gpt_peft.yaml")
    assert only_model(report).tree.trainable == 2 * 2 * 2 * (64 + 127)
    assert any(p.severity == "warning" and "one short of fc1's 255" in p.message for p in report.problems)


def test_nemo_ia3_scalers_are_the_models_own_adapters():
    from lsp_count.core.memory import Settings, estimate_memory

    report = nemo("", scheme="ia3")
    model = only_model(report)
    assert model.tree.trainable == 4 * (2 * 128 + 1376)  # keys and values: kv_channels 64 × 2 groups; the MLP: ffn
    assert model.tree.total == NEMO_BASE_TOTAL + model.tree.trainable
    assert model.plan["mode"] == "lora" and "lora_rank" not in model.plan
    memory = estimate_memory(model, Settings(mode="lora"))
    assert memory.line("adapters").bytes == 4 * model.tree.trainable
    assert "its own adapters" in memory.line("adapters").detail
    assert any(p.code == "LC106" and "ia3" in p.message and "not installed" in p.message for p in report.problems)


def nemo_scheme(scheme: str, section: str) -> object:
    return analyze_text(NEMO_BASE.format(act="fast-swiglu", scheme=scheme, lora="      adapter_dim: 4\n")
                        + section, "megatron_gpt_peft.yaml")


def test_nemo_adapter_two_bottlenecks_a_layer_with_their_norms():
    adapter = "    adapter_tuning:\n      adapter_dim: 16\n"
    model = only_model(nemo_scheme("adapter", adapter))
    assert model.tree.trainable == 4 * 2 * (2 * 512 * 16 + 2 * 512)  # linear_in, linear_out, LayerNorm weight + bias
    post = only_model(nemo_scheme("adapter", adapter + "      norm_position: post\n      norm_type: layernorm\n"))
    assert post.tree.trainable == model.tree.trainable
    bare = only_model(nemo_scheme("adapter", adapter + "      norm_position: null\n"))
    assert bare.tree.trainable == 4 * 2 * 2 * 512 * 16
    selected = only_model(nemo_scheme("adapter", adapter + "      layer_selection: [2, 4]\n"))
    assert selected.tree.trainable == model.tree.trainable // 2
    assert nemo_scheme("adapter", adapter + "      norm_type: rmsnorm\n").has_errors
    assert nemo_scheme("adapter", adapter + "      weight_tying: true\n").has_errors
    missing = nemo_scheme("adapter", "    adapter_tuning:\n      norm_position: pre\n")
    assert any(p.severity == "error" and "model.peft.adapter_tuning.adapter_dim" in p.message for p in missing.problems)


def test_nemo_ptuning_and_lora_together():
    ptuning = "    p_tuning:\n      virtual_tokens: 10\n      bottleneck_dim: 64\n      embedding_dim: 32\n"
    prompt = 10 * 32 + (32 * 64 + 64) + (64 * 512 + 512)  # embedding, first and second linear with bias
    model = only_model(nemo_scheme("ptuning", ptuning))
    assert model.tree.trainable == prompt
    both = only_model(nemo_scheme("'ptuning,lora'", ptuning))
    assert both.tree.trainable == prompt + 4 * 4 * (512 + 768)  # lora_tuning's default target: attention_qkv
    assert "lora_rank" not in both.plan  # not a LoRA plan alone: the model's own adapters
    assert not any(t.kind == "lora" for _p, t, _m, _f in both.tree.root.iter_tensors())
    missing = nemo_scheme("ptuning", "    p_tuning:\n      virtual_tokens: 10\n")
    assert [p.message for p in missing.problems if p.severity == "error"] == [
        "peft_scheme: ptuning needs model.peft.p_tuning.bottleneck_dim (the encoder's width)",
        "peft_scheme: ptuning needs model.peft.p_tuning.embedding_dim (the virtual tokens' width)"]


def test_nemo_without_peft_unchanged():
    text = NEMO_BASE.split("  peft:")[0].format(act="fast-swiglu")
    model = only_model(analyze_text(text, "megatron_gpt.yaml"))
    assert model.tree.total == model.tree.trainable == NEMO_BASE_TOTAL


def test_nemo_ia3_activations_are_its_scalers_not_a_lora_plan():
    from lsp_count.core.memory import Settings, estimate_memory

    settings = Settings(mode="lora", context=512, batch=2)
    every = only_model(nemo("", scheme="ia3"))
    first = only_model(nemo_scheme("ia3", "    ia3_tuning:\n      layer_selection: [1]\n"))
    a, b = (estimate_memory(m, settings).line("activations") for m in (every, first))
    # Each scaled layer keeps the 16-bit values its scalers multiply: keys, values (128 each) and the MLP's 1,376.
    assert a.bytes - b.bytes == 512 * 2 * 2 * (2 * 128 + 1376) * 3
    assert "its adapters add" in a.detail and "LoRA adds" not in a.detail
