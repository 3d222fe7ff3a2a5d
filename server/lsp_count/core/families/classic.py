"""Classic decoders: GPT-1 (openai-gpt), CTRL, XGLM and BioGPT (layout "classic", layouts/classic.py).

Each is a stack of plain (ungated) attention and MLP blocks with biases everywhere and LayerNorms, but they
differ from the llama-shaped decoder layout in what they name their modules, where their positions come from
(GPT-1's learned table of n_positions rows; BioGPT's of max_position_embeddings + 2; CTRL's and XGLM's sinusoidal
tables, which are buffers, not parameters), in their head classes (GPT-1's double heads, BioGPT's token
classifier, CTRL's tied head with a bias of its own) and in their caches (GPT-1 keeps none). The class defaults
are transformers 5.25's configuration_<openai|ctrl|xglm|biogpt>.py.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS, check_pad_token, pad_token
from lsp_count.core.families.decoders import d, fixed, merge_fields
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

_HEAD_DIM = Derived(lambda v: v["hidden_size"] // v["num_heads"], "hidden_size / num_attention_heads")

# The fields every classic decoder has; each row adds its keys, defaults and module names.
BASE: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 32000, doc="tokens in the vocabulary: rows of the embedding (and of the "
                                                    "output head unless tied)"),
    "hidden_size": Field(("hidden_size",), 1024, doc="width of the residual stream"),
    "num_layers": Field(("num_hidden_layers",), 24, doc="decoder layers"),
    "num_heads": Field(("num_attention_heads",), 16, doc="attention heads per layer"),
    # (every head is a key/value head, hidden_size / num_attention_heads wide: what the cache holds)
    "num_kv_heads": fixed(Derived(lambda v: v["num_heads"], "num_attention_heads")),
    "head_dim": fixed(_HEAD_DIM),
    "intermediate_size": Field(("intermediate_size",), 4096, doc="width of the MLP's hidden layer"),
    "max_positions": Field(("max_position_embeddings",), 1024, doc="longest sequence the positions cover"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="output head shares the embedding matrix"),
    # Rows of a learned position table (0: the positions are a sinusoidal buffer, no parameters).
    "position_rows": fixed(0),
    # Whether a sequence past max_positions fails (a table of fixed rows) where position_rows says none (CTRL's
    # sinusoidal buffer of n_positions rows, which it indexes); XGLM's grows itself.
    "fixed_positions": fixed(False),
    "norm": fixed("layer"),
    # Module names, as the model classes name them (what LoRA targets and regexes see).
    "tokens_name": fixed("embed_tokens"),
    "positions_name": fixed("embed_positions"),
    "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")),
    "mlp_names": fixed(("fc1", "fc2")),
    "layer_norms": fixed(("self_attn_layer_norm", "final_layer_norm")),
    "final_norm_name": fixed("layer_norm"),  # None: no norm after the last layer
    "head_name": fixed("lm_head"),
    "head_bias": fixed(False),
    "score_name": fixed("score"),
    "cross_attention": fixed(False),
    "kv_cache": fixed(True),  # False: the model keeps no cache (each generated token recomputes the sequence)
    # Whether the heads must divide the width (the attention raises otherwise); CTRL's floors it and builds.
    "heads_divide_hidden": fixed(True),
    **LABEL_FIELDS,
}

# GPT-1's and CTRL's configs write the short names (n_embd, ...), which their attribute_map aliases (hidden_size, ...)
# set: where a file writes both, the alias wins whatever the order (as in XGLM's d_model / hidden_size).
GPT_KEYS = {
    "hidden_size": Field(("hidden_size", "n_embd"), 768, doc=BASE["hidden_size"].doc),
    "num_layers": Field(("num_hidden_layers", "n_layer"), 12, doc=BASE["num_layers"].doc),
    "num_heads": Field(("num_attention_heads", "n_head"), 12, doc=BASE["num_heads"].doc),
    "max_positions": Field(("max_position_embeddings", "n_positions"), 512, doc=BASE["max_positions"].doc),
}


def classic(model_type: str, architecture: str, heads: dict[str, str], *overrides: dict[str, Field],
            checks: tuple = (), float_keys: tuple[str, ...] = (), pads: bool = False, notes: tuple[str, ...] = ()
            ) -> Family:
    """A classic decoder row. ``pads``: its token embedding takes pad_token_id as its padding index (which must
    then lie in the vocabulary)."""
    fields = merge_fields({**BASE, "pad_token_id": pad_token(None)} if pads else BASE, *overrides)
    return Family(model_type, "classic", architecture, fields, heads, notes=notes,
                  checks=(*checks, check_pad_token) if pads else checks, float_keys=float_keys)


def check_summary_type(spec: ModelSpec) -> list[Problem]:
    """OpenAIGPTSequenceSummary raises NotImplementedError for summary_type "attn" (the double-heads class only)."""
    if spec.head != "double_heads" or spec.values.get("summary_type") != "attn":
        return []
    return [Problem("error", "LC103", f'summary_type "attn" is not implemented: {spec.architecture} refuses it',
                    spec.key_span("summary_type") or spec.span)]


def check_sinusoid(spec: ModelSpec) -> list[Problem]:
    """XGLM's sinusoidal table: its frequencies divide by hidden_size / 2 - 1, which a width of 2 or 3 makes 0
    (ZeroDivisionError as the model is built); and its padding row (pad_token_id, zeroed) must lie in its
    max_position_embeddings + 2 rows (an IndexError otherwise)."""
    v = spec.values
    h, pad, rows = v.get("hidden_size"), v.get("pad_token_id"), v.get("max_positions")
    if h in (2, 3):
        return [Problem("error", "LC103", f"hidden_size {h}: XGLM's sinusoidal positions divide by hidden_size / 2 - 1, "
                                          "which is 0: transformers cannot build the model",
                        spec.key_span("hidden_size") or spec.span)]
    if isinstance(pad, int) and isinstance(rows, int) and not -(rows + 2) <= pad < rows + 2:
        written = "pad_token_id" if "pad_token_id" in spec.origins else "pad_token_id (class default)"
        return [Problem("error", "LC103", f"{written} {pad} is outside the sinusoidal position table "
                                          f"(max_position_embeddings {rows} + 2 rows), whose padding row it zeroes: "
                                          "transformers cannot build the model",
                        spec.key_span("pad_token_id") or spec.key_span("max_positions") or spec.span)]
    return []


FAMILIES: tuple[Family, ...] = (
    # GPT-1: post-norm blocks (ln_1 after the attention's residual, ln_2 after the MLP's), Conv1D projections
    # (a fused c_attn), an MLP 4 × n_embd wide (no key), learned positions, no final norm, no cache.
    classic("openai-gpt", "OpenAIGPTLMHeadModel",
            {"OpenAIGPTLMHeadModel": "causal_lm", "OpenAIGPTModel": "base",
             "OpenAIGPTForSequenceClassification": "sequence_classification",
             "OpenAIGPTDoubleHeadsModel": "double_heads"},
            GPT_KEYS,
            {"intermediate_size": fixed(Derived(lambda v: 4 * v["hidden_size"], "4 × n_embd")),
             "position_rows": fixed(Derived(lambda v: v["max_positions"], "n_positions")),
             "tokens_name": fixed("tokens_embed"), "positions_name": fixed("positions_embed"),
             "attn_names": fixed(("c_attn", "c_proj")), "mlp_names": fixed(("c_fc", "c_proj")),
             "layer_norms": fixed(("ln_1", "ln_2")), "final_norm_name": fixed(None), "kv_cache": fixed(False),
             # The double-heads class's multiple-choice summary (num_labels is 1 there, whatever the file says).
             "summary_use_proj": Field(("summary_use_proj",), True, "bool",
                                       doc="the multiple-choice head projects its summary (double-heads class)"),
             "summary_proj_to_labels": Field(("summary_proj_to_labels",), True, "bool",
                                             doc="the summary projects to num_labels (1 here) rather than n_embd"),
             "summary_type": Field(("summary_type",), "cls_index", "str", null="reject",
                                   doc='how the multiple-choice head pools ("attn" is not implemented)')},
            d(vocab_size=40478),
            checks=(check_summary_type,), float_keys=("num_attention_heads",),
            notes=("OpenAI GPT keeps no KV cache: generation recomputes the whole sequence each step",)),
    # CTRL: pre-norm blocks (layernorm1, layernorm2), Wq / Wk / Wv / dense and an ffn Sequential (ffn.0, ffn.2), a
    # final layernorm, a sinusoidal position buffer of n_positions rows, and a head tied to w with its own bias.
    classic("ctrl", "CTRLLMHeadModel",
            {"CTRLLMHeadModel": "causal_lm", "CTRLModel": "base", "CTRLForSequenceClassification": "sequence_classification"},
            GPT_KEYS,
            {"intermediate_size": Field(("dff",), 8192, doc="width of the MLP's hidden layer")},
            {"fixed_positions": fixed(True), "tokens_name": fixed("w"),
             "attn_names": fixed(("Wq", "Wk", "Wv", "dense")), "mlp_names": fixed(("ffn.0", "ffn.2")),
             "layer_norms": fixed(("layernorm1", "layernorm2")), "final_norm_name": fixed("layernorm"),
             "head_bias": fixed(True), "score_name": fixed("classifier"),
             # MultiHeadAttention floors n_embd / n_head and builds (its projections are n_embd wide whatever the heads).
             "heads_divide_hidden": fixed(False), "floor_head_dim": fixed(True)},
            d(vocab_size=246534, hidden_size=1280, num_layers=48, num_heads=16, max_positions=256),
            # (n_positions sizes only the sinusoidal buffer, which torch.arange builds from a float too)
            float_keys=("num_attention_heads", "max_position_embeddings"),
            notes=("CTRL's sinusoidal position table is a buffer (n_positions × n_embd values in the model's dtype), "
                   "not parameters: neither the count nor the memory estimate holds it",)),
    # XGLM: pre-norm, BART-style names, a scaled token embedding (padding_idx pad_token_id), sinusoidal positions (a
    # buffer), a final layer_norm; add_cross_attention gives each layer an encoder_attn and its norm.
    classic("xglm", "XGLMForCausalLM", {"XGLMForCausalLM": "causal_lm", "XGLMModel": "base"},
            {"hidden_size": Field(("hidden_size", "d_model"), 1024, doc=BASE["hidden_size"].doc),
             "num_layers": Field(("num_hidden_layers", "num_layers"), 24, doc=BASE["num_layers"].doc),
             "num_heads": Field(("num_attention_heads", "attention_heads"), 16, doc=BASE["num_heads"].doc),
             "intermediate_size": Field(("ffn_dim",), 4096, doc="width of the MLP's hidden layer"),
             "cross_attention": Field(("add_cross_attention",), False, "bool",
                                      doc="each layer also attends to an encoder's states (encoder_attn)")},
            d(vocab_size=256008, max_positions=2048, pad_token_id=1),
            checks=(check_sinusoid,), float_keys=("num_attention_heads",), pads=True,
            notes=("XGLM's sinusoidal position table is a buffer ((max_position_embeddings + 2) × d_model values), not "
                   "parameters: neither the count nor the memory estimate holds it",)),
    # BioGPT: OPT's layer (pre-norm, fc1 / fc2), a scaled token embedding, learned positions with an offset of 2,
    # output_projection for the head, and a token classifier.
    classic("biogpt", "BioGptForCausalLM",
            {"BioGptForCausalLM": "causal_lm", "BioGptModel": "base",
             "BioGptForSequenceClassification": "sequence_classification",
             "BioGptForTokenClassification": "token_classification"},
            {"position_rows": fixed(Derived(lambda v: v["max_positions"] + 2, "max_position_embeddings + 2")),
             "head_name": fixed("output_projection")},
            d(vocab_size=42384, pad_token_id=1),
            pads=True),
)
