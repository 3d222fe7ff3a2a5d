"""LitGPT and NeMo/Megatron YAMLs against the equivalent transformers model (meta device).

The equivalent class is written out here by hand from each tool's documented
architecture (LitGPT LLaMAMLP/RMSNorm = LlamaForCausalLM without tying;
Megatron GPT with learned positions and a shared output = GPT2LMHeadModel),
independently of lsp-count's own mapping.
"""

from __future__ import annotations

import random

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from .meta_count import transformers_count

pytestmark = pytest.mark.parity


def count_yaml(text: str, name: str = "model_config.yaml"):
    report = analyze_text(text, name, AnalyzeOptions())
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model.tree.total


def _pad(n: int, m: int) -> int:
    return -(-n // m) * m


@pytest.mark.parametrize("seed", range(6))
def test_litgpt_llama_shape(seed):
    rng = random.Random(seed)
    groups = rng.choice([1, 2, 4])
    heads = groups * rng.choice([1, 2])
    head_size = rng.choice([8, 16])
    n_embd = heads * head_size * rng.choice([1, 2])  # head_size need not be n_embd / n_head
    vocab, multiple = rng.randint(100, 500), rng.choice([64, 128])
    layers, inter, bias = rng.randint(1, 3), rng.choice([40, 96]), rng.choice([True, False])
    text = (f"name: tiny\nvocab_size: {vocab}\npadding_multiple: {multiple}\nn_layer: {layers}\nn_embd: {n_embd}\n"
            f"n_head: {heads}\nn_query_groups: {groups}\nhead_size: {head_size}\nbias: {str(bias).lower()}\n"
            f"norm_class_name: RMSNorm\nmlp_class_name: LLaMAMLP\nintermediate_size: {inter}\n")
    expected, _ = transformers_count(dict(
        model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=_pad(vocab, multiple), hidden_size=n_embd,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=groups, head_dim=head_size,
        intermediate_size=inter, attention_bias=bias, mlp_bias=bias, tie_word_embeddings=False))
    assert count_yaml(text) == expected


def test_litgpt_pythia_shape():
    text = open("tests/fixtures/training/litgpt-pythia-model_config.yaml").read()
    expected, _ = transformers_count(dict(
        model_type="gpt_neox", architectures=["GPTNeoXForCausalLM"], vocab_size=_pad(50254, 128), hidden_size=768,
        num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, rotary_pct=0.25, tie_word_embeddings=False))
    assert count_yaml(text) == expected == 162_322_944  # litgpt's pythia-160m (published: 162M with the untied head)


@pytest.mark.parametrize("seed", range(4))
def test_nemo_gpt_shape(seed):
    rng = random.Random(seed)
    heads = rng.choice([2, 4])
    hidden = heads * rng.choice([8, 16])
    layers, ffn, tp = rng.randint(1, 3), rng.choice([4 * hidden, 48]), rng.choice([1, 2, 4])
    text = (f"trainer:\n  precision: bf16\nmodel:\n  tensor_model_parallel_size: {tp}\n  encoder_seq_length: 256\n"
            f"  max_position_embeddings: ${{.encoder_seq_length}}\n  num_layers: {layers}\n  hidden_size: {hidden}\n"
            f"  ffn_hidden_size: {ffn}\n  num_attention_heads: {heads}\n  normalization: layernorm\n  bias: True\n"
            f"  activation: gelu\n  position_embedding_type: learned_absolute\n"
            f"  share_embeddings_and_output_weights: True\n  make_vocab_size_divisible_by: 128\n"
            f"  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n")
    expected, _ = transformers_count(dict(
        model_type="gpt2", architectures=["GPT2LMHeadModel"], vocab_size=_pad(50257, 128 * tp), n_embd=hidden,
        n_layer=layers, n_head=heads, n_inner=ffn, n_positions=256))
    assert count_yaml(text, "megatron_gpt.yaml") == expected


@pytest.mark.parametrize("seed", range(4))
def test_nemo_llama_shape(seed):
    rng = random.Random(10 + seed)
    groups = rng.choice([1, 2])
    heads = groups * rng.choice([2, 4])
    kv_channels = rng.choice([8, 16])
    hidden = heads * kv_channels
    layers, ffn, tied = rng.randint(1, 3), rng.choice([40, 88]), rng.choice([True, False])
    text = (f"model:\n  num_layers: {layers}\n  hidden_size: {hidden}\n  ffn_hidden_size: {ffn}\n"
            f"  num_attention_heads: {heads}\n  num_query_groups: {groups}\n  kv_channels: {kv_channels}\n"
            f"  normalization: rmsnorm\n  bias: False\n  activation: fast-swiglu\n  position_embedding_type: rope\n"
            f"  share_embeddings_and_output_weights: {tied}\n  make_vocab_size_divisible_by: 64\n"
            f"  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n")
    expected, _ = transformers_count(dict(
        model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=_pad(50257, 64), hidden_size=hidden,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=groups, head_dim=kv_channels,
        intermediate_size=ffn, tie_word_embeddings=tied))
    assert count_yaml(text, "nemo.yaml") == expected


def test_nemo_126m_fixture():
    text = open("tests/fixtures/training/nemo-megatron-gpt-126m.yaml").read()
    expected, _ = transformers_count(dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], vocab_size=50304,
                                          n_embd=768, n_layer=12, n_head=12, n_inner=3072, n_positions=512))
    assert count_yaml(text, "megatron_gpt_config.yaml") == expected


# --- torchtune phi3 LoRA ------------------------------------------------------------------------------


@pytest.mark.parametrize("attn,mlp,output,builder", [
    (["q_proj", "v_proj", "output_proj"], True, False, "lora_phi3_mini"),
    (["q_proj", "k_proj", "v_proj", "output_proj"], True, True, "qlora_phi3_mini"),
    (["k_proj"], False, False, "lora_phi3_mini"),
])
def test_torchtune_phi3_lora_matches_split_layout(attn, mlp, output, builder):
    """torchtune's lora_phi3 builds separate q/k/v_proj and w1/w2/w3 (no fused qkv_proj / gate_up_proj): the same
    shapes as a LlamaForCausalLM of Phi-3-mini's dimensions with an untied head, so peft on that model with the
    matching targets gives torchtune's count (torchtune itself is not installed here)."""
    import json

    from lsp_count.core.catalog import CATALOG_DIR
    from .test_lora_parity import peft_counts

    phi3 = json.loads((CATALOG_DIR / "microsoft" / "Phi-3-mini-4k-instruct.json").read_text())
    text = (f"model:\n  _component_: torchtune.models.phi3.{builder}\n  lora_attn_modules: {json.dumps(attn)}\n"
            f"  apply_lora_to_mlp: {mlp}\n  apply_lora_to_output: {output}\n  lora_rank: 8\n")
    report = analyze_text(text, "tt.yaml", AnalyzeOptions())
    assert not report.has_errors, report.problems
    (model,) = report.models
    llama = dict(model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=phi3["vocab_size"],
                 hidden_size=phi3["hidden_size"], num_hidden_layers=phi3["num_hidden_layers"],
                 num_attention_heads=phi3["num_attention_heads"], num_key_value_heads=phi3["num_key_value_heads"],
                 intermediate_size=phi3["intermediate_size"], rms_norm_eps=phi3["rms_norm_eps"],
                 tie_word_embeddings=False)
    targets = [{"output_proj": "o_proj"}.get(a, a) for a in attn]
    targets += ["gate_proj", "up_proj", "down_proj"] if mlp else []
    targets += ["lm_head"] if output else []
    assert (model.tree.total, model.tree.trainable) == peft_counts(llama, 8, targets)
    assert model.tree.total - model.tree.trainable == 3_821_079_552  # Phi-3-mini, as transformers counts it


# --- NeMo LoRA (model.peft) -----------------------------------------------------------------------------
#
# NeMo is not installable here: the adapter layout (one ParallelLinearAdapter per fused Megatron linear,
# linear_in in×dim + linear_out dim×out, no bias) rests on NeMo's code. What these tests check against peft is the
# fused shapes: peft's r·(in+out) on transformers classes that fuse the same layers (gpt2 c_attn / c_proj / c_fc,
# GPT-NeoX query_key_value, phi3 qkv_proj / gate_up_proj) must equal NeMo's dim·(in+out) per adapter.

NEMO_PEFT = ("  peft:\n    peft_scheme: lora\n    lora_tuning:\n      adapter_dim: {dim}\n"
             "      target_modules: {targets}\n")


def nemo_lora_model(text: str):
    report = analyze_text(text, "megatron_gpt_peft.yaml", AnalyzeOptions())
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model


@pytest.mark.parametrize("seed", range(3))
def test_nemo_lora_gpt_matches_peft_on_gpt2(seed):
    from .test_lora_parity import peft_counts

    rng = random.Random(40 + seed)
    heads = rng.choice([2, 4])
    hidden = heads * rng.choice([8, 16])
    layers, ffn, dim = rng.randint(1, 3), rng.choice([4 * hidden, 48]), rng.choice([2, 4, 8])
    text = (f"model:\n  num_layers: {layers}\n  hidden_size: {hidden}\n  ffn_hidden_size: {ffn}\n"
            f"  num_attention_heads: {heads}\n  normalization: layernorm\n  bias: True\n  activation: gelu\n"
            f"  position_embedding_type: learned_absolute\n  share_embeddings_and_output_weights: True\n"
            f"  max_position_embeddings: 128\n  make_vocab_size_divisible_by: 128\n"
            f"  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n"
            + NEMO_PEFT.format(dim=dim, targets="[all]"))
    model = nemo_lora_model(text)
    gpt2 = dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], vocab_size=_pad(50257, 128), n_embd=hidden,
                n_layer=layers, n_head=heads, n_inner=ffn, n_positions=128)
    assert (model.tree.total, model.tree.trainable) == peft_counts(gpt2, dim, ["c_attn", "c_proj", "c_fc"])


@pytest.mark.parametrize("seed", range(3))
def test_nemo_lora_neox_matches_peft(seed):
    from .test_lora_parity import peft_counts

    rng = random.Random(50 + seed)
    heads = rng.choice([2, 4])
    hidden = heads * 8
    layers, ffn, dim = rng.randint(1, 3), rng.choice([4 * hidden, 40]), rng.choice([2, 4])
    targets = rng.choice([["attention_qkv"], ["attention", "mlp_fc2"], ["mlp"], ["all"]])
    text = (f"model:\n  num_layers: {layers}\n  hidden_size: {hidden}\n  ffn_hidden_size: {ffn}\n"
            f"  num_attention_heads: {heads}\n  normalization: layernorm\n  bias: True\n  activation: gelu\n"
            f"  position_embedding_type: rope\n  share_embeddings_and_output_weights: False\n"
            f"  make_vocab_size_divisible_by: 128\n  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n"
            + NEMO_PEFT.format(dim=dim, targets=targets))
    model = nemo_lora_model(text)
    neox = dict(model_type="gpt_neox", architectures=["GPTNeoXForCausalLM"], vocab_size=_pad(50257, 128),
                hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads, intermediate_size=ffn,
                rotary_pct=1.0, tie_word_embeddings=False)
    names = {"attention_qkv": ["query_key_value"], "attention_dense": ["dense"], "mlp_fc1": ["dense_h_to_4h"],
             "mlp_fc2": ["dense_4h_to_h"]}
    groups = {"attention": ["attention_qkv", "attention_dense"], "mlp": ["mlp_fc1", "mlp_fc2"],
              "all": ["attention_qkv", "attention_dense", "mlp_fc1", "mlp_fc2"]}
    peft_targets = sorted({n for t in targets for g in groups.get(t, [t]) for n in names[g]})
    assert (model.tree.total, model.tree.trainable) == peft_counts(neox, dim, peft_targets)


@pytest.mark.parametrize("seed", range(4))
def test_nemo_lora_swiglu_matches_peft_on_phi3(seed):
    """fast-swiglu + rmsnorm + rope (counted as llama) with LoRA on the fused qkv / fc1: phi3 fuses the same
    layers (qkv_proj: q + 2 kv, gate_up_proj: 2·ffn), so peft on Phi3ForCausalLM gives NeMo's count."""
    from .test_lora_parity import peft_counts

    rng = random.Random(60 + seed)
    groups = rng.choice([1, 2])
    heads = groups * rng.choice([2, 4])
    hidden = heads * rng.choice([8, 16])
    layers, ffn, dim, tied = rng.randint(1, 3), rng.choice([40, 88]), rng.choice([2, 4, 8]), rng.choice([True, False])
    targets = rng.choice([["all"], ["attention_qkv", "mlp_fc1"], ["attention_dense", "mlp"]])
    text = (f"model:\n  num_layers: {layers}\n  hidden_size: {hidden}\n  ffn_hidden_size: {ffn}\n"
            f"  num_attention_heads: {heads}\n  num_query_groups: {groups}\n"
            f"  normalization: rmsnorm\n  bias: False\n  activation: fast-swiglu\n  position_embedding_type: rope\n"
            f"  share_embeddings_and_output_weights: {tied}\n  make_vocab_size_divisible_by: 64\n"
            f"  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n"
            + NEMO_PEFT.format(dim=dim, targets=targets))
    model = nemo_lora_model(text)
    phi3 = dict(model_type="phi3", architectures=["Phi3ForCausalLM"], vocab_size=_pad(50257, 64), hidden_size=hidden,
                num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=groups,
                intermediate_size=ffn, tie_word_embeddings=tied)
    names = {"attention_qkv": "qkv_proj", "attention_dense": "o_proj", "mlp_fc1": "gate_up_proj", "mlp_fc2": "down_proj"}
    expand = {"attention": ["attention_qkv", "attention_dense"], "mlp": ["mlp_fc1", "mlp_fc2"], "all": list(names)}
    peft_targets = sorted({names[g] for t in targets for g in expand.get(t, [t])})
    assert (model.tree.total, model.tree.trainable) == peft_counts(phi3, dim, peft_targets)


# NeMo's canonical LoRA splits the fused adapters (LoraUnfusedKQVAdapter: q hidden → hidden, k and v hidden →
# kv_channels·groups; LoraUnfusedHto4HAdapter: gate and up, half of fc1 each), which is peft's LoRA on Llama's
# separate q/k/v_proj and gate/up_proj where the query heads span the hidden width. NeMo's IA3 (scalers on the
# keys, the values and the MLP's activations) is peft's IA3 on k_proj and v_proj (their outputs) and down_proj
# (its input, a feed-forward module).
NEMO_LLAMA = ("model:\n  num_layers: {layers}\n  hidden_size: {hidden}\n  ffn_hidden_size: {ffn}\n"
              "  num_attention_heads: {heads}\n  num_query_groups: {groups}\n  normalization: rmsnorm\n  bias: False\n"
              "  activation: fast-swiglu\n  position_embedding_type: rope\n  share_embeddings_and_output_weights: False\n"
              "  make_vocab_size_divisible_by: 64\n  tokenizer:\n    library: megatron\n    type: GPT2BPETokenizer\n"
              "  peft:\n    peft_scheme: {scheme}\n")
LLAMA_LINEARS = {"attention_qkv": ["q_proj", "k_proj", "v_proj"], "attention_dense": ["o_proj"],
                 "mlp_fc1": ["gate_proj", "up_proj"], "mlp_fc2": ["down_proj"]}
NEMO_GROUPS = {"attention": ["attention_qkv", "attention_dense"], "mlp": ["mlp_fc1", "mlp_fc2"], "all": list(LLAMA_LINEARS)}


def _nemo_llama(rng: random.Random, scheme: str) -> tuple[dict, str]:
    groups = rng.choice([1, 2])
    heads = groups * rng.choice([2, 4])
    hidden, layers, ffn = heads * rng.choice([8, 16]), rng.randint(1, 3), rng.choice([40, 88])
    llama = dict(model_type="llama", architectures=["LlamaForCausalLM"], vocab_size=_pad(50257, 64), hidden_size=hidden,
                 num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=groups, intermediate_size=ffn,
                 tie_word_embeddings=False)
    return llama, NEMO_LLAMA.format(layers=layers, hidden=hidden, ffn=ffn, heads=heads, groups=groups, scheme=scheme)


@pytest.mark.parametrize("seed", range(5))
def test_nemo_canonical_lora_matches_peft_on_llama(seed):
    from .test_lora_parity import peft_counts

    rng = random.Random(70 + seed)
    llama, text = _nemo_llama(rng, "lora")
    dim = rng.choice([2, 4, 8])
    targets = rng.choice([["all"], ["attention_qkv"], ["attention_qkv", "mlp_fc1"], ["mlp"], ["attention", "mlp_fc1"]])
    text += f"    lora_tuning:\n      variant: canonical\n      adapter_dim: {dim}\n      target_modules: {targets}\n"
    model = nemo_lora_model(text)
    peft_targets = sorted({n for t in targets for g in NEMO_GROUPS.get(t, [t]) for n in LLAMA_LINEARS[g]})
    assert (model.tree.total, model.tree.trainable) == peft_counts(llama, dim, peft_targets)
    assert model.plan["lora_rank"] == dim


def peft_ia3_counts(config: dict, layers: list[int] | None) -> tuple[int, int]:
    import torch
    import transformers
    from peft import IA3Config, get_peft_model
    from transformers import CONFIG_MAPPING

    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    # IA3Config takes no layers_to_transform: a regex over the module names selects the layers.
    chosen = "|".join(map(str, layers)) if layers is not None else r"\d+"
    ia3 = IA3Config(target_modules=rf".*\.layers\.({chosen})\.(self_attn\.[kv]_proj|mlp\.down_proj)",
                    feedforward_modules=r".*\.mlp\.down_proj")
    with torch.device("meta"):
        model = get_peft_model(getattr(transformers, config["architectures"][0])(cfg), ia3)
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


@pytest.mark.parametrize("seed", range(5))
def test_nemo_ia3_matches_peft_on_llama(seed):
    rng = random.Random(80 + seed)
    llama, text = _nemo_llama(rng, "ia3")
    layers = llama["num_hidden_layers"]
    chosen = sorted(rng.sample(range(1, layers + 1), rng.randint(1, layers))) if rng.random() < 0.5 else None
    if chosen is not None:
        text += f"    ia3_tuning:\n      layer_selection: {chosen}\n"
    model = nemo_lora_model(text)
    expected = peft_ia3_counts(llama, [n - 1 for n in chosen] if chosen is not None else None)
    assert (model.tree.total, model.tree.trainable) == expected
    assert model.tree.trainable < model.tree.total
