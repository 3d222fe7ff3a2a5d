"""LoRA adapters as parameters in the tree, counted as peft counts them.

peft wraps each targeted ``nn.Linear(in, out)`` with ``lora_A`` (``r × in``) and
``lora_B`` (``out × r``), no biases: ``r·(in + out)`` trainable parameters per
adapted matrix (DoRA adds a magnitude vector of ``out``). The base model's
parameters stay and are frozen, so ``total`` = base + adapters (what
``sum(p.numel() for p in peft_model.parameters())`` gives) and ``trainable`` =
adapters.

Targets as the tools spell them:

* a list of module names: peft matches a module whose dotted name equals the
  target or ends with ``.target``;
* a string: peft ``re.fullmatch``es it against the full module name as
  transformers gives it (``model.layers.0.self_attn.q_proj``, gpt2
  ``transformer.h.0.attn.c_attn``: ``MODULE_PATHS``; T5
  ``decoder.block.0.layer.1.EncDecAttention.q``: ``SEQ2SEQ_PATHS``);
* "all linear": every linear layer but the output head (peft ``all-linear``,
  axolotl ``lora_target_linear``, LLaMA-Factory ``lora_target: all``).

transformers 5 fuses MoE experts into 3-D parameters; peft reaches them (and the
router, no longer an nn.Linear) only through its v4 -> v5 config conversion, which
this module replays (``PEFT_MOE_CONVERSION``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from lsp_count.core.layouts.multimodal import RETRIEVAL_PROJECTION_NODE, retriever_vlm
from lsp_count.core.layouts.seq2seq import switch_sparse_layers
from lsp_count.core.memory import is_output_head, peft_refuses_lora
from lsp_count.core.params import ParamNode, ParamTree, Tensor
from lsp_count.core.precision import is_bare_router

if TYPE_CHECKING:
    from lsp_count.core.spec import ModelSpec

# The output layer "all linear" leaves out (peft: the model's output embeddings; Whisper's is proj_out).
HEAD_MODULES = frozenset({"lm_head", "score", "embed_out", "output_layer", "proj_out", "output_projection"})
# Families whose output layer all-linear adapts: peft leaves out get_output_embeddings(), which for FSMT is
# decoder.embed_tokens (an nn.Embedding), so its decoder.output_projection is adapted like any linear layer.
# (Tied, FSMT's projection has no tensor of its own in the tree: that adapter is not counted.) BeitForMaskedImageModeling's
# get_output_embeddings() is None: its lm_head (over the visual tokens) is adapted too.
OUTPUT_LAYER_ADAPTED = frozenset({"fsmt", "beit"})
# Decoder families whose router module is itself an nn.Linear (PhimoeTopKRouter): peft adapts it as one.
# (DBRX's router module holds one, router.layer, adapted as a linear layer there.)
# (Llama 4's composite holds llama4_text's, an nn.Linear Llama4Router.)
LINEAR_ROUTER_FAMILIES = frozenset({"phimoe", "dbrx", "llama4_text", "jetmoe", "llama4"})
ADAPTER_NODE = "adapters"
MAX_REGEX_LENGTH = 2000


@dataclass(frozen=True)
class ModulePaths:
    """Where a family's modules sit in ``named_modules()``: the stack of layers and each tree node's attribute."""

    layers: str = "model.layers"
    segments: tuple[tuple[str, str], ...] = ()  # tree node name -> attribute ("" = the module sits on its parent)
    top: tuple[tuple[str, str], ...] = ()  # top-level tree node -> attribute path (OPT's projections)
    # The head class's own modules, at its top, beside HEAD_MODULES (CTRL's and BioGPT's classifier)
    heads: frozenset[str] = frozenset()
    # Stacks the tree's layers split evenly among, in order, each numbering its own from 0 (HRM-Text's
    # model.L_module.layers and model.H_module.layers); empty: all in ``layers``.
    stacks: tuple[str, ...] = ()
    # The modules outside the layers the family names otherwise than the tree (GPT-2's wte, wpe, ln_f for the
    # tree's embed_tokens, embed_positions, norm; GPT-NeoX's embed_in): tree name -> the family's.
    renamed: tuple[tuple[str, str], ...] = ()


_LLAMA_SEGMENTS = (("attention", "self_attn"), ("mlp", "mlp"), ("moe", "mlp"), ("router", ""), ("experts", "experts"),
                   ("shared_experts", "shared_experts"), ("shared_expert_gate", ""), ("mixer", "mixer"))
_LLAMA = ModulePaths("model.layers", _LLAMA_SEGMENTS)


def _paths(layers: str, renamed: dict[str, str] | None = None, **seg: str) -> ModulePaths:
    return ModulePaths(layers, tuple({**dict(_LLAMA_SEGMENTS), **seg}.items()), renamed=tuple((renamed or {}).items()))


_WTE_LN_F = {"embed_tokens": "wte", "norm": "ln_f"}
_GPT2_TOP = {**_WTE_LN_F, "embed_positions": "wpe"}
_NEOX_TOP = {"embed_tokens": "embed_in", "norm": "final_layer_norm"}


# Module paths as transformers names them, by model_type (the rest are llama-shaped: model.layers.N.self_attn.q_proj).
MODULE_PATHS: dict[str, ModulePaths] = {
    "gpt2": _paths("transformer.h", _GPT2_TOP, attention="attn"),
    "gpt-sw3": _paths("transformer.h", _GPT2_TOP, attention="attn"),  # (GPT-2's classes)
    # Mllama's text model (MllamaForCausalLM): its cross-attention layers' model.layers.N.cross_attn.q_proj.
    "mllama_text_model": _paths("model.layers", cross_attention="cross_attn"),
    "gptj": _paths("transformer.h", _WTE_LN_F, attention="attn"),
    # The classic decoders (layouts/classic.py): GPT-1's transformer.h.N.attn.c_attn (Conv1D) and its double-heads
    # class's multiple_choice_head.summary; CTRL's transformer.h.N.multi_head_attention.Wq, ...ffn.0 and its
    # classifier; XGLM's model.layers.N.self_attn.q_proj, ...encoder_attn.q_proj, ...fc1; BioGPT's biogpt.layers.N...
    "openai-gpt": ModulePaths("transformer.h", _paths("", attention="attn").segments,
                              (("multiple_choice_head", "multiple_choice_head"),)),
    "ctrl": replace(_paths("transformer.h", attention="multi_head_attention", mlp=""), heads=frozenset({"classifier"})),
    "xglm": _paths("model.layers", mlp="", cross_attention="encoder_attn"),
    "biogpt": replace(_paths("biogpt.layers", mlp=""), heads=frozenset({"classifier"})),
    "gpt_neox": _paths("gpt_neox.layers", _NEOX_TOP, attention="attention"),
    "gpt_neox_japanese": _paths("gpt_neox_japanese.layers", _NEOX_TOP, attention="attention"),
    "falcon": _paths("transformer.h", {"embed_tokens": "word_embeddings", "norm": "ln_f"}, attention="self_attention"),
    "bloom": _paths("transformer.h", {"embed_tokens": "word_embeddings", "embed_layernorm": "word_embeddings_layernorm",
                                      "norm": "ln_f"}, attention="self_attention"),
    "opt": ModulePaths("model.decoder.layers", tuple({**dict(_LLAMA_SEGMENTS), "mlp": ""}.items()),
                       (("projections", "model.decoder"),)),
    "phi": _paths("model.layers", {"norm": "final_layernorm"}),
    "persimmon": _paths("model.layers", {"norm": "final_layernorm"}),
    "mamba": _paths("backbone.layers"),
    "mamba2": _paths("backbone.layers"),
    "qwen2_moe": _paths("model.layers", shared_experts="shared_expert"),
    "gpt_bigcode": _paths("transformer.h", _GPT2_TOP, attention="attn"),
    "granitemoe": _paths("model.layers", moe="block_sparse_moe"),
    "hunyuan_v1_moe": _paths("model.layers", router="gate", shared_experts="shared_mlp"),
    "gpt_neo": _paths("transformer.h", _GPT2_TOP, attention="attn.attention"),
    "codegen": _paths("transformer.h", _WTE_LN_F, attention="attn"),
    "mpt": _paths("transformer.blocks", {"embed_tokens": "wte", "norm": "norm_f"}, attention="attn", mlp="ffn"),
    # (its only adapted module under the MoE block is the shared expert, which sits on the layer itself)
    "granitemoeshared": _paths("model.layers", moe="", shared_experts="shared_mlp"),
    "dbrx": _paths("transformer.blocks", attention="norm_attn_norm.attn", moe="ffn", router="router"),
    "llama4_text": _paths("model.layers", mlp="feed_forward", moe="feed_forward", shared_experts="shared_expert"),
    "jetmoe": _paths("model.layers", attention="self_attention", attention_router="experts.router", router="router"),
    "flint": _paths("model.layers", shared_experts="shared_expert"),
    # hybrids (layouts/hybrid.py; their layers' indices by kind: apply_lora's layer_indices)
    "jamba": _paths("model.layers", moe="feed_forward"),
    "granitemoehybrid": _paths("model.layers", moe="block_sparse_moe"),
    "nemotron_h": _paths("model.layers", attention="mixer", moe="mixer", latent_projections=""),
    "qwen3_next": _paths("model.layers", shared_experts="shared_expert"),
    "qwen3_5_moe_text": _paths("model.layers", shared_experts="shared_expert"),
    "lfm2_moe": _paths("model.layers", moe="feed_forward"),
    "lfm3": _paths("model.layers", mlp="feed_forward"),
    "lara_mini": _paths("model.layers", shared_experts="shared_expert"),
    "falcon_mamba": _paths("backbone.layers"),
    # Zamba and Zamba2 (layouts/zamba.py): the layer kinds' nodes are no modules (model.layers.N.mamba.in_proj,
    # model.layers.N.mamba_decoder.mamba.in_proj, model.layers.N.linear)
    "zamba": _paths("model.layers", mamba_layers="", attention_layers=""),
    "zamba2": _paths("model.layers", mamba2_layers="", attention_mamba2_layers=""),
    # RecurrentGemma: model.layers.N.temporal_block.{q_proj, ..., linear_x, linear_y, linear_out}, ...mlp_block.gate_proj
    "recurrent_gemma": _paths("model.layers", attention="temporal_block"),
    # LongCat-Flash: two attention sublayers and two dense MLPs a layer (self_attn.0 / .1, mlps.0 / .1), the shortcut
    # MoE at mlp, its router an nn.Linear (mlp.router.classifier).
    "longcat_flash": _paths("model.layers", attention_0="self_attn.0", attention_1="self_attn.1", mlp_0="mlps.0",
                            mlp_1="mlps.1", router="router"),
    # Gemma 4 (layouts/gemma4.py; its layers' indices by kind too): the router's proj, the experts and the per-layer
    # input projections sit on the layer; per_layer_model_projection on the model.
    "gemma4_text": ModulePaths("model.layers", tuple({**dict(_LLAMA_SEGMENTS), "moe": "", "per_layer_input": ""}.items()),
                               (("per_layer_inputs", "model"),)),
    # Gemma 3n (layouts/gemma3n.py; its runs of layers numbered by layer_indices): the per-layer input projections
    # sit on the layer, AltUp and Laurel under their own names (model.layers.N.altup.modality_router);
    # per_layer_model_projection and the AltUp projections (model.altup_projections.0) on the model.
    "gemma3n_text": ModulePaths("model.layers", tuple({**dict(_LLAMA_SEGMENTS), "per_layer_input": ""}.items()),
                                (("per_layer_inputs", "model"), ("altup", "model"))),
    # HRM-Text: its layers in two stacks, model.L_module.layers.N and model.H_module.layers.N
    "hrm_text": replace(_LLAMA, stacks=("model.L_module.layers", "model.H_module.layers")),
}


# peft 0.22 on transformers 5: the fused MoE experts (``experts.gate_up_proj`` / ``experts.down_proj``, 3-D
# parameters) and the router (a custom module, not nn.Linear) are reached only through peft's v4 -> v5 config
# conversion (peft/utils/transformers_weight_conversion.py). It runs for the model types transformers'
# _MODEL_TO_CONVERSION_PATTERN maps to a MoE pattern peft knows (plus mixtral and qwen2_moe, which peft adds), and
# rewrites the v4 names: the router ``gate`` -> parameter ``gate.weight``; the expert projections -> ``gate_up_proj``
# (both halves must be targeted; its rank and alpha double) and ``down_proj``. A name that reaches only nn.Linear
# modules (DeepSeek's dense and shared-expert gate/up/down_proj) stays a module target as well (_convert_moe).
# tests/parity/test_lora_parity.py checks this table.
_MOE_STYLES: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    # style: (v4 name -> v5 parameter target, in order), the fused pair of gate_up_proj
    "mixtral": ((("gate", "gate.weight"), ("w1", "gate_up_proj"), ("w3", "gate_up_proj"), ("w2", "down_proj")),
                ("w1", "w3")),
    "qwen2_moe": ((("gate", "gate.weight"), ("gate_proj", "gate_up_proj"), ("up_proj", "gate_up_proj"),
                   ("down_proj", "down_proj")), ("gate_proj", "up_proj")),
}
PEFT_MOE_CONVERSION: dict[str, str] = {"mixtral": "mixtral", "qwen3_moe": "qwen2_moe", "deepseek_v2": "qwen2_moe",
                                       "deepseek_v3": "qwen2_moe", "olmoe": "qwen2_moe", "glm4_moe": "qwen2_moe",
                                       "hunyuan_v1_moe": "qwen2_moe", "dots1": "qwen2_moe", "glm4_moe_lite": "qwen2_moe",
                                       "ernie4_5_moe": "qwen2_moe", "deepseek_v32": "qwen2_moe", "qwen3_next": "qwen2_moe",
                                       "minimax": "mixtral", "minimax_m2": "mixtral", "flex_olmo": "qwen2_moe", "solar_open": "qwen2_moe",
                                       "exaone_moe": "qwen2_moe", "afmoe": "qwen2_moe", "cohere2_moe": "qwen2_moe",
                                       "glm_moe_dsa": "qwen2_moe", "glm4v_moe": "qwen2_moe", "qwen2_moe": "qwen2_moe",
                                       "longcat_flash": "qwen2_moe", "mellum": "qwen2_moe", "sarvam_mla": "qwen2_moe",
                                       "beam": "qwen2_moe"}


@dataclass(frozen=True)
class Seq2SeqPaths:
    """Where an encoder-decoder family's modules sit: the stacks' parent (by head class), the block list, and each
    tree node's attribute per stack (T5 numbers the sub-layers inside a block: layer.0, layer.1, layer.2)."""

    body: str = "model"  # what holds encoder / decoder in the head classes
    blocks: str = "layers"
    segments: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # stack -> (tree node -> attribute)
    expert: str = ""  # one expert's module under the experts node (Switch: expert_{e})
    lm_head: str = ""  # the output layer's path under the body where a stack holds it (FSMT: decoder.output_projection)


_T5_ATTN = (("self_attention", "layer.0.SelfAttention"),)
_T5_DECODER_ATTN = _T5_ATTN + (("cross_attention", "layer.1.EncDecAttention"),)
_BART_SEGMENTS = (("self_attention", "self_attn"), ("cross_attention", "encoder_attn"), ("mlp", ""))
_SWITCH_MOE = (("router", "router"), ("experts", "experts"))

# Module paths as transformers 5 names them, by model_type (checked by tests/parity/test_lora_seq2seq_parity.py).
_T5_PATHS = Seq2SeqPaths("", "block", (("encoder", _T5_ATTN + (("mlp", "layer.1.DenseReluDense"),)),
                                        ("decoder", _T5_DECODER_ATTN + (("mlp", "layer.2.DenseReluDense"),))))
SEQ2SEQ_PATHS: dict[str, Seq2SeqPaths] = {
    "t5": _T5_PATHS, "mt5": _T5_PATHS, "umt5": _T5_PATHS,
    # Switch: dense blocks keep their MLP as layer.N.mlp; sparse ones hold router.classifier and one
    # nn.Linear pair per expert (experts.expert_E.wi / wo), not fused parameters.
    "switch_transformers": Seq2SeqPaths("", "block", (
        ("encoder", _T5_ATTN + (("mlp", "layer.1.mlp"), ("moe", "layer.1.mlp")) + _SWITCH_MOE),
        ("decoder", _T5_DECODER_ATTN + (("mlp", "layer.2.mlp"), ("moe", "layer.2.mlp")) + _SWITCH_MOE)),
        "expert_{e}"),
    "bart": Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS))),
    "mbart": Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS))),
    "whisper": Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS))),
    **{model_type: Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS)))
       for model_type in ("pegasus", "marian", "blenderbot", "blenderbot-small", "plbart", "mvp",
                          "m2m_100")},
    # FSMT: BART's names; its output projection is the decoder's own module, in FSMTModel too.
    "fsmt": Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS)),
                         lm_head="decoder.output_projection"),
    # LongT5: T5's paths, the encoder's self-attention under layer.0 by its kind (the tree's tensor names carry
    # LocalSelfAttention.q or TransientGlobalSelfAttention.q).
    "longt5": Seq2SeqPaths("", "block", (("encoder", (("self_attention", "layer.0"), ("mlp", "layer.1.DenseReluDense"))),
                                         ("decoder", _T5_DECODER_ATTN + (("mlp", "layer.2.DenseReluDense"),)))),
    # LED: the stacks under `led`; the encoder's self_attn holds longformer_self_attn.{query,key,value,*_global}
    # and output (the tree's tensor names carry that inner path).
    "led": Seq2SeqPaths("led", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS))),
    # NLLB-MoE: a layer's feed-forward under ffn, dense (ffn.fc1) or sparse (ffn.router.classifier,
    # ffn.experts.expert_E.fc1); the decoder's cross-attention is cross_attention.
    "nllb-moe": Seq2SeqPaths("model", "layers", tuple(
        (stack, (("self_attention", "self_attn"),) + cross + (("mlp", "ffn"), ("moe", "ffn")) + _SWITCH_MOE)
        for stack, cross in (("encoder", ()), ("decoder", (("cross_attention", "cross_attention"),)))), "expert_{e}"),
    # BigBird-Pegasus: BART's paths; the encoder's self_attn holds self.{query,key,value} and output.
    "bigbird_pegasus": Seq2SeqPaths("model", "layers", (("encoder", _BART_SEGMENTS), ("decoder", _BART_SEGMENTS))),
}
# Head classes whose stacks sit elsewhere than the family's body (the bare models hold them at the top).
_SEQ2SEQ_BODY = {"T5ForSequenceClassification": "transformer", "MT5ForSequenceClassification": "transformer",
                 "UMT5ForSequenceClassification": "transformer", "T5ForTokenClassification": "transformer",
                 "MT5ForTokenClassification": "transformer", "UMT5ForTokenClassification": "transformer",
                 "T5ForQuestionAnswering": "", "MT5ForQuestionAnswering": "", "UMT5ForQuestionAnswering": "",
                 "WhisperForAudioClassification": "", "MarianMTModel": "model"}
@dataclass(frozen=True)
class EncoderPaths:
    """Where a single-stack encoder's modules sit: the base model's attribute in the head classes (the
    bare class holds its stack at the top), the layer list under it, and the tree's top-level nodes
    that are the base model's (the others, classifier and MLM head, are the head class's own). A
    tensor's name is its module's path inside its layer or its model ("attention.self.query.weight")."""

    body: str
    layers: str
    body_nodes: frozenset[str] = frozenset({"embeddings", "embedding_projection", "pooler", "pre_norm", "final_norm"})
    # ALBERT's stored layers sit in groups: {layers}.{group}.albert_layers.{layer in the group}.
    inner: str = ""
    # Head classes whose name does not say so (no "For"): BertGenerationDecoder holds its stack under bert.
    head_classes: frozenset[str] = frozenset()
    # Layer stacks of a head class's own beside the body's, by tree node: (node, its layer list's path in the class),
    # ViTMAEForPreTraining's decoder (decoder.decoder_layers.N.attention.q_proj).
    head_stacks: tuple[tuple[str, str], ...] = ()
    # A hierarchical encoder's blocks, a list per stage (tree: stages > stage_<s> > blocks), as its path with {stage}:
    # Swin's encoder.layers.{stage}.blocks (its blocks' modules: encoder.layers.1.blocks.0.attention.q_proj).
    stage_blocks: str = ""


# The speech layout's top-level nodes that are the base model's (the rest are the head class's own).
_SPEECH_BODY_NODES = frozenset({"feature_encoder", "embeddings", "relative_position_bias", "final_norm", "upsample",
                                "adapter"})
# Module paths as transformers 5 names them, by model_type (checked by tests/parity/test_lora_parity.py).
ENCODER_PATHS: dict[str, EncoderPaths] = {
    "bert": EncoderPaths("bert", "encoder.layer"),
    "roberta": EncoderPaths("roberta", "encoder.layer"),
    "xlm-roberta": EncoderPaths("roberta", "encoder.layer"),
    "camembert": EncoderPaths("roberta", "encoder.layer"),
    "data2vec-text": EncoderPaths("data2vec_text", "encoder.layer"),
    "xlm-roberta-xl": EncoderPaths("roberta", "encoder.layer"),
    "roberta-prelayernorm": EncoderPaths("roberta_prelayernorm", "encoder.layer"),
    "megatron-bert": EncoderPaths("bert", "encoder.layer"),
    "electra": EncoderPaths("electra", "encoder.layer"),
    "roformer": EncoderPaths("roformer", "encoder.layer"),
    "rembert": EncoderPaths("rembert", "encoder.layer"),
    "distilbert": EncoderPaths("distilbert", "transformer.layer"),
    "vit": EncoderPaths("vit", "layers"),
    "modernbert": EncoderPaths("model", "layers"),
    "albert": EncoderPaths("albert", "encoder.albert_layer_groups", inner="albert_layers"),
    # The speech encoders (layout "speech_encoder"): their tensors are named by their paths in the base model.
    **{model_type: EncoderPaths(body, "encoder.layers", _SPEECH_BODY_NODES)
       for model_type, body in (("wav2vec2", "wav2vec2"), ("hubert", "hubert"), ("data2vec-audio", "data2vec_audio"),
                                ("wavlm", "wavlm"), ("unispeech", "unispeech"), ("unispeech-sat", "unispeech_sat"),
                                ("sew", "sew"), ("wav2vec2-conformer", "wav2vec2_conformer"))},
    # Wav2Vec2-BERT: wav2vec2-conformer's names, the adapter's layers (adapter.layers.N.self_attn.linear_q, ffn...)
    # and the feed-forward before it (intermediate_ffn.intermediate_dense) the base model's.
    "wav2vec2-bert": EncoderPaths("wav2vec2_bert", "encoder.layers", _SPEECH_BODY_NODES | {"intermediate_ffn"}),
    # SEW-D: DeBERTa-v2's layers in its transformer encoder (sew_d.encoder.encoder.layer.N.attention.self.query_proj)
    "sew-d": EncoderPaths("sew_d", "encoder.encoder.layer", _SPEECH_BODY_NODES | {"relative_positions", "conv"}),
    # CLIP's and SigLIP's single towers: the stack at the top of the bare classes (transformers 5).
    **{f"{prefix}_vision_model": EncoderPaths("vision_model", "encoder.layers") for prefix in ("clip", "metaclip_2")},
    **{f"{prefix}_text_model": EncoderPaths("text_model", "encoder.layers") for prefix in ("clip", "metaclip_2")},
    "siglip_vision_model": EncoderPaths("vision_model", "encoder.layers"),
    "siglip_text_model": EncoderPaths("text_model", "encoder.layers"),
    # Chinese-CLIP's towers hold their modules at the top (a BERT text model: encoder.layer.N.attention.self.query).
    "chinese_clip_text_model": EncoderPaths("", "encoder.layer"),
    "chinese_clip_vision_model": EncoderPaths("", "encoder.layers"),
    "siglip2_vision_model": EncoderPaths("vision_model", "encoder.layers"),
    "siglip2_text_model": EncoderPaths("text_model", "encoder.layers"),
    "internvl_vision": EncoderPaths("", "encoder.layer"),  # InternVLVisionModel (bare only)
    # Idefics3VisionTransformer / SmolVLMVisionTransformer (bare only): encoder.layers.N.self_attn.q_proj, ...
    "idefics3_vision": EncoderPaths("", "encoder.layers"),
    "smolvlm_vision": EncoderPaths("", "encoder.layers"),
    # DeBERTa: the ContextPooler (pooler.dense) is the classifier classes' own, not the base model's.
    **{model_type: EncoderPaths("deberta", "encoder.layer", frozenset({"embeddings", "embedding_projection",
                                                                      "relative_positions", "conv"}))
       for model_type in ("deberta-v2", "deberta")},
    "mpnet": EncoderPaths("mpnet", "encoder.layer"),
    "gte": EncoderPaths("gte", "layers"),
    "nomic_bert": EncoderPaths("nomic_bert", "layers"),
    "eurobert": EncoderPaths("model", "layers"),
    "jina_embeddings_v3": EncoderPaths("roberta", "layers"),
    "esmc": EncoderPaths("esmc", "layers"),
    "dinov2": EncoderPaths("dinov2", "encoder.layer"),
    "dinov2_with_registers": EncoderPaths("dinov2_with_registers", "encoder.layer"),
    "deit": EncoderPaths("deit", "layers"),
    "vit_mae": EncoderPaths("vit", "layers", head_stacks=(("decoder", "decoder.decoder_layers"),)),
    "ijepa": EncoderPaths("ijepa", "layers"),
    "vit_msn": EncoderPaths("vit", "layers"),
    "yolos": EncoderPaths("vit", "encoder.layer"),
    "dinov3_vit": EncoderPaths("", "model.layer"),  # DINOv3ViTModel / DINOv3ViTBackbone: bare classes only
    # BEiT: beit.layers.N.attention.q_proj, mlp.fc1; Data2Vec-Vision: BERT's names under data2vec_vision.encoder.layer.
    "beit": EncoderPaths("beit", "layers"),
    "data2vec-vision": EncoderPaths("data2vec_vision", "encoder.layer"),
    # PixtralVisionModel (bare only): transformer.layers.N.attention.q_proj, ...feed_forward.gate_proj.
    "pixtral": EncoderPaths("", "transformer.layers"),
    # Gemma 4's towers on their own (Gemma4VisionModel, Gemma4AudioModel: bare only): their clippable linears' nn.Linear,
    # encoder.layers.N.self_attn.q_proj.linear / layers.N.lconv1d.linear_start.linear, patch_embedder.input_proj, ...
    "gemma4_vision": EncoderPaths("", "encoder.layers"),
    "gemma4_audio": EncoderPaths("", "layers"),
    # Gemma3nAudioEncoder: conformer.N.attention.attn.q_proj, subsample_conv_projection.input_proj_linear, ...
    "gemma3n_audio": EncoderPaths("", "conformer"),
    # Qwen2AudioEncoder / VoxtralEncoder (bare only): layers.N.self_attn.q_proj, layers.N.fc1, ...
    "qwen2_audio_encoder": EncoderPaths("", "layers"),
    "voxtral_encoder": EncoderPaths("", "layers"),
    # Llama4VisionModel (bare only): model.layers.N.self_attn.q_proj, patch_embedding.linear, vision_adapter.mlp.fc1.
    "llama4_vision_model": EncoderPaths("", "model.layers"),
    # ESM: esm.encoder.layer.N.attention.self.query, and the base model's contact head (esm.contact_head.regression).
    "esm": EncoderPaths("esm", "encoder.layer", frozenset({"embeddings", "pooler", "final_norm", "contact_head"})),
    "bert-generation": EncoderPaths("bert", "encoder.layer", head_classes=frozenset({"BertGenerationDecoder"})),
    "ernie": EncoderPaths("ernie", "encoder.layer"),
    "xmod": EncoderPaths("roberta", "encoder.layer"),
    "roc_bert": EncoderPaths("roc_bert", "encoder.layer"),
    "modernbert-decoder": EncoderPaths("model", "layers"),
    "layoutlm": EncoderPaths("layoutlm", "encoder.layer"),
    # Splinter's span selection head: splinter_qass.start_transform.dense, splinter_qass.start_classifier, ...
    "splinter": EncoderPaths("splinter", "encoder.layer"),
    # Swin, Swin V2, Donut's and MaskFormer's (layout "swin"): their tensors outside the blocks are named by their paths in the base model.
    **{model_type: EncoderPaths(body, "encoder.layers", frozenset({"embeddings", "stages", "final_norm"}),
                                stage_blocks="encoder.layers.{stage}.blocks")
       for model_type, body in (("swin", "swin"), ("swinv2", "swinv2"), ("donut-swin", "donut"))},
    # MaskFormerSwinBackbone holds the model under `model` (MaskFormerSwinModel: at the top).
    "maskformer-swin": EncoderPaths("model", "encoder.layers", frozenset({"embeddings", "stages", "final_norm"}),
                                    head_classes=frozenset({"MaskFormerSwinBackbone"}),
                                    stage_blocks="encoder.layers.{stage}.blocks"),
    "mobilebert": EncoderPaths("mobilebert", "encoder.layer"),
    "squeezebert": EncoderPaths("transformer", "encoder.layers"),
    "convbert": EncoderPaths("convbert", "encoder.layer"),
    "nystromformer": EncoderPaths("nystromformer", "encoder.layer"),
    "yoso": EncoderPaths("yoso", "encoder.layer"),
    "mra": EncoderPaths("mra", "encoder.layer"),
    "tapas": EncoderPaths("tapas", "encoder.layer"),
    "longformer": EncoderPaths("longformer", "encoder.layer"),
    "big_bird": EncoderPaths("bert", "encoder.layer"),
}


def _encoder_paths(tree_path: str, name: str, occurrences: int, paths: EncoderPaths, groups: int = 1) -> list[str]:
    """Full module names of a tensor named ``name`` at ``tree_path`` of an encoder (one per occurrence;
    ``groups``: ALBERT's num_hidden_groups, which share the occurrences equally)."""
    architecture, *parts = tree_path.split(".")
    module = name.rsplit(".", 1)[0]
    # "For" and a capital: RoFormerModel is a bare class, RoFormerForMaskedLM a head class.
    bare = not re.search(r"For[A-Z]", architecture) and not architecture.endswith(("LMHeadModel", "WithProjection")) \
        and architecture not in paths.head_classes
    body = "" if bare else paths.body + "."
    if parts and parts[0] == "layers" and paths.inner:
        per_group = max(1, occurrences // max(1, groups))
        return [f"{body}{paths.layers}.{i // per_group}.{paths.inner}.{i % per_group}.{module}" for i in range(occurrences)]
    head_stacks = dict(paths.head_stacks)
    if len(parts) > 1 and parts[0] in head_stacks and parts[1] == "layers":
        return [f"{head_stacks[parts[0]]}.{i}.{module}" for i in range(occurrences)]
    if paths.stage_blocks and len(parts) > 2 and parts[0] == "stages" and parts[2] == "blocks":
        stage = parts[1].rsplit("_", 1)[-1]
        return [f"{body}{paths.stage_blocks.format(stage=stage)}.{i}.{module}" for i in range(occurrences)]
    if parts and parts[0] == "layers":
        # ModernBERT's stack holds layer 0 (`layer`) apart from the others (`layers`, from 1 on).
        first = 1 if parts[1:2] == ["layers"] else 0
        return [f"{body}{paths.layers}.{first + i}.{module}" for i in range(occurrences)]
    if parts and parts[0] in paths.body_nodes:
        return [body + module] * occurrences
    return [module] * occurrences


@dataclass(frozen=True)
class SubModelPaths:
    """Where one sub-model of a vision-language model sits: its attribute under the composite's model
    ("language_model", "vision_tower"), its layer list under that ("layers", "encoder.layers",
    "blocks"), and the module attribute of each tree node inside it ("attention" -> "self_attn"; a
    node not listed adds nothing: its tensors' names hold the rest, "self_attn.q_proj")."""

    attribute: str
    layers: str = ""
    segments: tuple[tuple[str, str], ...] = ()
    # Repeated tree nodes that are a ModuleList of their own beside the layers (Qwen3-VL's DeepStack
    # mergers): tree node -> the list's attribute, its entries numbered as the layers are.
    lists: tuple[tuple[str, str], ...] = ()


_TEXT_MODEL = SubModelPaths("language_model", "layers", _LLAMA_SEGMENTS)
_VISION_TOWER = SubModelPaths("vision_tower", "encoder.layers")  # CLIP / SigLIP as transformers 5 nests them
_PROJECTOR = SubModelPaths("multi_modal_projector")
_QWEN_VISUAL = SubModelPaths("visual", "blocks", (("attention", "attn"), ("mlp", "mlp"), ("merger", "merger"),
                                                 ("patch_embed", "patch_embed")))
# Qwen3-VL's: blocks.N.mlp.linear_fc1, merger.linear_fc1 and deepstack_merger_list.N.linear_fc1.
_QWEN3_VISUAL = replace(_QWEN_VISUAL, lists=(("deepstack_merger_list", "deepstack_merger_list"),))
# Qwen3.5's hybrid text models: layers.N.linear_attn.in_proj_qkv beside layers.N.self_attn.q_proj (each kind's
# layers numbered by apply_lora's layer_indices); the MoE one's shared expert is mlp.shared_expert.
_QWEN3_5_TEXT = replace(_TEXT_MODEL, segments=_LLAMA_SEGMENTS + (("linear_attn", "linear_attn"),))
_QWEN3_5_MOE_TEXT = replace(_TEXT_MODEL, segments=tuple({**dict(_QWEN3_5_TEXT.segments),
                                                         "shared_experts": "shared_expert"}.items()))
# LFM2's text model (LFM2-VL's): short-conv layers (conv.in_proj) and attention layers, both with feed_forward.w1.
_LFM2_TEXT = replace(_TEXT_MODEL, segments=_LLAMA_SEGMENTS + (("conv", "conv"), ("feed_forward", "feed_forward")))
# Mllama's text model: layers.N.self_attn.q_proj, and layers.N.cross_attn.q_proj in its cross-attention layers.
_MLLAMA_TEXT = replace(_TEXT_MODEL, segments=_LLAMA_SEGMENTS + (("cross_attention", "cross_attn"),))
# Module paths of the composite models, by model_type and top-level tree node (checked by
# tests/parity/test_lora_parity.py); the head class's own modules (lm_head) sit at the top.
COMPOSITE_PATHS: dict[str, dict[str, SubModelPaths]] = {
    "llava": {"language_model": _TEXT_MODEL, "vision_tower": _VISION_TOWER, "projector": _PROJECTOR},
    "gemma3": {"language_model": _TEXT_MODEL, "vision_tower": _VISION_TOWER, "projector": _PROJECTOR},
    # The classes built on the llava layout: LLaVA's names (LLaVA-NeXT-Video's pooler: vision_resampler.pool).
    **{model_type: {"language_model": _TEXT_MODEL, "vision_tower": _VISION_TOWER, "projector": _PROJECTOR,
                    "vision_resampler": SubModelPaths("vision_resampler")}
       for model_type in ("llava_next", "llava_onevision", "llava_next_video", "vipllava", "paligemma", "aya_vision",
                          "cohere2_vision")},
    # GOT-OCR2: its SAM-style tower (vision_tower.layers.N.attn.qkv, ...mlp.lin1), the projector's multimodal_projector.
    # (PP-Chart2Table: GOT-OCR2's classes)
    **{model_type: {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_tower", "layers"),
                    "projector": _PROJECTOR} for model_type in ("got_ocr2", "pp_chart2table")},
    # DeepSeek-VL: its SigLIP tower at vision_model (vision_model.encoder.layers.N...), the aligner's linear1 / linear2.
    "deepseek_vl": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_model", "encoder.layers"),
                    "projector": SubModelPaths("aligner")},
    # LFM2-VL: an LFM2 text model (layers.N.conv.in_proj, layers.N.self_attn.out_proj, layers.N.feed_forward.w1).
    "lfm2_vl": {"language_model": _LFM2_TEXT, "vision_tower": _VISION_TOWER, "projector": _PROJECTOR},
    # InternVL: its own tower (vision_tower.encoder.layer.N.attention.q_proj, ...projection_layer, ...mlp.fc1).
    "internvl": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_tower", "encoder.layer"),
                 "projector": _PROJECTOR},
    # Idefics3 / SmolVLM: text_model, vision_model (SigLIP's encoder.layers.N...), connector.modality_projection.proj.
    **{model_type: {"language_model": replace(_TEXT_MODEL, attribute="text_model"),
                    "vision_tower": SubModelPaths("vision_model", "encoder.layers"),
                    "projector": SubModelPaths("connector.modality_projection")} for model_type in ("idefics3", "smolvlm")},
    # Mistral 3: a Pixtral tower (vision_tower.transformer.layers.N.attention.q_proj) and the projector's
    # patch_merger.merging_layer, linear_1 and linear_2.
    "mistral3": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_tower", "transformer.layers"),
                 "projector": _PROJECTOR},
    # Qwen2-VL's and Qwen2.5-VL's vision towers: blocks.N.attn.qkv, blocks.N.mlp.fc1 / gate_proj, merger.mlp.0.
    "qwen2_5_vl": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    "qwen2_vl": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    "qwen3_vl": {"language_model": _TEXT_MODEL, "visual": _QWEN3_VISUAL},
    "qwen3_vl_moe": {"language_model": _TEXT_MODEL, "visual": _QWEN3_VISUAL},
    "qwen3_5": {"language_model": _QWEN3_5_TEXT, "visual": _QWEN_VISUAL},
    # GLM-4.1V: Qwen-VL's names (blocks.N.attn.qkv, blocks.N.mlp.gate_proj, merger.proj / merger.gate_proj).
    "glm4v": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    "glm4v_moe": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    **{model_type: {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL} for model_type in ("glm46v", "glmga")},
    "glm_ocr": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    # EXAONE 4.5 and LLaVA-OneVision-1.5 (RICE-ViT: blocks.N.attn.qkv, blocks.N.mlp.fc1, merger.linear_fc1): Qwen-VL's.
    "exaone4_5": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    "llava_onevision1_5": {"language_model": _TEXT_MODEL, "visual": _QWEN_VISUAL},
    # Aria: an Idefics3 tower (vision_tower.encoder.layers.N...), the projector's cross_attn.q_proj, feed_forward.linear_in.
    "aria": {"language_model": _TEXT_MODEL, "vision_tower": _VISION_TOWER, "projector": _PROJECTOR},
    # LightOnOCR: a Pixtral tower at vision_encoder (transformer.layers.N...), the projector at vision_projection.
    "lighton_ocr": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_encoder", "transformer.layers"),
                    "projector": SubModelPaths("vision_projection")},
    # Qianfan-OCR: InternVL's tower with its layers at the top (vision_tower.layers.N.attention.q_proj).
    "qianfan_ocr": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_tower", "layers"),
                    "projector": _PROJECTOR},
    # Kimi K2.5: its tower's layers.N.attn.q_proj and layers.N.mlp.fc1, the projector at mm_projector.
    "kimi_k25": {"language_model": _TEXT_MODEL,
                 "vision_tower": SubModelPaths("vision_tower", "layers", (("attention", "attn"), ("mlp", "mlp"))),
                 "projector": SubModelPaths("mm_projector")},
    # PaddleOCR-VL: SigLIP's layers at visual.vision_model (encoder.layers.N.self_attn.q_proj), the projector's linear_1.
    "paddleocr_vl": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("visual.vision_model", "encoder.layers"),
                     "projector": SubModelPaths("projector")},
    # Mistral Large 4: Mistral 3's names (a Pixtral tower, the projector's patch_merger.merging_layer, linear_1 and
    # linear_2), its text model's layers of several kinds (with or without an indexer, reading an earlier latent...).
    "mistral_large4": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_tower", "transformer.layers"),
                       "projector": _PROJECTOR},
    # Cosmos3 Edge: SigLIP 2's layers at visual (encoder.layers.N.self_attn.q_proj), the projector's linear_fc1, and its
    # text model's layers.N.mlp.fc1.
    "cosmos3_edge": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("visual", "encoder.layers"),
                     "projector": SubModelPaths("projector")},
    # VideoLLaMA3: SigLIP's layers at vision_model (encoder.layers.N.self_attn.q_proj), the projector's readout.0 / .2.
    "video_llama_3": {"language_model": _TEXT_MODEL, "vision_tower": SubModelPaths("vision_model", "encoder.layers"),
                      "projector": SubModelPaths("projector")},
    # Step 3.7: its tower's layers (vision_model.layers.N.self_attn.q_proj, mlp.fc1) and the projector, one Linear on
    # the model itself (multi_modal_projector); the text model's g_proj sits in self_attn.
    "step3p7": {"language_model": _TEXT_MODEL, "vision_model": SubModelPaths("vision_model", "layers"),
                "projector": SubModelPaths("")},
    # Llama 3.2 Vision: the text model's cross-attention layers (layers.N.cross_attn.q_proj), the tower's local and
    # global layers (vision_model.transformer.layers.N.self_attn.q_proj, ...global_transformer.layers.N...), and the
    # projector, a Linear of the model's own (multi_modal_projector).
    "mllama": {"language_model": _MLLAMA_TEXT,
               "vision_model": SubModelPaths("vision_model", "transformer.layers",
                                             lists=(("global_layers", "global_transformer.layers"),)),
               "projector": SubModelPaths("")},
    "qwen3_5_moe": {"language_model": _QWEN3_5_MOE_TEXT, "visual": _QWEN_VISUAL},
    # Llama 4: the whole Llama4ForCausalLM at language_model (its layers llama4_text's: language_model.model.layers.N.
    # feed_forward.shared_expert.gate_proj, ...feed_forward.router; its head language_model.lm_head), the tower's
    # vision_model.model.layers.N.self_attn.q_proj, vision_model.patch_embedding.linear and
    # vision_model.vision_adapter.mlp.fc1, and multi_modal_projector.linear_1, all at the class's top (_TOWERS_AT_THE_TOP).
    "llama4": {"language_model": SubModelPaths("language_model.model", "layers", MODULE_PATHS["llama4_text"].segments),
               "lm_head": SubModelPaths("language_model"), "vision_model": SubModelPaths("vision_model", "model.layers"),
               "projector": SubModelPaths("")},
    # Gemma 4: the text model's layers as gemma4_text's (router.proj, the experts and the per-layer input projections on
    # the layer, per_layer_model_projection on language_model; each kind's layers numbered by layer_indices), the
    # towers' clippable linears (vision_tower.encoder.layers.N.self_attn.q_proj.linear, audio_tower.layers.N.
    # feed_forward1.ffw_layer_1.linear, audio_tower.layers.N.self_attn.relative_k_proj) and the embedders' projections.
    "gemma4": {"language_model": replace(_TEXT_MODEL, segments=_LLAMA_SEGMENTS + (("moe", ""), ("per_layer_input", ""))),
               "vision_tower": SubModelPaths("vision_tower", "encoder.layers"),
               "audio_tower": SubModelPaths("audio_tower", "layers"),
               "embed_vision": SubModelPaths("embed_vision"), "embed_audio": SubModelPaths("embed_audio")},
    # Qwen2-Audio / Voxtral: the audio tower (audio_tower.layers.N.self_attn.q_proj, ...fc1), the projector's linears.
    **{model_type: {"language_model": _TEXT_MODEL, "audio_tower": SubModelPaths("audio_tower", "layers"),
                    "projector": _PROJECTOR} for model_type in ("qwen2_audio", "voxtral")},
    # Granite Speech: the conformer encoder (encoder.layers.N.attn.to_q, encoder.out_mid), the projector's Q-Former
    # (projector.qformer.encoder.layer.N.crossattention.attention.key: its two kinds of layer numbered by
    # layouts/qformer.layer_indices) and linear.
    "granite_speech": {"language_model": _TEXT_MODEL, "audio_tower": SubModelPaths("encoder", "layers"),
                       "projector": SubModelPaths("projector", "encoder.layer", (("qformer", "qformer"),))},
    # CLIPModel: both towers at its top (text_model.encoder.layers.N..., vision_model...), the projections too.
    **{model_type: {"text_model": SubModelPaths("text_model", "encoder.layers"),
                    "vision_model": SubModelPaths("vision_model", "encoder.layers")}
       for model_type in ("clip", "metaclip_2")},
    "chinese_clip": {"text_model": SubModelPaths("text_model", "encoder.layer"),
                     "vision_model": SubModelPaths("vision_model", "encoder.layers")},
    # SiglipModel: the same towers (text_model.head, vision_model.head.mlp.fc1 their own heads), no projections.
    **{model_type: {"text_model": SubModelPaths("text_model", "encoder.layers"),
                    "vision_model": SubModelPaths("vision_model", "encoder.layers")}
       for model_type in ("siglip", "siglip2")},
}


_TOWERS_AT_THE_TOP = frozenset({"CLIPForImageClassification", "MetaClip2ForImageClassification",
                                "SiglipForImageClassification",
                                "Siglip2ForImageClassification", "Llama4ForConditionalGeneration"})


def _composite_paths(tree_path: str, name: str, occurrences: int, parts: dict[str, SubModelPaths],
                     indices: dict[str, tuple[int, ...]] | None = None) -> list[str]:
    """Full module names of a tensor named ``name`` at ``tree_path`` of a vision-language model (``indices``: its
    text model's layer kinds, tree node names, -> their layers' numbers, as apply_lora's layer_indices)."""
    architecture, *nodes = tree_path.split(".")
    module = name.rsplit(".", 1)[0]
    part = parts.get(nodes[0]) if nodes else None
    if part is None:  # the head class's own (lm_head, score)
        return [module] * occurrences
    segments, lists = dict(part.segments), dict(part.lists)
    out = [part.attribute] if part.attribute else []  # (no attribute: the tensors' modules sit on the model itself)
    layered = False
    numbers: tuple[int, ...] = ()
    for node in nodes[1:]:
        if indices and node in indices:  # a kind of layer of a stack of several (a hybrid's, dense and MoE)
            numbers = indices[node]
        if node in ("layers", "blocks", "dense_layers", "moe_layers") or (indices and node in indices):
            if not layered:
                out += [part.layers, "{i}"]
            layered = True
        elif node in lists and not layered:
            out += [lists[node], "{i}"]
            layered = True
        elif segments.get(node):
            out.append(segments[node])
    # The bare class (LlavaModel) holds the sub-models at its top; the head classes under `model`
    # (CLIPForImageClassification its vision_model at its top too).
    body = "model." if "For" in architecture and architecture not in _TOWERS_AT_THE_TOP else ""
    template = body + ".".join(out + [module])
    if layered:
        # (a module repeated within each layer cycles through its kind's layers' numbers, as in _hf_paths)
        return [template.replace("{i}", str(numbers[i % len(numbers)] if numbers else i)) for i in range(occurrences)]
    return [template] * occurrences


# Head nodes that are a module of their own (classification_head.dense); the others' layers sit at the top.
_HEAD_CONTAINERS = frozenset({"classification_head"})


@dataclass(frozen=True)
class LoraTargets:
    """What to adapt: ``names`` (module names), ``pattern`` (a regex), or neither for all linear layers."""

    names: tuple[str, ...] | None = None
    pattern: str | None = None

    @property
    def all_linear(self) -> bool:
        return self.names is None and self.pattern is None


@dataclass(frozen=True)
class AdaptedModel:
    tree: ParamTree
    adapter_params: int
    modules: tuple[str, ...]  # module names adapted, in model order
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def _hf_paths(tree_path: str, module: str, occurrences: int, paths: ModulePaths = _LLAMA,
              first_layer: int = 0, indices: tuple[int, ...] | None = None) -> list[str]:
    """Full module names transformers gives this tensor's module (one per occurrence, layer by layer; ``indices``:
    the layers' own numbers, a hybrid stack's kind's)."""
    parts = tree_path.split(".")[1:]  # drop the class name
    renamed = dict(paths.renamed)
    if module in HEAD_MODULES or (module in paths.heads and len(parts) == 1):
        return [renamed.get(module, module)] * occurrences
    segments = dict(paths.segments)
    top = dict(paths.top)
    out_parts: list[str] = []
    layered = False
    for p in parts:
        if p in ("layers", "dense_layers", "moe_layers"):
            if not layered:
                out_parts += [paths.layers, "{i}"]
            layered = True
        elif not layered:
            if p in top:
                out_parts.append(top[p])
            # embeddings, final_norm, ...: the model body
        elif p in segments:
            if segments[p]:
                out_parts.append(segments[p])
        elif p != "norms":
            out_parts.append(p)
    if not layered and not out_parts:
        out_parts = [paths.layers.split(".")[0]]
    if not layered:
        module = renamed.get(module, module)
    template = ".".join(out_parts + [module])
    if layered and paths.stacks:  # (one occurrence a layer: the first stack's layers, then the next's)
        per_stack = max(occurrences // len(paths.stacks), 1)
        return [template.replace(paths.layers, paths.stacks[min(i // per_stack, len(paths.stacks) - 1)], 1)
                .replace("{i}", str(i % per_stack)) for i in range(occurrences)]
    if layered:
        # (a module repeated within each layer, a hybrid's experts, cycles through its layers' numbers)
        return [template.replace("{i}", str(indices[i % len(indices)] if indices else first_layer + i))
                for i in range(occurrences)]
    return [template] * occurrences


def _seq2seq_body(paths: Seq2SeqPaths, architecture: str) -> str:
    if architecture in _SEQ2SEQ_BODY:
        return _SEQ2SEQ_BODY[architecture]
    return "" if architecture.endswith("Model") else paths.body  # BartModel, T5EncoderModel: the stacks on top


def _sparse_blocks(layers: int, sparse: int) -> list[int]:
    """Which of a Switch stack's blocks are sparse (i % step == 1, or all for step 1), where the config's own are not
    given (layouts/seq2seq.layer_indices; the memory estimate's name-target LoRA, whose counts need only how many):
    the tree keeps the counts, not the step, so the smallest step giving this many sparse blocks."""
    if sparse >= layers:
        return list(range(layers))
    step = next((s for s in range(2, layers + 1) if len(switch_sparse_layers(layers, s)) == sparse), 0)
    return list(switch_sparse_layers(layers, step))


def _seq2seq_blocks(tree: ParamTree, layer_indices: dict[str, tuple[int, ...]] | None = None) -> dict[str, list[int]]:
    """Block indices of each layer group, by "stack.group" (Switch and NLLB-MoE interleave their sparse blocks with
    dense ones). ``layer_indices``: each group's blocks as the config places them (layouts/seq2seq.layer_indices),
    which win over the guess from the counts (_sparse_blocks)."""
    blocks: dict[str, list[int]] = {}
    for stack in tree.root.children:
        for layers in stack.children:
            if layers.name != "layers":
                continue
            groups = {c.name: c.repeat for c in layers.children if c.name in ("dense_layers", "sparse_layers")}
            if not groups:
                blocks[stack.name] = list(range(layers.repeat))
                continue
            count = sum(groups.values())
            sparse = _sparse_blocks(count, groups.get("sparse_layers", 0))
            blocks[f"{stack.name}.sparse_layers"] = sparse
            blocks[f"{stack.name}.dense_layers"] = [i for i in range(count) if i not in sparse]
    blocks.update((group, list(indices)) for group, indices in (layer_indices or {}).items())
    return blocks


def _seq2seq_paths(tree_path: str, module: str, occurrences: int, paths: Seq2SeqPaths,
                   blocks: dict[str, list[int]]) -> list[str]:
    """Full module names of an encoder-decoder tensor's module: block by block, expert by expert within a block."""
    architecture, *parts = tree_path.split(".")
    if parts and paths.lm_head.endswith(f".{module}") and parts[0] == module:  # FSMT: the decoder's output_projection
        return [".".join(p for p in (_seq2seq_body(paths, architecture), paths.lm_head) if p)] * occurrences
    if not parts or parts[0] not in ("encoder", "decoder"):  # heads: lm_head, classification_head.dense, projector
        return [".".join(parts[:1] * (parts[0] in _HEAD_CONTAINERS) + [module]) if parts else module] * occurrences
    stack = parts[0]
    body = _seq2seq_body(paths, architecture)
    head = [body, stack] if body else [stack]
    if "layers" not in parts:  # embeddings, final norm: on the stack itself
        return [".".join(head + [module])] * occurrences
    group = next((p for p in parts if p in ("dense_layers", "sparse_layers")), "")
    indices = blocks.get(f"{stack}.{group}" if group else stack, [])
    segments = dict(dict(paths.segments).get(stack, ()))
    inner = [segments.get(p, p) for p in parts[parts.index("layers") + 1:] if p not in ("dense_layers", "sparse_layers")]
    experts = "experts" in parts and paths.expert
    per_block = occurrences // max(len(indices), 1)
    names = []
    for i in indices:
        for e in range(per_block if experts else 1):
            tail = [s for s in inner if s] + ([paths.expert.format(e=e)] if experts else [])
            names.append(".".join(head + [paths.blocks, str(i)] + tail + [module]))
    return names if len(names) == occurrences else [".".join(head + [module])] * occurrences


def _is_adaptable(t: Tensor, path: str = "", is_router=is_bare_router) -> bool:
    # Fused MoE experts (kind "expert") are parameters, not nn.Linear modules: LoRA target names do not reach them.
    # Nor does all-linear reach a matmul weight that is no nn.Linear's `weight` (nn.MultiheadAttention's packed
    # in_proj_weight in a Python model: its out_proj is an nn.Linear).
    return t.is_linear_weight and not is_router(path, t)


def _layer_offsets(tree: ParamTree) -> dict[str, int]:
    """Index of the first layer of each layer group (DeepSeek: dense layers first, then MoE layers)."""
    offsets: dict[str, int] = {}
    for layers in tree.root.children:
        if layers.name == "layers" and layers.children and layers.children[0].name == "dense_layers":
            offsets["moe_layers"] = layers.children[0].repeat
    return offsets


def _names_match(wanted: set[str], module: str, full: str) -> list[str]:
    # peft: a target matches a module whose full name is it or ends with "." + it.
    return [n for n in wanted if n == module or full == n or full.endswith("." + n)]


def layer_groups(spec: ModelSpec | None) -> int:
    """How many groups a model's stored layers sit in, in its module names (ALBERT's num_hidden_groups), else 1."""
    value = spec.values.get("num_hidden_groups") if spec is not None else None
    return value if type(value) is int and value > 0 else 1


def vlm_model_type(spec: ModelSpec | None) -> str | None:
    """A ColVision retriever's vision-language model's model_type (its vlm_config's), which names its modules (held
    at ``vlm``, the projection beside it); None for another model."""
    vlm = retriever_vlm(spec)
    return vlm.model_type if vlm is not None else None


def _retriever_namer(tree: ParamTree, vlm_type: str, layer_groups: int,
                     layer_indices: dict[str, tuple[int, ...]] | None) -> Callable[..., list[str]]:
    """module_namer of a retriever: its vision-language model's modules (the tree's top-level nodes but the
    projection) named as ``vlm_type`` names them in its bare class, under ``vlm.``; the projection at the top."""
    inner = module_namer(tree, vlm_type, layer_groups, layer_indices)

    def full_paths(path: str, module: str, mult: int, name: str = "") -> list[str]:
        _architecture, *nodes = path.split(".")
        if not nodes or nodes[0] == RETRIEVAL_PROJECTION_NODE:
            return [module] * mult
        # (a bare class's name, without "For": its sub-models sit at its top, as they do under vlm)
        return ["vlm." + f for f in inner(".".join(["Model", *nodes]), module, mult, name)]

    return full_paths


def module_namer(tree: ParamTree, model_type: str | None = None, layer_groups: int = 1,
                 layer_indices: dict[str, tuple[int, ...]] | None = None,
                 vlm_type: str | None = None) -> Callable[..., list[str]]:
    """``full_paths(path, module, occurrences, tensor name)``: the full module names transformers gives the module
    holding a tensor at ``path`` of the tree, one per occurrence, layer by layer (apply_lora's parameters).
    ``vlm_type``: a retriever's vision-language model's model_type (vlm_model_type): its modules sit under ``vlm``."""
    if vlm_type is not None:
        return _retriever_namer(tree, vlm_type, layer_groups, layer_indices)
    paths = MODULE_PATHS.get(model_type or "", _LLAMA)
    offsets = _layer_offsets(tree)
    seq2seq = SEQ2SEQ_PATHS.get(model_type or "")
    blocks = _seq2seq_blocks(tree, layer_indices) if seq2seq else {}

    encoder = ENCODER_PATHS.get(model_type or "")
    composite = COMPOSITE_PATHS.get(model_type or "")

    def full_paths(path: str, module: str, mult: int, name: str = "") -> list[str]:
        if encoder is not None and name:
            return _encoder_paths(path, name, mult, encoder, layer_groups)
        if composite is not None and name:
            return _composite_paths(path, name, mult, composite, layer_indices)
        if seq2seq:
            return _seq2seq_paths(path, module, mult, seq2seq, blocks)
        kind = next((k for k in layer_indices or {} if f".{k}." in path or path.endswith(f".{k}")), None)
        if kind is not None:  # a hybrid's layers of one kind: the kind's node is no module of transformers'
            # (a shared block's node, ``<blocks node>.block_b`` (layouts/zamba.layer_indices), stands for a module of
            # the blocks node's name in each layer that uses it: model.layers.5.shared_transformer.self_attn.q_proj)
            shared = kind.split(".", 1)[0] if "." in kind else None
            return _hf_paths(path.replace(f".{kind}", f".layers.{shared}" if shared else "", 1), module, mult, paths,
                             indices=layer_indices[kind])
        group = next((g for g in offsets if f".{g}" in path), None)
        return _hf_paths(path, module, mult, paths, offsets.get(group, 0) if group else 0)

    return full_paths


def apply_lora(tree: ParamTree, rank: int, targets: LoraTargets, dora: bool = False,
               model_type: str | None = None, layer_groups: int = 1,
               layer_indices: dict[str, tuple[int, ...]] | None = None, vlm_type: str | None = None) -> AdaptedModel:
    """The tree with its base frozen and an ``adapters`` node holding every lora_A / lora_B.
    ``layer_groups``: ALBERT's num_hidden_groups (its module names number the layers within a group).
    ``layer_indices``: a hybrid stack's layer kinds (tree node names) -> their layers' numbers
    (layouts/hybrid.layer_indices). ``vlm_type``: a retriever's vision-language model's model_type (vlm_model_type)."""
    regex = None
    errors: list[str] = []
    notes: list[str] = []
    if targets.pattern is not None:
        if len(targets.pattern) > MAX_REGEX_LENGTH:
            return AdaptedModel(tree, 0, (), errors=("the target regex is too long",))
        try:
            regex = re.compile(targets.pattern)
        except re.error as exc:
            return AdaptedModel(tree, 0, (), errors=(f"the target regex does not compile: {exc}",))
    full_paths = module_namer(tree, model_type, layer_groups, layer_indices, vlm_type)

    linear_router = model_type in LINEAR_ROUTER_FAMILIES

    def is_router(path: str, t: Tensor) -> bool:
        return not linear_router and is_bare_router(path, t)

    moe_style = PEFT_MOE_CONVERSION.get(model_type or "")
    param_hits: dict[tuple[str, str], tuple[int, int]] = {}
    has_experts = any(t.kind == "expert" for _p, t, _m, _f in tree.root.iter_tensors())
    parameters = _moe_parameter_names(tree, full_paths, is_router) if regex is not None or moe_style else {}
    if regex is not None:
        consumed = frozenset(old for old, _new in _MOE_STYLES[moe_style][0]) if moe_style else frozenset()
        bad = _regex_non_linear(tree, regex, full_paths, parameters, bool(moe_style), is_router, consumed)
        if bad:
            return AdaptedModel(tree, 0, (), errors=(f"the target regex matches {bad}, which is not a linear layer: "
                                                     "peft refuses it (anchor the regex on the layer's name)",))
    if moe_style:
        converted = _convert_moe(tree, targets, regex, moe_style, full_paths, parameters, is_router)
        if isinstance(converted, str):
            return AdaptedModel(tree, 0, (), errors=(converted,))
        module_names, param_targets, fused_rank, converted_names = converted
        # Each expert or router tensor: (the layers whose parameter a target names, its layers). (HunYuan-MoE's gate
        # holds an nn.Linear, gate.wg: no router parameter of its own for gate.weight to name.)
        for full, key in parameters.items():
            named, layers = param_hits.get(key, (0, 0))
            param_hits[key] = (named + any(_names_target(full, x) for x in param_targets), layers + 1)
        # A regex or all-linear resolved to leaf names: names that reach no nn.Linear are dropped, as peft does.
        strict_names = targets.names is not None
        targets = LoraTargets(names=tuple(sorted(module_names)))
        regex = None
        notes_moe = _moe_note(param_hits, moe_style, fused_rank, rank) if has_experts else \
            _no_experts_note(tree, converted_names, moe_style, model_type or "")
        if notes_moe:
            notes.append(notes_moe)
    else:
        fused_rank, strict_names = 1, True
        if has_experts and model_type:
            # (Gemma 4's router holds an nn.Linear, router.proj, which peft adapts: no router of its own to name.)
            router_left = any(is_router(p, t) for p, t, _m, _f in tree.root.iter_tensors())
            notes.append(f"peft leaves {model_type}'s fused experts (3-D parameters)"
                         + (" and its router (not an nn.Linear)" if router_left else "") + " without adapters")
    wanted = set(targets.names or ())
    matched_names: set[str] = set()
    convolutions: list[str] = []
    adapters: list[ParamNode] = []
    modules: list[str] = []
    partial: set[str] = set()
    def reached(path: str, t: Tensor, mult: int) -> list[str]:
        """The full names, one per occurrence, of ``t``'s module that the regex or the names reach (each
        occurrence by its own full name: a dotted target, "layer.1.EncDecAttention.q", reaches only the modules
        whose names end with it); the names that reach one are matched."""
        fulls = full_paths(path, t.module, mult, t.name)
        if regex is not None:
            return [f for f in fulls if regex.fullmatch(f)]
        found = [(f, _names_match(wanted, t.module, f)) for f in fulls]
        matched_names.update(n for _f, names in found for n in names)
        return [f for f, names in found if names]

    for path, t, mult, _frozen in tree.root.iter_tensors(instances=True):  # (a tied module's each use: its own)
        r = rank
        if (path, t.name) in param_hits and (t.kind == "expert" or len(t.shape) == 2):
            named, layers = param_hits[path, t.name]
            hits = mult * named // layers
            r = rank * fused_rank if t.name == "gate_up_proj" else rank
        elif not _is_adaptable(t, path, is_router):
            if wanted and is_router(path, t) and t.module in wanted and t.module not in matched_names:
                matched_names.add(t.module)
                errors.append(f"{t.module} is {model_type}'s MoE router, not an nn.Linear: peft refuses it as a target")
            elif t.kind == "conv" and not targets.all_linear and (wanted or regex is not None) and \
                    not peft_refuses_lora(model_type, t.module):
                # peft adapts a named convolution too (a Conv3d patch embedding's `proj`), with a pair of LoRA
                # convolutions whose shapes depend on its groups, which the tree does not keep: said, not counted.
                hit = reached(path, t, mult)
                if hit:
                    convolutions.append(hit[0] + (f" (and {len(hit) - 1} more)" if len(hit) > 1 else ""))
            continue
        elif targets.all_linear:
            # (an encoder's untied MLM decoder is its output layer too: peft leaves it out)
            # (FSMT's output projection is no output embedding of its class: peft adapts it)
            heads = frozenset() if model_type in OUTPUT_LAYER_ADAPTED else HEAD_MODULES
            hits = 0 if is_output_head(path, t, heads) else mult
        else:
            hits = len(reached(path, t, mult))
            if 0 < hits < mult:
                partial.add(t.module)
        if not hits:
            continue
        if peft_refuses_lora(model_type, t.module):
            errors.append(f"peft refuses LoRA on {t.module} of a Mamba-based model ({model_type}): "
                          f"leave {t.module} out of the targets (all-linear includes it)")
            continue
        out_f, in_f = t.shape
        module = t.module if t.kind != "expert" else f"experts.{t.name}"
        tensors = (Tensor(f"{module}.lora_A.weight", (r, in_f), "lora", module),
                   Tensor(f"{module}.lora_B.weight", (out_f, r), "lora", module))
        if dora:
            if t.kind == "expert" or is_router(path, t):
                errors.append("DoRA on MoE experts / router parameters is not modelled")
                continue
            tensors += (Tensor(f"{module}.lora_magnitude_vector", (out_f,), "lora", module),)
        label = path.split(".", 1)[1] + "." + module if "." in path else module
        note = f"r={r}: {in_f}→{r}→{out_f}" + (" per expert" if t.kind == "expert" else "")
        adapters.append(ParamNode(label, tensors=tensors, repeat=hits, note=note))
        if module not in modules:
            modules.append(module)
    if targets.names is not None:
        missing = sorted(wanted - matched_names)
        # peft adapts what the list's other names reach and ignores a name that reaches no module at all (a
        # typo): said, not refused. A name that reaches a module peft cannot adapt (a norm, a container) it refuses.
        ignored = [n for n in missing if not _names_any_module(tree, n, full_paths)] if adapters and not errors else []
        if missing and strict_names:
            linears = ", ".join(_linear_names(tree, is_router))
            if ignored == missing:
                notes.append(f"no module named {', '.join(missing)} in this model: peft ignores "
                             f"{'it' if len(missing) == 1 else 'them'} and adapts the other targets (its linear "
                             f"layers: {linears})")
            else:
                errors.append(f"no linear layer named {', '.join(missing)} in this model (its linear layers: {linears})")
        holder = _name_reaching_a_holder(tree, wanted & matched_names, full_paths) if strict_names else None
        if holder is not None:
            errors.append(f"{holder[0]} also names {holder[1]}, which holds a linear layer and is not one: peft refuses "
                          "it as a target (name the linear layer inside, or anchor a regex on the modules meant)")
    if partial:
        notes.append(f"the targets adapt {', '.join(sorted(partial))} in some layers only")
    if convolutions:
        notes.append(f"peft also adapts {', '.join(convolutions)}, a convolution, with LoRA convolutions this count "
                     "leaves out (it counts the adapters of linear layers)")
    if not adapters and not errors:
        errors.append("the LoRA targets match no linear layer of this model")
    adapted = attach_adapters(tree, adapters, f"LoRA r={rank}" + (" + DoRA magnitude" if dora else ""), notes)
    return AdaptedModel(adapted, _adapter_total(adapted), tuple(modules), tuple(notes), tuple(errors))


def _adapter_total(tree: ParamTree) -> int:
    return sum(c.total for c in tree.root.children if c.name == ADAPTER_NODE)


def attach_adapters(tree: ParamTree, adapters: list[ParamNode], note: str, notes: list[str] | tuple[str, ...] = ()) -> ParamTree:
    """The base frozen, the adapters (trainable) in an ``adapters`` node beside it."""
    root = tree.root
    base_children = tuple(replace(c, frozen=True) for c in root.children)
    if root.tensors:
        base_children = (ParamNode("base", tensors=root.tensors, frozen=True),) + base_children
    adapter_node = ParamNode(ADAPTER_NODE, children=tuple(adapters), note=note)
    new_root = replace(root, tensors=(), children=base_children + ((adapter_node,) if adapters else ()))
    return replace(tree, root=new_root, notes=tree.notes + tuple(notes))


def _regex_non_linear(tree: ParamTree, regex, full_paths, parameters: dict[str, tuple[str, str]], converted: bool,
                      is_router=is_bare_router, consumed: frozenset[str] = frozenset()) -> str | None:
    """A module peft would find with this regex but cannot adapt: a container of linear layers (``self_attn``,
    ``mlp``, a layer), the fused experts, or (without peft's MoE conversion) the router. A container whose
    name peft's conversion turns into a parameter target (``consumed``: HunYuan-MoE's ``gate``, holding
    ``gate.wg``) is no module target there. A norm. (Embeddings peft adapts; activations hold no tensor to see.)
    ``parameters``: _moe_parameter_names'."""
    linear: set[str] = set()
    other = _expert_modules(parameters)
    for p, t, m, _f in tree.root.iter_tensors(instances=True):
        if t.kind == "expert":
            continue
        elif t.kind == "linear" and len(t.shape) == 2:
            fulls = full_paths(p, t.module, m, t.name)
            (other if is_router(p, t) and not converted else linear).update(fulls)
        elif t.kind == "norm":  # peft adapts no LayerNorm or RMSNorm: "Target module ... is not supported"
            other.update(full_paths(p, t.module, m, t.name))
    containers = {c for c in _holders(linear | other) if c.rsplit(".", 1)[-1] not in consumed}
    for name in sorted((other | containers) - linear):
        if regex.fullmatch(name):
            return name
    return None


def _name_reaching_a_holder(tree: ParamTree, names: set[str], full_paths) -> tuple[str, str] | None:
    """A target name that reaches, beside the linear layers it adapts, a module holding a linear layer (Gemma 4's
    towers' Gemma4ClippableLinear q_proj, whose nn.Linear is q_proj.linear): peft refuses the whole list ("Target
    module ... is not supported"). (the name, the module's full name), or None."""
    if not names:
        return None
    linear: set[str] = set()
    for p, t, m, _f in tree.root.iter_tensors(instances=True):
        if t.kind == "linear" and len(t.shape) == 2:
            linear.update(full_paths(p, t.module, m, t.name))
    holders = _holders(linear) - linear
    for holder in sorted(holders):
        hit = _names_match(names, "", holder)
        if hit:
            return sorted(hit)[0], holder
    return None


def _moe_note(param_hits: dict[tuple[str, str], tuple[int, int]], style: str, fused_rank: int, rank: int) -> str:
    adapted = {name if name in ("gate_up_proj", "down_proj") else "router"
               for (_path, name), (named, _layers) in param_hits.items() if named}
    if not adapted:
        return ""
    what = []
    if "router" in adapted:
        what.append("the router (gate.weight)")
    if "gate_up_proj" in adapted:
        what.append(f"experts.gate_up_proj at rank {rank * fused_rank} (two fused halves)")
    if "down_proj" in adapted:
        what.append("experts.down_proj")
    return ("peft (transformers 5 conversion, " + style + " pattern) adapts " + ", ".join(what) +
            " as parameters: one lora_A (E·r × in) and lora_B (out × E·r) per fused tensor")


def _no_experts_note(tree: ParamTree, converted: set[str], style: str, model_type: str) -> str:
    """What peft's conversion does where no layer of the config has experts: it converts the targets by the
    model's type all the same, so the linear layers of the ``converted`` names (the dense MLP's) get no adapters."""
    dropped = sorted({t.module for p, t, _m, _f in tree.root.iter_tensors()
                      if _is_adaptable(t, p) and any(t.module == c or c.endswith("." + t.module) for c in converted)})
    if not dropped:
        return ""
    return (f"peft (transformers 5 conversion, {style} pattern) converts {', '.join(dropped)} into {model_type}'s "
            "experts' parameter targets, and no layer of this config has experts: those layers get no adapters")


def _convert_moe(tree: ParamTree, targets: LoraTargets, regex, style: str, full_paths,
                 parameters: dict[str, tuple[str, str]], is_router=is_bare_router):
    """peft's _convert_peft_config_moe (0.22): (module targets left, parameter targets, gate_up rank factor, the
    targets converted and not kept as module targets) or an error. ``parameters``: _moe_parameter_names'.

    A v4 name is rewritten to its parameter target (``gate`` -> ``gate.weight``, ``gate_proj`` -> ``gate_up_proj``,
    the target's prefix kept). Where every module the name reaches is an nn.Linear (DeepSeek's dense and shared-expert
    MLPs), it stays a module target, and becomes a parameter target as well only where a parameter no nn.Linear holds
    ends with the new name (the routed experts beside them)."""
    mapping, fused = _MOE_STYLES[style]
    if targets.all_linear:
        leaves = {t.module for p, t, _m, _f in tree.root.iter_tensors()
                  if _is_adaptable(t, p) and t.module not in HEAD_MODULES}
        resolved = leaves | {old for old, _new in mapping}
    elif regex is not None:
        resolved = set()
        # peft keeps the leaf name of each module and parameter key the regex matches, and probes the v4 names
        # fused into a parameter (``...experts.gate_proj`` for ``...experts.gate_up_proj``) under its module.
        for full, (_p, name) in parameters.items():
            if "." in name:
                continue  # a router's own parameter: its module is matched below, by its name
            if regex.fullmatch(full):
                resolved.add(name)
            container = full.rsplit(".", 1)[0]
            resolved.update(old for old, new in mapping if new == name and regex.fullmatch(f"{container}.{old}"))
        for p, t, m, _f in tree.root.iter_tensors(instances=True):
            if t.kind == "expert":
                continue
            elif t.kind == "linear" and len(t.shape) == 2:
                # peft keeps the leaf name of each matching module key: a regex that names layer 0 adapts every layer.
                if any(regex.fullmatch(f) for f in full_paths(p, t.module, m, t.name)):
                    resolved.add(t.module)
        if not resolved:
            return set(), set(), 1, set()
    else:
        resolved = set(targets.names or ())
    linear, other = _module_names(tree, full_paths, parameters, is_router)
    params: set[str] = set()
    remaining: set[str] = set()
    present: set[str] = set()
    for target in resolved:
        hit = next(((old, new) for old, new in mapping if target == old or target.endswith("." + old)), None)
        if hit is None:
            remaining.add(target)
            continue
        new_target = hit[1].join(target.rsplit(hit[0], 1))  # (peft's str_rreplace: the last occurrence)
        reached = [f for f in linear if _names_target(f, target)]
        if reached and not any(_names_target(f, target) for f in other):
            remaining.add(target)
            if not any(_names_target(name, new_target) for name in parameters):
                continue
        params.add(new_target)
        if hit[0] in fused:
            present.add(hit[0])
    if 0 < len(present) < len(fused):
        missing = sorted(set(fused) - present)
        return (f"peft cannot target {', '.join(sorted(present))} without {', '.join(missing)}: "
                "transformers 5 fuses them into experts.gate_up_proj")
    return remaining, params, (len(fused) if len(present) == len(fused) else 1), resolved - remaining


def _names_target(full: str, target: str) -> bool:
    """peft's rule for a name in a set of targets (a module's, or a parameter's in target_parameters)."""
    return full == target or full.endswith("." + target)


def _module_names(tree: ParamTree, full_paths, parameters: dict[str, tuple[str, str]],
                  is_router=is_bare_router) -> tuple[set[str], set[str]]:
    """The full names of the model's nn.Linear modules, and of its other modules (routers, fused experts, norms,
    embeddings, and every module holding others). ``parameters``: _moe_parameter_names'."""
    linear: set[str] = set()
    other = _expert_modules(parameters)
    for path, node, mult in tree.root.walk():
        for t in node.tensors:
            if t.kind != "expert":
                fulls = full_paths(path, t.module, mult * node.repeat, t.name)
                (linear if _is_adaptable(t, path, is_router) else other).update(fulls)
    return linear, (other | _holders(linear | other)) - linear


def _expert_modules(parameters: dict[str, tuple[str, str]]) -> set[str]:
    """The fused experts' modules, from _moe_parameter_names' (their parameters' names without the tensor's)."""
    return {name.rsplit(".", 1)[0] for name, (_path, tensor) in parameters.items() if "." not in tensor}


def _holders(names: set[str]) -> set[str]:
    """Every module a dotted module name sits under (``a.b.c``: ``a`` and ``a.b``)."""
    return {".".join(f.split(".")[:i]) for f in names for i in range(1, f.count(".") + 1)}


def _moe_parameter_names(tree: ParamTree, full_paths, is_router=is_bare_router) -> dict[str, tuple[str, str]]:
    """The full names of the parameters only peft's target_parameters reach: each fused expert tensor's
    (``model.layers.1.mlp.experts.gate_up_proj``) and each router's own (``model.layers.1.mlp.gate.weight``),
    with the tree path and tensor name they are of."""
    names: dict[str, tuple[str, str]] = {}
    for path, node, mult in tree.root.walk():
        for t in node.tensors:
            if t.kind == "expert":  # (the node's repeat is its experts, all in one tensor per layer)
                for full in full_paths(path.rsplit(".", 1)[0], "experts", mult):
                    names[f"{full}.{t.name}"] = (path, t.name)
            elif is_router(path, t) and t.name.startswith(t.module + "."):
                for full in full_paths(path, t.module, mult * node.repeat, t.name):
                    names[full + t.name[len(t.module):]] = (path, t.name)
    return names


def split_fused(tree: ParamTree, splits: dict[str, tuple[tuple[str, int], ...] | None]) -> ParamTree:
    """The tree with fused linear layers written as the separate layers another implementation builds
    (torchtune's phi3: ``qkv_proj`` -> q/k/v_proj, ``gate_up_proj`` -> gate/up_proj). The parameter count is
    unchanged; LoRA then adapts each part with its own lora_A / lora_B. ``None`` halves the output evenly."""

    def rewrite(node: ParamNode) -> ParamNode:
        tensors: list[Tensor] = []
        for t in node.tensors:
            if t.kind == "linear" and len(t.shape) == 2 and t.module in splits:
                out_f, in_f = t.shape
                parts = splits[t.module] or ()
                if not parts:  # even halves (gate_up_proj)
                    names = {"gate_up_proj": ("gate_proj", "up_proj")}.get(t.module, (t.module + "_0", t.module + "_1"))
                    parts = tuple((n, out_f // 2) for n in names)
                if sum(n for _name, n in parts) != out_f:
                    tensors.append(t)
                    continue
                tensors += [Tensor(f"{name}.weight", (n, in_f), "linear", name) for name, n in parts]
            else:
                tensors.append(t)
        return replace(node, tensors=tuple(tensors), children=tuple(rewrite(c) for c in node.children))

    return replace(tree, root=rewrite(tree.root))


def fuse_linears(tree: ParamTree, groups: dict[str, tuple[str, ...]]) -> ParamTree:
    """The tree with separate linear layers of one node written as the fused layer another implementation builds
    (Megatron's linear_qkv from q/k/v_proj, linear_fc1 from gate/up_proj); a one-name group renames. Layers with
    biases or differing inputs are left as they are. The parameter count is unchanged."""
    owner = {name: new for new, names in groups.items() for name in names}

    def rewrite(node: ParamNode) -> ParamNode:
        present = {t.module for t in node.tensors}
        biased = {t.module for t in node.tensors if t.kind == "bias"}
        tensors: list[Tensor] = []
        done: set[str] = set()
        for t in node.tensors:
            new = owner.get(t.module)
            parts = groups.get(new, ()) if new else ()
            if not new or not set(parts) <= present or biased & set(parts) or t.kind != "linear":
                tensors.append(t)
                continue
            if new in done:
                continue
            members = [u for name in parts for u in node.tensors if u.module == name and u.kind == "linear"]
            if len({u.shape[1] for u in members}) != 1:
                tensors.append(t)
                continue
            done.add(new)
            tensors.append(Tensor(f"{new}.weight", (sum(u.shape[0] for u in members), members[0].shape[1]), "linear", new))
        return replace(node, tensors=tuple(tensors), children=tuple(rewrite(c) for c in node.children))

    return replace(tree, root=rewrite(tree.root))


def _names_any_module(tree: ParamTree, name: str, full_paths) -> bool:
    """Whether a target name reaches any module of the model by peft's rule (its full name, or a suffix after a
    dot), a norm, an embedding or a container included, or is a module's or a node's own name."""
    for p, t, m, _f in tree.root.iter_tensors(instances=True):
        if t.module == name or t.module.endswith("." + name):
            return True
        for full in full_paths(p, t.module, m, t.name):
            parts = full.split(".")
            if any(_names_match({name}, parts[i - 1], ".".join(parts[:i])) for i in range(1, len(parts) + 1)):
                return True
    return any(n.name == name for _path, n, _m in tree.root.walk())


def _linear_names(tree: ParamTree, is_router=is_bare_router) -> list[str]:
    seen: list[str] = []
    for p, t, _m, _f in tree.root.iter_tensors():
        if _is_adaptable(t, p, is_router) and t.module not in seen:
            seen.append(t.module)
    return seen


def freeze(tree: ParamTree) -> ParamTree:
    """The whole model frozen (a base whose adapters are elsewhere)."""
    return replace(tree, root=replace(tree.root, frozen=True))
