"""Q-Former vision-language families: BLIP-2 and InstructBLIP (layouts/qformer.py).

A BLIP vision tower, a Q-Former (num_query_tokens learned queries, cross-attention to the tower every
cross_attention_frequency layers), a projection and the language model of text_config, which resolves through
its own family (AutoConfig: OPT when text_config names no model_type; T5 for the Flan-T5 checkpoints). The
vision and Q-Former configs are always the composite's own classes, whatever model_type they name. Defaults
are the transformers (v5) config classes' (Salesforce/blip2-opt-2.7b's sizes).
"""

from __future__ import annotations

from lsp_count.core.families.common import check_pad_token, pad_token
from lsp_count.core.families.decoders import HEAD_DIM, fixed
from lsp_count.core.spec import Family, Field

# Blip2VisionConfig / InstructBlipVisionConfig (the same but for their names). image_size and patch_size are
# typed int | list, but a list fails to build ((image_size // patch_size) ** 2 patches): whole numbers only.
BLIP_VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1408, doc="width of the vision layers"),
    "intermediate_size": Field(("intermediate_size",), 6144, doc="width of each layer's MLP (fc1, fc2)"),
    "num_layers": Field(("num_hidden_layers",), 39, minimum=0, doc="vision layers"),
    "num_heads": Field(("num_attention_heads",), 16, doc="attention heads per layer (they must divide the width)"),
    "head_dim": fixed(HEAD_DIM),
    "heads_checked_in_layers": fixed(True),  # only the layers' attention refuses heads that do not divide
    "image_size": Field(("image_size",), 224, doc="input image side in pixels (the position table follows)"),
    "patch_size": Field(("patch_size",), 14, doc="patch side in pixels (the patch embedding's kernel)"),
    "qkv_bias": Field(("qkv_bias",), True, "bool", doc="a bias on the fused qkv (3 × hidden_size; the keys' part zero)"),
}

# Blip2QFormerConfig / InstructBlipQFormerConfig: a BERT-base-sized Q-Former. Its encoder_hidden_size (the
# cross-attention's key and value input) is what the composite config overwrites with the tower's width.
QFORMER: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 30522, doc="rows of the Q-Former's word embedding (where it has one)"),
    "hidden_size": Field(("hidden_size",), 768, doc="width of the Q-Former and its queries"),
    "num_layers": Field(("num_hidden_layers",), 12, minimum=0, doc="Q-Former layers"),
    "num_heads": Field(("num_attention_heads",), 12, doc="attention heads per layer (they must divide the width)"),
    "head_dim": fixed(HEAD_DIM),
    "heads_checked_in_layers": fixed(True),
    "intermediate_size": Field(("intermediate_size",), 3072, doc="width of each feed-forward"),
    "max_positions": Field(("max_position_embeddings",), 512, doc="rows of the position table (where it has one)"),
    "cross_attention_frequency": Field(("cross_attention_frequency",), 2,
                                       doc="layers 0, f, 2f, ... cross-attend to the vision tower"),
    "encoder_hidden_size": Field(("encoder_hidden_size",), 1408,
                                 doc="cross-attention key/value input width (in a composite: the tower's width)"),
    "pad_token_id": pad_token(0),
}


def _qformer(model_type: str, architecture: str, own: dict[str, Field], checks: tuple = ()) -> Family:
    return Family(model_type, "qformer", architecture, {**QFORMER, **own}, {architecture: "base"}, checks=checks)


def _composite(model_type: str, prefix: str, vision_type: str, qformer_type: str, fields: dict[str, Field],
               heads: dict[str, str], fp32: tuple[str, ...]) -> Family:
    architecture = f"{prefix}ForConditionalGeneration"
    return Family(model_type, "blip2", architecture, {
        "num_query_tokens": Field(("num_query_tokens",), 32, doc="learned queries the Q-Former turns into image tokens"),
        **fields,
    }, {architecture: "conditional_generation", f"{prefix}Model": "base", **heads},
        subconfigs={"vision": ("vision_config", vision_type), "qformer": ("qformer_config", qformer_type),
                    "text": ("text_config", "opt")},
        fixed_subconfigs=("vision", "qformer"), fp32_modules=fp32)


FAMILIES: tuple[Family, ...] = (
    Family("blip_2_vision_model", "blip_vision", "Blip2VisionModel", BLIP_VISION, {"Blip2VisionModel": "base"}),
    Family("instructblip_vision_model", "blip_vision", "InstructBlipVisionModel", BLIP_VISION,
           {"InstructBlipVisionModel": "base"}),
    # BLIP-2's Q-Former: a LayerNorm on the queries, no embeddings of its own (the retrieval classes hold them);
    # use_qformer_text_input adds the text tokens' feed-forward to every layer.
    _qformer("blip_2_qformer", "Blip2QFormerModel", {
        "use_qformer_text_input": Field(("use_qformer_text_input",), False, "bool",
                                        doc="every layer also has the text tokens' feed-forward (intermediate, output)"),
        "qformer_embeddings": fixed(False),
    }),
    # InstructBLIP's: it embeds the instruction (word and position tables, a LayerNorm), and every layer has
    # the text tokens' feed-forward.
    _qformer("instructblip_qformer", "InstructBlipQFormerModel", {"qformer_embeddings": fixed(True)},
             checks=(check_pad_token,)),
    # BLIP-2: Blip2Model holds the language model with its head too (AutoModelForCausalLM), as the head class does.
    _composite("blip-2", "Blip2", "blip_2_vision_model", "blip_2_qformer", {
        "image_text_hidden_size": Field(("image_text_hidden_size",), 256,
                                        doc="width of the retrieval classes' vision and text projections"),
        "bare_language_model": fixed(False),
    }, {"Blip2TextModelWithProjection": "text_with_projection", "Blip2VisionModelWithProjection": "vision_with_projection",
        "Blip2ForImageTextRetrieval": "image_text_retrieval"}, ("query_tokens", "qformer")),
    # InstructBLIP: InstructBlipModel holds the bare language model (AutoModel).
    _composite("instructblip", "InstructBlip", "instructblip_vision_model", "instructblip_qformer",
               {"bare_language_model": fixed(True)}, {}, ("query_tokens",)),
)
