"""The counting engine: a ModelSpec in, an exact parameter tree out.

Layouts are looked up by name so that a family row only names its layout.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from typing import Callable

from lsp_count.core.params import ParamNode, ParamTree, Tensor, holds_text_model
from lsp_count.core.spec import MAX_TOTAL, ModelSpec, SpecError
from lsp_count.core.source import Problem

# layout name -> "module:function" (imported on first use)
LAYOUTS: dict[str, str] = {
    "decoder": "lsp_count.core.layouts.decoder:build_decoder",
    "mamba": "lsp_count.core.layouts.decoder:build_mamba",
    "hybrid": "lsp_count.core.layouts.hybrid:build_hybrid",
    "zamba": "lsp_count.core.layouts.zamba:build_zamba",
    "gemma3n": "lsp_count.core.layouts.gemma3n:build_gemma3n",
    "gemma3n_audio": "lsp_count.core.layouts.gemma3n:build_gemma3n_audio",
    "gemma4": "lsp_count.core.layouts.gemma4:build_gemma4",
    "gemma4_vision": "lsp_count.core.layouts.gemma4:build_gemma4_vision",
    "gemma4_audio": "lsp_count.core.layouts.gemma4:build_gemma4_audio",
    "gemma4_multimodal": "lsp_count.core.layouts.gemma4:build_gemma4_multimodal",
    "encoder": "lsp_count.core.layouts.encoder:build_encoder",
    "albert": "lsp_count.core.layouts.encoder:build_albert",
    "clip": "lsp_count.core.layouts.encoder:build_clip",
    "seq2seq": "lsp_count.core.layouts.seq2seq:build_seq2seq",
    "llava": "lsp_count.core.layouts.multimodal:build_llava",
    "blip2": "lsp_count.core.layouts.qformer:build_blip2",
    "blip_vision": "lsp_count.core.layouts.qformer:build_blip_vision",
    "qformer": "lsp_count.core.layouts.qformer:build_qformer",
    "idefics2": "lsp_count.core.layouts.perceiver:build_idefics2",
    "perceiver": "lsp_count.core.layouts.perceiver:build_perceiver",
    "internvl_vision": "lsp_count.core.layouts.multimodal:build_internvl_vision",
    "got_ocr2_vision": "lsp_count.core.layouts.multimodal:build_got_ocr2_vision",
    "gemma3": "lsp_count.core.layouts.multimodal:build_gemma3",
    "retrieval": "lsp_count.core.layouts.multimodal:build_retrieval",
    "pixtral": "lsp_count.core.layouts.multimodal:build_pixtral",
    "mistral3": "lsp_count.core.layouts.multimodal:build_mistral3",
    "qwen2_5_vision": "lsp_count.core.layouts.multimodal:build_qwen2_5_vision",
    "qwen2_5_vl": "lsp_count.core.layouts.multimodal:build_qwen2_5_vl",
    "rice_vision": "lsp_count.core.layouts.multimodal:build_rice_vision",
    "kimi_k25_vision": "lsp_count.core.layouts.multimodal:build_kimi_k25_vision",
    "kimi_k25": "lsp_count.core.layouts.multimodal:build_kimi_k25",
    "llava_onevision1_5": "lsp_count.core.layouts.multimodal:build_llava_onevision1_5",
    "qwen2_vision": "lsp_count.core.layouts.multimodal:build_qwen2_vision",
    "qwen2_vl": "lsp_count.core.layouts.multimodal:build_qwen2_vl",
    "qwen3_vision": "lsp_count.core.layouts.multimodal:build_qwen3_vision",
    "qwen3_vl": "lsp_count.core.layouts.multimodal:build_qwen3_vl",
    "qwen3_vl_moe": "lsp_count.core.layouts.multimodal:build_qwen3_vl",
    "glm4v_vision": "lsp_count.core.layouts.glm4v:build_glm4v_vision",
    "glm4v": "lsp_count.core.layouts.glm4v:build_glm4v",
    "step3p7_vision": "lsp_count.core.layouts.step3p7:build_step3p7_vision",
    "step3p7": "lsp_count.core.layouts.step3p7:build_step3p7",
    "mllama_vision": "lsp_count.core.layouts.mllama:build_mllama_vision",
    "mllama": "lsp_count.core.layouts.mllama:build_mllama",
    "classic": "lsp_count.core.layouts.classic:build_classic",
    "llama4_vision": "lsp_count.core.layouts.llama4:build_llama4_vision",
    "llama4": "lsp_count.core.layouts.llama4:build_llama4",
    "speech_encoder": "lsp_count.core.layouts.speech:build_speech_encoder",
    "audio_encoder": "lsp_count.core.layouts.audio:build_audio_encoder",
    "audio_language": "lsp_count.core.layouts.audio:build_audio_language",
    "conformer_encoder": "lsp_count.core.layouts.audio:build_conformer_encoder",
    "convnet": "lsp_count.core.layouts.convnet:build_convnet",
    "swin": "lsp_count.core.layouts.swin:build_swin",
}


def layout_builder(name: str) -> Callable[[ModelSpec], ParamNode]:
    module, func = LAYOUTS[name].split(":")
    return getattr(importlib.import_module(module), func)


def count(spec: ModelSpec) -> ParamTree:
    """Count a spec exactly. Raises SpecError when the total is beyond belief."""
    root = layout_builder(spec.family.layout)(spec)
    total = root.total
    if total > MAX_TOTAL:
        raise SpecError((Problem(
            "error", "LC102",
            f"{total:.3e} parameters is beyond any real model (limit 1e18); check the sizes",
            spec.span,
        ),))
    # Facts of the family; what this document's config says is in spec.problems, located.
    families = (spec.family, *(sub.family for sub in spec.subspecs.values()))
    return ParamTree(_kept_in_fp32(root, spec), notes=spec.family.notes,
                     unreplaced_linears=frozenset(m for f in families for m in f.unreplaced_linears),
                     router_holds_linear=any(f.router_holds_linear for f in families))


# Tree nodes whose tensors transformers holds under a layer's self_attn or mlp module (the router sits in the MoE
# block: its gate is mlp.gate).
_FP32_NAME_PREFIXES = {"attention": "self_attn.", "mlp": "mlp.", "moe": "mlp."}


def _kept_in_fp32(root: ParamNode, spec: ModelSpec) -> ParamNode:
    """The tree with the tensors transformers keeps in float32 marked (Tensor.keep_fp32). A model
    class merges the lists of the sub-models it builds, and each pattern is searched in every parameter's name."""
    # (a T5 text_config's "wo" is no list of BLIP-2's retrieval head, which builds no text model)
    text_built = holds_text_model(root)
    families = (spec.family, *(sub.family for key, sub in spec.subspecs.items() if key != "text" or text_built))
    rules = [(re.compile(p), ("float16",)) for f in families for p in f.fp32_modules] + \
        [(re.compile(p), ("float16", "bfloat16")) for f in families for p in f.fp32_modules_strict]
    if not rules:
        return root

    def marked(t: Tensor, prefix: str, model: str) -> Tensor:
        # transformers searches each pattern in the parameter's full name, where a layer's attention and MLP
        # tensors sit under self_attn. and mlp. (DeepSeek-V4's "self_attn.compressor.kv_proj", MiMo-V2-Flash's
        # "mlp.gate.weight") and a composite's sub-models under their own names (BLIP-2's "qformer"); a tree
        # tensor's name starts inside its node.
        names = (t.name, prefix + t.name, model + t.name)
        kept = tuple(sorted({d for rx, ds in rules if any(rx.search(name) for name in names) for d in ds}))
        return replace(t, keep_fp32=kept) if kept else t

    def mark(n: ParamNode, prefix: str = "", model: str = "") -> ParamNode:
        prefix = _FP32_NAME_PREFIXES.get(n.name, prefix)
        tensors = tuple(marked(t, prefix, model) for t in n.tensors)
        # (the root's children of a composite are its sub-models, named as the class names them)
        children = tuple(mark(c, prefix, model or (f"{c.name}." if n is root and spec.subspecs else "")) for c in n.children)
        if all(a is b for a, b in zip(tensors + children, n.tensors + n.children)):
            return n  # nothing kept in float32 below: the node as it was
        return replace(n, tensors=tensors, children=children)

    return mark(root)
