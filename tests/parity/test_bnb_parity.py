"""Parity for bitsandbytes-quantized weights: the bytes lsp-count gives a model loaded in NF4 or
LLM.int8 equal those of the model transformers loads with bitsandbytes (on the CPU, from a saved
checkpoint), its quantization statistics included, and the tensors a class keeps in float32 (T5's
``wo``, its _keep_in_fp32_modules) stay unquantized, in the compute dtype or float32 under float16, as do
transformers 5's fused MoE experts and the routers no plain nn.Linear holds (bitsandbytes replaces nn.Linear alone).

bitsandbytes is read in a child process (bnb_runner.py), from the sidecar scripts/test.sh installs."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.precision import weights_bytes

pytestmark = pytest.mark.parity

SIDECAR = pathlib.Path(sys.prefix) / "bnb-sidecar"
RUNNER = pathlib.Path(__file__).with_name("bnb_runner.py")

T5 = dict(model_type="t5", architectures=["T5ForConditionalGeneration"], num_layers=2, d_model=64, d_ff=128,
          num_heads=2, d_kv=32, vocab_size=100)
LLAMA = dict(model_type="llama", architectures=["LlamaForCausalLM"], num_hidden_layers=2, hidden_size=64,
             intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
             tie_word_embeddings=False)
NF4 = {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}
SMALL = dict(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
             vocab_size=100, tie_word_embeddings=False)
# transformers 5's fused experts and its routers that are no plain nn.Linear (a parameter of the router module:
# Mixtral, Qwen3-MoE, GraniteMoE; an nn.Linear subclass: PhiMoE) stay in the compute dtype; routers holding an
# nn.Linear (Switch's router.classifier, JetMoE's router.layer) and per-expert nn.Linear (JetMoE) are quantized.
MIXTRAL = dict(model_type="mixtral", architectures=["MixtralForCausalLM"], num_local_experts=4, num_experts_per_tok=2,
               **SMALL)
QWEN3_MOE = dict(model_type="qwen3_moe", architectures=["Qwen3MoeForCausalLM"], num_experts=4, num_experts_per_tok=2,
                 moe_intermediate_size=32, **SMALL)
PHIMOE = dict(model_type="phimoe", architectures=["PhimoeForCausalLM"], num_local_experts=4, num_experts_per_tok=2,
              pad_token_id=0, bos_token_id=1, eos_token_id=2, **SMALL)
GRANITEMOE = dict(model_type="granitemoe", architectures=["GraniteMoeForCausalLM"], num_local_experts=4,
                  num_experts_per_tok=2, **SMALL)
SWITCH = dict(model_type="switch_transformers", architectures=["SwitchTransformersForConditionalGeneration"],
              num_layers=2, num_decoder_layers=2, d_model=64, d_ff=128, num_heads=2, d_kv=32, vocab_size=100,
              num_experts=4, num_sparse_encoder_layers=1, num_sparse_decoder_layers=1)
JETMOE = dict(model_type="jetmoe", architectures=["JetMoeForCausalLM"], num_hidden_layers=2, hidden_size=64,
              intermediate_size=128, num_attention_heads=4, kv_channels=16, num_local_experts=4, num_experts_per_tok=2,
              vocab_size=100, tie_word_embeddings=False)
# Output layers of other names and classes: GPT-NeoX's, a classifier's score, GPT-2's Conv1D projections.
GPT_NEOX = dict(model_type="gpt_neox", architectures=["GPTNeoXForCausalLM"], num_hidden_layers=2, hidden_size=64,
                intermediate_size=128, num_attention_heads=4, vocab_size=100)
LLAMA_CLASSIFIER = {**LLAMA, "architectures": ["LlamaForSequenceClassification"], "num_labels": 3, "pad_token_id": 0}
GPT2 = dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], n_layer=2, n_embd=64, n_head=4, vocab_size=100)
# Linear layers whose class is not nn.Linear itself, which bitsandbytes leaves in the compute dtype: Falcon's
# FalconLinear (every projection), DeepSeek-V4's grouped o_a_proj. (DeepSeek-V4's compressors are in its float32 list.)
FALCON = dict(model_type="falcon", architectures=["FalconForCausalLM"], num_hidden_layers=2, hidden_size=64,
              num_attention_heads=4, vocab_size=100)
DEEPSEEK_V4 = dict(model_type="deepseek_v4", architectures=["DeepseekV4ForCausalLM"], vocab_size=10, hidden_size=16,
                   num_hidden_layers=3, num_attention_heads=2, head_dim=8, q_lora_rank=4, n_routed_experts=2,
                   num_experts_per_tok=1, moe_intermediate_size=8, o_groups=2, o_lora_rank=3, index_n_heads=2,
                   index_head_dim=4, sliding_window=4, hc_mult=2,
                   layer_types=["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
                   compress_rates={"compressed_sparse_attention": 2, "heavily_compressed_attention": 3})
# transformers' get_keys_to_not_convert: an untied output embedding of another name (RemBERT's MLM decoder), a CTC
# head with no output embeddings, whose last parameter is a bias (converted), the last parameter's module (CLIP's
# text_projection), tied modules (Zamba2's shared block); SigLIP's pooling MultiheadAttention out_proj, an nn.Linear
# subclass (kept).
REMBERT = dict(model_type="rembert", architectures=["RemBertForMaskedLM"], num_hidden_layers=2, hidden_size=64,
               num_attention_heads=4, intermediate_size=128, input_embedding_size=32, output_embedding_size=48,
               vocab_size=100)
WAV2VEC2_CTC = dict(model_type="wav2vec2", architectures=["Wav2Vec2ForCTC"], num_hidden_layers=2, hidden_size=64,
                    num_attention_heads=4, intermediate_size=128, vocab_size=40, conv_dim=[16, 16], conv_kernel=[10, 3],
                    conv_stride=[5, 2], num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
SIGLIP_VISION = dict(model_type="siglip_vision_model", architectures=["SiglipVisionModel"], num_hidden_layers=2,
                     hidden_size=64, num_attention_heads=4, intermediate_size=128, image_size=32, patch_size=8)
CLIP = dict(model_type="clip", architectures=["CLIPModel"], projection_dim=32,
            text_config=dict(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                             vocab_size=100),
            vision_config=dict(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                               image_size=32, patch_size=8))
ZAMBA2 = dict(model_type="zamba2", architectures=["Zamba2ForCausalLM"], hidden_size=64, vocab_size=100,
              num_hidden_layers=4, layers_block_type=["mamba", "hybrid", "mamba", "hybrid"], num_attention_heads=2,
              intermediate_size=128, mamba_expand=2, n_mamba_heads=2, mamba_d_state=4, mamba_d_conv=3, adapter_rank=2)
# AFMoE's router holds a plain nn.Linear gate (router.gate), which bitsandbytes quantizes.
AFMOE = dict(model_type="afmoe", architectures=["AfmoeForCausalLM"], num_hidden_layers=3, num_dense_layers=1,
             hidden_size=64, intermediate_size=128, moe_intermediate_size=32, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, vocab_size=100, num_experts=4, num_experts_per_tok=2,
             num_shared_experts=1, tie_word_embeddings=False)
# (config, bitsandbytes' quantization, the load dtype, lsp-count's storage dtype)
CASES = [
    (T5, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (T5, {**NF4, "bnb_4bit_compute_dtype": "float16"}, "float16", "nf4"),
    (T5, {"load_in_8bit": True}, "float16", "int8"),
    ({**T5, "model_type": "mt5", "architectures": ["MT5ForConditionalGeneration"], "feed_forward_proj": "gated-gelu"},
     {**NF4, "bnb_4bit_compute_dtype": "float16"}, "float16", "nf4"),
    (LLAMA, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (LLAMA, {"load_in_8bit": True}, "float16", "int8"),
    (MIXTRAL, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (QWEN3_MOE, {"load_in_8bit": True}, "float16", "int8"),
    (PHIMOE, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (GRANITEMOE, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (SWITCH, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (JETMOE, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (GPT_NEOX, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (LLAMA_CLASSIFIER, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (GPT2, {"load_in_8bit": True}, "float16", "int8"),
    (FALCON, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    (FALCON, {"load_in_8bit": True}, "float16", "int8"),
    (DEEPSEEK_V4, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4"),
    *((config, {**NF4, "bnb_4bit_compute_dtype": "bfloat16"}, "bfloat16", "nf4")
      for config in (REMBERT, WAV2VEC2_CTC, SIGLIP_VISION, CLIP, ZAMBA2, AFMOE)),
]


def _loaded() -> list[dict]:
    if not (SIDECAR / "bitsandbytes").is_dir():
        pytest.fail(f"bitsandbytes is not installed in {SIDECAR} (scripts/test.sh installs it)")
    cases = [{"config": config, "quantization": quantization, "dtype": dtype} for config, quantization, dtype, _s in CASES]
    out = subprocess.run([sys.executable, str(RUNNER), str(SIDECAR)], input=json.dumps(cases), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_bitsandbytes_weights_and_the_tensors_it_leaves_unquantized_are_lsp_count_s() -> None:
    for (config, _quantization, dtype, storage), loaded in zip(CASES, _loaded()):
        tree = analyze_text(json.dumps(config), "/nonexistent/config.json").models[0].tree
        assert weights_bytes(tree, storage, dtype) == loaded["bytes"], (config["model_type"], storage, dtype)
        kept = {name: kind for name, kind in loaded["float"].items() if name.endswith("wo.weight")}
        if config["model_type"] in ("t5", "mt5"):
            assert kept and set(kept.values()) == {"float32" if dtype == "float16" else dtype}, kept
        if config in (MIXTRAL, QWEN3_MOE, PHIMOE, GRANITEMOE):
            assert any(name.endswith("experts.gate_up_proj") for name in loaded["float"]), loaded["float"]
