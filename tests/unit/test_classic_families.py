"""The classic decoders (layout "classic": GPT-1, CTRL, XGLM, BioGPT), without torch: small configs counted by hand (the
arithmetic in each test), each head class's class defaults as transformers 5.25 builds them on the meta device
(``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold (each small model's
total taken once from transformers' cache after a forward pass in bfloat16: GPT-1 keeps none), their position
limits, and the configs their classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory, position_limit
from lsp_count.core.report import PositionLimit

from config_models import analyze, model as count

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("openai-gpt", "OpenAIGPTLMHeadModel"): 116_534_784,
    ("openai-gpt", "OpenAIGPTModel"): 116_534_784,
    ("openai-gpt", "OpenAIGPTForSequenceClassification"): 116_536_320,
    ("openai-gpt", "OpenAIGPTDoubleHeadsModel"): 116_535_553,
    ("ctrl", "CTRLLMHeadModel"): 1_637_964_550,
    ("ctrl", "CTRLModel"): 1_637_718_016,
    ("ctrl", "CTRLForSequenceClassification"): 1_637_720_576,
    ("xglm", "XGLMForCausalLM"): 564_463_616,
    ("xglm", "XGLMModel"): 564_463_616,
    ("biogpt", "BioGptForCausalLM"): 346_763_264,
    ("biogpt", "BioGptModel"): 346_763_264,
    ("biogpt", "BioGptForSequenceClassification"): 346_765_312,
    ("biogpt", "BioGptForTokenClassification"): 346_765_314,
}


def problems(config: dict, severity: str = "error") -> list[str]:
    return [p.message for p in analyze(config).problems if p.severity == severity]


def total(config: dict) -> int:
    return count(config).tree.total


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert total({"model_type": model_type, "architectures": [architecture]}) == CLASS_DEFAULTS[(model_type, architecture)]


# width 8, 2 heads, 2 layers, a vocabulary of 20, 16 positions
GPT1 = {"model_type": "openai-gpt", "n_embd": 8, "n_head": 2, "n_layer": 2, "vocab_size": 20, "n_positions": 16}
# c_attn 8·24 + 24, c_proj 8·8 + 8, c_fc 8·32 + 32 (4 × n_embd), c_proj 32·8 + 8, ln_1 and ln_2 2·(8 + 8)
GPT1_LAYER = 216 + 72 + 288 + 264 + 32
GPT1_BODY = 20 * 8 + 16 * 8 + 2 * GPT1_LAYER  # tokens_embed, positions_embed (learned), the layers; no final norm


def test_gpt1_by_hand() -> None:
    assert GPT1_BODY == 2_032
    assert total({**GPT1, "architectures": ["OpenAIGPTLMHeadModel"]}) == GPT1_BODY  # tied head: counted once
    assert total({**GPT1, "architectures": ["OpenAIGPTModel"]}) == GPT1_BODY
    assert total({**GPT1, "architectures": ["OpenAIGPTLMHeadModel"], "tie_word_embeddings": False}) == GPT1_BODY + 8 * 20
    labels = {"id2label": {"0": "a", "1": "b", "2": "c"}}
    assert total({**GPT1, "architectures": ["OpenAIGPTForSequenceClassification"], **labels}) == GPT1_BODY + 8 * 3
    # The double heads: the multiple-choice summary, a Linear to num_labels, which the class sets to 1 (8 + 1), or to
    # n_embd (8·8 + 8) without summary_proj_to_labels; none without summary_use_proj.
    double = {**GPT1, "architectures": ["OpenAIGPTDoubleHeadsModel"], **labels}
    assert total(double) == GPT1_BODY + 9
    assert total({**double, "summary_proj_to_labels": False}) == GPT1_BODY + 72
    assert total({**double, "summary_use_proj": False}) == GPT1_BODY


def test_gpt1_refusals() -> None:
    # Attention raises where n_head does not divide n_embd; the double heads' summary refuses "attn".
    assert any("does not divide" in e for e in problems({**GPT1, "n_embd": 9}))
    assert any('summary_type "attn"' in e for e in problems({**GPT1, "architectures": ["OpenAIGPTDoubleHeadsModel"],
                                                             "summary_type": "attn"}))
    assert problems({**GPT1, "architectures": ["OpenAIGPTLMHeadModel"], "summary_type": "attn"}) == []


# width 8, 2 heads, 2 layers, dff 12, a vocabulary of 20; positions a sinusoidal buffer (no parameters)
CTRL = {"model_type": "ctrl", "n_embd": 8, "n_head": 2, "n_layer": 2, "dff": 12, "vocab_size": 20, "n_positions": 16}
# Wq, Wk, Wv, dense 4·(8·8 + 8), ffn.0 8·12 + 12, ffn.2 12·8 + 8, layernorm1 and layernorm2 2·16
CTRL_LAYER = 288 + 108 + 104 + 32
CTRL_BODY = 20 * 8 + 2 * CTRL_LAYER + 16  # w, the layers, the final layernorm


def test_ctrl_by_hand() -> None:
    assert CTRL_BODY == 1_240
    assert total({**CTRL, "architectures": ["CTRLModel"]}) == CTRL_BODY
    # The head is tied to w, but its bias (one per token) is its own.
    assert total({**CTRL, "architectures": ["CTRLLMHeadModel"]}) == CTRL_BODY + 20
    assert total({**CTRL, "architectures": ["CTRLLMHeadModel"], "tie_word_embeddings": False}) == CTRL_BODY + 160 + 20
    assert total({**CTRL, "architectures": ["CTRLForSequenceClassification"],
                  "id2label": {"0": "a", "1": "b", "2": "c"}}) == CTRL_BODY + 8 * 3  # classifier, no bias
    # 2 heads of a width of 9: the attention floors the head width and builds, its projections 9 wide all the same.
    # w 20·9, per layer 4·(81 + 9) + (9·12 + 12) + (12·9 + 9) + 2·18, the final norm 18, the head's bias 20
    assert total({**CTRL, "n_embd": 9, "architectures": ["CTRLLMHeadModel"]}) == 180 + 2 * (360 + 120 + 117 + 36) + 18 + 20


# d_model 8, 2 heads, 2 layers, ffn_dim 12, a vocabulary of 20; sinusoidal positions (a buffer)
XGLM = {"model_type": "xglm", "d_model": 8, "attention_heads": 2, "num_layers": 2, "ffn_dim": 12, "vocab_size": 20,
        "max_position_embeddings": 16}


def test_xglm_by_hand() -> None:
    # embed_tokens 20·8; per layer q/k/v/out_proj 4·72, fc1 108, fc2 104, two LayerNorms 32; the final layer_norm 16
    body = 160 + 2 * (288 + 108 + 104 + 32) + 16
    assert total({**XGLM, "architectures": ["XGLMForCausalLM"]}) == body == 1_240
    assert total({**XGLM, "architectures": ["XGLMForCausalLM"], "tie_word_embeddings": False}) == body + 160
    # add_cross_attention: each layer's encoder_attn (4·72) and encoder_attn_layer_norm (16)
    assert total({**XGLM, "architectures": ["XGLMModel"], "add_cross_attention": True}) == body + 2 * (288 + 16)


def test_xglm_refusals() -> None:
    # The sinusoidal table divides by d_model / 2 - 1; its padding row must lie in its max_position_embeddings + 2 rows;
    # the token embedding's in the vocabulary.
    assert any("sinusoidal" in e for e in problems({**XGLM, "d_model": 2, "attention_heads": 1}))
    # (a width of 1 builds: embed_tokens 20, per layer 4·(1 + 1), fc1 12 + 12, fc2 12 + 1, norms 4; the final norm 2)
    assert total({**XGLM, "d_model": 1, "attention_heads": 1}) == 20 + 2 * (8 + 24 + 13 + 4) + 2
    assert any("sinusoidal position table" in e for e in problems({**XGLM, "vocab_size": 100, "pad_token_id": 18}))
    assert total({**XGLM, "vocab_size": 100, "pad_token_id": 17}) > 0
    assert total({**XGLM, "pad_token_id": -18}) > 0
    assert any("vocabulary" in e for e in problems({**XGLM, "pad_token_id": 20}))
    assert any("does not divide" in e for e in problems({**XGLM, "d_model": 9}))


# hidden 8, 2 heads, 2 layers, intermediate 12, a vocabulary of 20, 16 positions (18 rows: an offset of 2)
BIOGPT = {"model_type": "biogpt", "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 2,
          "intermediate_size": 12, "vocab_size": 20, "max_position_embeddings": 16}


def test_biogpt_by_hand() -> None:
    body = 20 * 8 + 18 * 8 + 2 * (288 + 108 + 104 + 32) + 16
    assert body == 1_384
    assert total({**BIOGPT, "architectures": ["BioGptForCausalLM"]}) == body
    assert total({**BIOGPT, "architectures": ["BioGptForCausalLM"], "tie_word_embeddings": False}) == body + 160
    labels = {"id2label": {"0": "a", "1": "b", "2": "c"}}
    assert total({**BIOGPT, "architectures": ["BioGptForSequenceClassification"], **labels}) == body + 24  # score
    assert total({**BIOGPT, "architectures": ["BioGptForTokenClassification"], **labels}) == body + 27  # + its bias
    assert any("does not divide" in e for e in problems({**BIOGPT, "hidden_size": 9}))
    assert any("vocabulary" in e for e in problems({**BIOGPT, "pad_token_id": 20}))


@pytest.mark.parametrize(("config", "architecture"), [(CTRL, "CTRLLMHeadModel"), (XGLM, "XGLMForCausalLM"),
                                                      (BIOGPT, "BioGptForCausalLM")])
def test_caches_hold_what_transformers_holds(config: dict, architecture: str) -> None:
    # 3 layers × keys and values × 2 heads × 4 wide × 10 tokens × batch 2 × 2 bytes: 1,920 bytes in transformers'
    # DynamicCache after a forward pass (taken once).
    layers = {"n_layer": 3} if "n_layer" in config else {"num_layers": 3} if "num_layers" in config \
        else {"num_hidden_layers": 3}
    model = count({**config, **layers, "architectures": [architecture]})
    assert estimate_memory(model, Settings(context=10, batch=2)).line("kv_cache").bytes == 1_920


def test_gpt1_keeps_no_cache() -> None:
    line = estimate_memory(count({**GPT1, "architectures": ["OpenAIGPTLMHeadModel"]}),
                           Settings(context=10, batch=2)).line("kv_cache")
    assert line.bytes == 0 and "no KV cache" in line.detail


def test_position_limits() -> None:
    # A table of fixed rows fails past it (GPT-1's and BioGPT's learned ones, CTRL's sinusoidal buffer); XGLM's
    # sinusoidal table grows itself.
    assert position_limit(count(GPT1)) == PositionLimit(16, "n_positions", hard=True)
    assert position_limit(count(CTRL)) == PositionLimit(16, "n_positions", hard=True)
    assert position_limit(count(BIOGPT)) == PositionLimit(16, "max_position_embeddings", hard=True)
    assert position_limit(count(XGLM)) == PositionLimit(16, "max_position_embeddings", hard=False)


def test_lora_names_and_all_linear_by_hand() -> None:
    """Rank 4 on CTRL's projections (checked against peft 0.21 on the meta device): Wq and ffn.0 in both layers
    are 4·(8 + 8) and 4·(8 + 12); all-linear takes the four attention projections, ffn.0 and ffn.2, not the head."""
    from lsp_count.formats.lora import LoraTargets, apply_lora

    tree = count({**CTRL, "architectures": ["CTRLLMHeadModel"], "tie_word_embeddings": False}).tree
    named = apply_lora(tree, 4, LoraTargets(names=("Wq", "ffn.0")), model_type="ctrl")
    assert named.adapter_params == 2 * (64 + 80)
    everything = apply_lora(tree, 4, LoraTargets(), model_type="ctrl")
    assert everything.adapter_params == 2 * (4 * 64 + 80 + 80)
    regex = apply_lora(tree, 4, LoraTargets(pattern=r"transformer\.h\.1\.ffn\.0"), model_type="ctrl")
    assert regex.adapter_params == 80


def test_where_both_spellings_are_written_the_alias_wins() -> None:
    # transformers sets n_embd (d_model, ...) from its attribute_map alias hidden_size after the short name, whatever
    # the file's order: CTRL with n_embd 8 and hidden_size 9 is 9 wide (the hand count of test_ctrl_by_hand).
    assert total({**CTRL, "hidden_size": 9, "architectures": ["CTRLLMHeadModel"]}) == 1_484
    assert total({**XGLM, "hidden_size": 8, "d_model": 16, "num_hidden_layers": 2, "num_layers": 5,
                  "architectures": ["XGLMForCausalLM"]}) == 1_240


def test_caches_are_what_a_forward_pass_fills() -> None:
    """The same small models' caches, filled by a forward pass in transformers (where installed), byte for byte; GPT-1
    returns none."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for config, architecture in ((CTRL, "CTRLLMHeadModel"), (XGLM, "XGLMForCausalLM"), (BIOGPT, "BioGptForCausalLM"),
                                 (GPT1, "OpenAIGPTLMHeadModel")):
        hf = transformers.CONFIG_MAPPING[config["model_type"]](**{k: v for k, v in config.items() if k != "model_type"})
        module = getattr(transformers, architecture)(hf).to(torch.bfloat16).eval()
        with torch.no_grad():
            out = module(input_ids=torch.randint(0, 20, (2, 10)))
        cache = out.get("cache", out.get("past_key_values"))
        filled = sum(t.numel() * t.element_size() for layer in cache.layers for t in (layer.keys, layer.values)) \
            if cache is not None else 0
        model = count({**config, "architectures": [architecture]})
        assert estimate_memory(model, Settings(context=10, batch=2)).line("kv_cache").bytes == filled, architecture


# LoRA targets per family (names, regexes on the full module names, all linear layers) for peft to judge.
LORA_TARGETS = {
    "openai-gpt": (GPT1, (("c_attn",), ("c_proj", "c_fc"), r".*\.h\.1\.attn\.c_proj", r"multiple_choice_head\.summary",
                          None)),
    "ctrl": (CTRL, (("Wq", "ffn.0"), ("dense",), r".*h\.0\.ffn\.2", r".*multi_head_attention\.W[qk]", r"classifier",
                    None)),
    "xglm": ({**XGLM, "add_cross_attention": True}, (("q_proj",), ("fc1", "out_proj"), r".*encoder_attn\.q_proj",
                                                     r"model\.layers\.1\.fc2", None)),
    "biogpt": (BIOGPT, (("q_proj", "fc2"), r"biogpt\.layers\.0\.self_attn\.v_proj", r"classifier", None)),
}


@pytest.mark.parametrize("model_type", sorted(LORA_TARGETS))
def test_lora_adapters_are_peft_s(model_type: str) -> None:
    """Rank 4 adapters on each head class but the bare model and the sequence classifier (whose full names, and whose
    score all-linear leaves out, every decoder family shares), untied: peft 0.21's trainable count on the meta device,
    or its refusal where the targets reach no module (where installed)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    peft = pytest.importorskip("peft")
    from lsp_count.core.families import registry
    from lsp_count.formats.lora import LoraTargets, apply_lora

    config, targets = LORA_TARGETS[model_type]
    config = {**config, "tie_word_embeddings": False}
    for architecture, head in registry()[model_type].heads.items():
        if head in ("base", "sequence_classification"):
            continue
        hf = transformers.CONFIG_MAPPING[model_type](**{k: v for k, v in config.items() if k != "model_type"})
        tree = count({**config, "architectures": [architecture]}).tree
        for target in targets:
            with torch.device("meta"):
                built = getattr(transformers, architecture)(hf)
                try:
                    adapted = peft.get_peft_model(built, peft.LoraConfig(
                        r=4, target_modules="all-linear" if target is None else list(target)
                        if isinstance(target, tuple) else target))
                    want = sum(p.numel() for p in adapted.parameters() if p.requires_grad)
                except ValueError:  # the targets reach no module
                    want = None
            ours = apply_lora(tree, 4, LoraTargets() if target is None else LoraTargets(names=target)
                              if isinstance(target, tuple) else LoraTargets(pattern=target), model_type=model_type)
            got = None if ours.errors else ours.adapter_params
            assert got == want, (architecture, target, ours.errors)
