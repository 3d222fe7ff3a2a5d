"""Vision-language families: a vision tower, a projector and a language model, each from a nested config.

The nested ``text_config`` / ``vision_config`` list only what differs from the
sub-model's class defaults; ``hf_config.build_spec`` resolves each through its
own family row. Defaults are the transformers (v5) config classes'.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import fixed
from lsp_count.core.spec import Family, Field

FAMILIES: tuple[Family, ...] = (
    Family("llava", "llava", "LlavaForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (also when text_config ties)"),
        "projector_bias": Field(("multimodal_projector_bias",), True, "bool", doc="biases on the projector's two linears"),
        # An int picks one vision layer; a list concatenates several, widening the projector's input.
        "vision_feature_layer": Field(("vision_feature_layer",), -2, "any",
                                      doc="vision layer(s) fed to the projector (a list widens its input)"),
        # With no vision_config at all, LlavaConfig builds this CLIP ViT-L/14-336 tower
        # (its sub_configs_defaults init_kwargs), not CLIPVisionConfig's own defaults.
        "vision_defaults": fixed({
            "intermediate_size": 4096, "hidden_size": 1024, "patch_size": 14, "image_size": 336,
            "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 32000, "projection_dim": 768,
        }),
    }, {"LlavaForConditionalGeneration": "conditional_generation", "LlavaModel": "base"},
        subconfigs={"vision": ("vision_config", "clip_vision_model"), "text": ("text_config", "llama")}),
    Family("gemma3", "gemma3", "Gemma3ForConditionalGeneration", {
        # Gemma3Config keeps a null, which the model reads as false: the head is then its own.
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", null="false",
                                doc="output head shares the language model's embedding"),
        **LABEL_FIELDS,
    }, {"Gemma3ForConditionalGeneration": "conditional_generation", "Gemma3Model": "base",
        "Gemma3ForSequenceClassification": "sequence_classification"},
        subconfigs={"vision": ("vision_config", "siglip_vision_model"), "text": ("text_config", "gemma3_text")},
        notes=("Gemma 3 ties its output head to the language model's embeddings by default",)),
)
