"""Gemma 3n, counted by ``layouts/gemma3n.py``: the text model (``gemma3n_text``: Gemma3nForCausalLM,
Gemma3nTextModel) and the audio encoder on its own (``gemma3n_audio``: Gemma3nAudioEncoder, at the end of this file).
The composite the released checkpoints are (``gemma3n``: Gemma3nForConditionalGeneration) is not counted: its vision
tower is a timm model (TimmWrapperModel over vision_config's ``architecture``), which no table here holds.

``Gemma3nTextConfig`` (transformers 5.25) lays its layers out one by one:

* ``layer_types`` (default: every fifth layer full attention, the others sliding; unlike Gemma 4's, the last is not
  forced to full). Both kinds of layer are alike in their parameters: one head width (``head_dim``), one number of
  key/value heads.
* ``num_kv_shared_layers`` (default 15): the last layers reuse the keys and values of the last earlier layer of their
  type: no k_proj / v_proj / k_norm and nothing in the cache (``kv_sharing_modes``, transcribed line for line: 0
  shares nothing; all of them, or layer types only the sharing layers have, the class refuses; more than the layers
  it builds as its Python indexing reads them).
* ``intermediate_size``: one MLP width for every layer, or a list of one per layer (another length is refused).
* ``activation_sparsity_pattern``: a sparsity per layer (its forward pass keeps the top activations; no parameters):
  a list of floats, one per layer, or null (the class's own); anything else is refused.
* Every layer has AltUp (``altup_num_inputs`` predictions: correct_output_scale, correction_coefs, prediction_coefs,
  modality_router, router_norm), a Laurel block (``laurel_rank``) and per-layer inputs (``hidden_size_per_layer_input``,
  0 builds 0-wide ones); the model an embedding per layer input and ``altup_num_inputs - 1`` AltUp projections in and
  out. ``final_logit_softcapping`` has no parameters.

``gemma4_layers`` holds the per-layer plan in the form Gemma 4's has (memory.py's KV cache reads it: a layer that
reuses another's keys and values caches nothing).
"""

from __future__ import annotations

import json

from lsp_count.core.families.common import PaddedEmbedding, pad_token, pad_token_problem, rope_entry_problem
from lsp_count.core.families.decoders import ROPE, fixed, rope_by_layer_type
from lsp_count.core.families.gemma4 import GEMMA4_ROPE_TYPES
from lsp_count.core.source import Problem
from lsp_count.core.spec import MAX_DIMENSION, Derived, Family, Field

SLIDING, FULL = "sliding_attention", "full_attention"
# The layer types PreTrainedConfig takes (transformers 5.25's ALLOWED_LAYER_TYPES). Gemma 3n's layers are alike
# whatever their type (only sliding_attention slides); its rotary embedding reads rope_parameters[type] for each type
# present: one other than sliding_attention and full_attention builds where the file's rope_parameters has an entry
# for it (null: none; else one whose every type takes rope_theta, as Gemma 4's).
ALLOWED_LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "window_attention",
                       "indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                       "minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding", "reference_sliding_attention",
                       "linear_attention", "sparse", "dense")


def _layer_types(v) -> tuple[str, ...]:
    written = v["layer_types_written"]
    if written is not None:
        return tuple(written)
    return tuple(FULL if (i + 1) % 5 == 0 else SLIDING for i in range(v["num_layers"]))


def kv_sharing_modes(v) -> tuple[str | None, ...]:
    """Gemma3nTextConfig.kv_sharing_modes, line for line (Python's negative indices included): None (own keys and
    values), "store" (own, kept for the sharing layers), "reuse" (another layer's). Raises ValueError as the config
    class does, IndexError where the model cannot be built (a negative num_kv_shared_layers)."""
    n, shared, types = v["num_layers"], v["num_kv_shared_layers"], list(v["layer_types"])
    if shared == 0:
        return (None,) * n
    first = n - shared
    modes: list[str | None] = [None if i < first else "reuse" for i in range(n)]
    unshared = types[0:first][::-1]
    if sorted(set(unshared)) != sorted(set(types)):
        raise ValueError("the set of layer types producing a cache is different from the set of layer types using "
                         "them")
    for k in set(types):
        modes[first - 1 - unshared.index(k)] = "store"
    return tuple(modes)


def mlp_widths(v) -> tuple[int, ...]:
    """Each layer's MLP width, as Gemma3nTextConfig.__post_init__ spreads intermediate_size. Raises ValueError
    where the class refuses it."""
    n, written = v["num_layers"], v["intermediate_size_written"]
    if isinstance(written, list):
        written = tuple(written)
    if type(written) is int:
        widths: tuple = (written,) * n
    elif isinstance(written, tuple):
        if len(written) != n:
            raise ValueError(f'"intermediate_size": {len(written)} widths for {n} layers (one per layer, or one for '
                             "all)")
        widths = written
    else:
        raise ValueError(f'"intermediate_size": {json.dumps(written)} is not a whole number or a list of one per '
                         "layer")
    for w in widths:
        if type(w) is not int or not 0 <= w <= MAX_DIMENSION:
            raise ValueError(f'"intermediate_size": {json.dumps(w)} is not a width (a whole number, 0 or more)')
    return widths


def layer_plan(v) -> tuple[tuple[object, ...], ...]:
    """Per layer: (layer type, head width, key/value heads, sharing mode, has k_proj, has v_proj, MLP width), the
    form of Gemma 4's plan. Raises ValueError (its message the reason) for a config transformers refuses or cannot
    build."""
    n, types = v["num_layers"], v["layer_types"]
    if len(types) != n:
        raise ValueError(f'"layer_types": {len(types)} entries for {n} layers')
    unknown = sorted(set(types) - set(ALLOWED_LAYER_TYPES))
    if unknown:
        raise ValueError(f'"layer_types": {", ".join(map(json.dumps, unknown))}: not a layer type transformers takes')
    rope = v["rope_parameters"]
    for t in sorted(set(types) - {SLIDING, FULL}):
        if not isinstance(rope, dict) or t not in rope:
            raise ValueError(f'"layer_types": {t}: the rotary embedding reads rope_parameters["{t}"], which the '
                             "file does not give (Gemma 3n fills only sliding_attention and full_attention)")
        if rope[t] is not None and not isinstance(rope[t], dict):
            raise ValueError(f'"rope_parameters": its "{t}" entry is not a mapping')
    pattern = v["activation_sparsity_pattern"]
    if pattern is not None:
        if not isinstance(pattern, (list, tuple)) or any(type(x) is not float for x in pattern):
            raise ValueError(f'"activation_sparsity_pattern": {json.dumps(pattern)} is not a list of numbers with a '
                             "decimal point (Gemma3nTextConfig takes floats, one per layer)")
        if len(pattern) != n:
            raise ValueError(f'"activation_sparsity_pattern": {len(pattern)} values for {n} layers')
    widths = mlp_widths(v)
    try:
        modes = kv_sharing_modes(v)
    except IndexError:
        raise ValueError(f'"num_kv_shared_layers": {v["num_kv_shared_layers"]} puts the layer that keeps the keys and '
                         "values outside the layers: Gemma3nTextConfig.kv_sharing_modes fails on it") from None
    except ValueError as exc:
        raise ValueError(f'"num_kv_shared_layers": {exc}') from None
    d, kv = v["head_dim"], v["num_kv_heads"]
    return tuple((t, d, kv, modes[i], modes[i] != "reuse", modes[i] != "reuse", widths[i]) for i, t in enumerate(types))


def _plan_or_none(v):
    try:
        return layer_plan(v)
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def _widest(v) -> int:
    try:
        return max(mlp_widths(v), default=0)
    except ValueError:
        return 0


def _check(spec) -> list[Problem]:
    v = spec.values
    out: list[Problem] = []
    where = spec.span
    try:
        layer_plan(v)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        key = str(exc).split('"')[1] if str(exc).startswith('"') else None
        name = {"layer_types": "layer_types_written", "intermediate_size": "intermediate_size_written",
                "activation_sparsity_pattern": "activation_sparsity_pattern",
                "num_kv_shared_layers": "num_kv_shared_layers"}.get(key or "", "num_kv_shared_layers")
        out.append(Problem("error", "LC102", f"{exc}: Gemma3nTextConfig refuses the config or the model cannot be "
                                             "built", spec.key_span(name) or spec.key_span("num_layers") or where))
    d, rope = v.get("head_dim"), v.get("rope_parameters")
    if v.get("num_layers") == 0 and type(d) is int and d > 4 and d % 2:
        # No layer types: transformers' RoPE check reads rope_parameters as one flat entry (its top-level
        # partial_rotary_factor, else 1.0), and refuses an odd head width it turns whole.
        share = rope.get("partial_rotary_factor", 1.0) if isinstance(rope, dict) else 1.0
        if isinstance(share, (int, float)) and not isinstance(share, bool) and int(d * share) == d:
            out.append(Problem("error", "LC103", f"head_dim {d} is odd and fully rotated (no layers: rope_parameters "
                                                 "is checked as one entry): transformers' RoPE needs an even rotary "
                                                 "dimension and refuses the config", spec.key_span("head_dim") or where))
    if not out and isinstance(rope, dict):  # the entries of other layer types (the generic check reads two)
        for t in sorted(set(v["layer_types"]) - {SLIDING, FULL}):
            entry = rope.get(t)
            if not isinstance(entry, dict):
                continue
            problem = rope_entry_problem(entry, GEMMA4_ROPE_TYPES, f'"rope_parameters" ({t})',
                                         spec.key_span("rope_parameters") or where)
            share = entry.get("partial_rotary_factor", 1.0)
            if problem is None and type(d) is int and d > 4 and d % 2 and isinstance(share, (int, float)) \
                    and int(d * share) == d:
                problem = Problem("error", "LC103", f"head_dim {d} is odd and fully rotated (for {t} layers): "
                                                    "transformers' RoPE needs an even rotary dimension and refuses "
                                                    "the config", spec.key_span("head_dim") or where)
            if problem is not None:
                out.append(problem)
                break
    cap = v.get("final_logit_softcapping")
    if "final_logit_softcapping" in spec.origins and not isinstance(cap, float):  # (a strict float field)
        out.append(Problem("error", "LC102", f'"final_logit_softcapping": {json.dumps(cap)} is not a number with a '
                                             "decimal point: Gemma3nTextConfig's field takes a float alone",
                           spec.key_span("final_logit_softcapping") or where))
    # The token embedding and the per-layer embedding both take pad_token_id as their padding index.
    problem = pad_token_problem(spec, [PaddedEmbedding(what, name, name, label=spec.key_label(name) if name in spec.origins
                                                       else spec.family.fields[name].keys[0])
                                       for what, name in (("token embedding", "vocab_size"),
                                                          ("per-layer embedding", "per_layer_vocab"))])
    if problem is not None:
        out.append(problem)
    return out


FIELDS: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 262400, doc="tokens in the vocabulary: rows of the embedding (and of the "
                                                     "output head unless tied)"),
    "pad_token_id": pad_token(0),
    "hidden_size": Field(("hidden_size",), 2048, doc="width of the residual stream"),
    "num_layers": Field(("num_hidden_layers",), 35, minimum=0, doc="decoder layers"),
    "num_heads": Field(("num_attention_heads",), 8, doc="query heads per attention layer"),
    "num_kv_heads": Field(("num_key_value_heads",), 2, doc="key/value heads per attention layer"),
    "head_dim": Field(("head_dim",), 256, doc="width of each attention head"),
    # Gemma3nTextConfig refuses hidden_size % num_attention_heads != 0 even with head_dim set.
    "heads_divide_hidden": fixed(True),
    "intermediate_size_written": Field(("intermediate_size",), 16384, "any", null="reject",
                                       doc="width of the MLP's hidden layer: one for all layers, or one per layer"),
    # (the memory estimate's activations: the widest layer's MLP; a gated one)
    "ffn_width": Field((), Derived(_widest, "the widest layer's intermediate_size"), "any"),
    "mlp_gated": fixed(True),
    "activation_sparsity_pattern": Field(("activation_sparsity_pattern",), None, "any",
                                         doc="sparsity of each layer's MLP activations (no parameters)"),
    "final_logit_softcapping": Field(("final_logit_softcapping",), 30.0, "any", null="reject",
                                     doc="cap on the logits (tanh; no parameters)"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="output head shares the embedding matrix"),
    "attention_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
    "sliding_window": Field(("sliding_window",), 512, minimum=0, doc="tokens a sliding-window attention layer sees"),
    "layer_types_written": Field(("layer_types",), None, "strs", doc="sliding_attention or full_attention per layer"),
    "layer_types": Field((), Derived(_layer_types, "layer_types, else every fifth layer full"), "any"),
    **ROPE,
    **rope_by_layer_type(("full_attention",), Derived(lambda v: v["layer_types"], "layer_types")),
    "max_positions": Field(("max_position_embeddings",), 32768, doc="longest sequence the rotary positions support"),
    "per_layer_vocab": Field(("vocab_size_per_layer_input",), 262144, doc="rows of the per-layer input embedding"),
    "per_layer_width": Field(("hidden_size_per_layer_input",), 256, minimum=0,
                             doc="width of each layer's input (0 builds 0-wide projections)"),
    "altup_num_inputs": Field(("altup_num_inputs",), 4, minimum=0,
                              doc="AltUp's predictions: the residual stream's copies (altup_num_inputs - 1 "
                                  "projections in and out)"),
    "laurel_rank": Field(("laurel_rank",), 64, minimum=0,
                         doc="rank of each layer's Laurel block (a low-rank residual)"),
    "num_kv_shared_layers": Field(("num_kv_shared_layers",), 15, minimum=-(10 ** 9),
                                  doc="last layers that reuse an earlier layer's keys and values"),
    "gemma4_layers": Field((), Derived(_plan_or_none, "per layer: type, head width, kv heads, sharing, MLP width"),
                           "any"),
}


# --- the audio encoder (gemma3n_audio: Gemma3nAudioEncoder) ------------------------------------------------------
# Gemma3nAudioConfig's defaults. Its heads are hidden_size // conf_num_attention_heads wide (0 wide fails: the
# attention scales by head_dim ** -0.5). The subsampling's two Conv2d read sscp_conv_channel_size[0] and [1] and
# the first two kernel and stride pairs (more are not read; fewer fail); input_proj_linear takes
# sscp_conv_channel_size[-1] × the frequencies left after both convolutions (each pads the frequencies by 1 on
# both sides). The local attention's mask is built as the model is: a negative chunk, or context, fails.


def sscp_widths(v) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int], int]:
    """The two subsampling convolutions' (out channels, in channels, kernel height, kernel width), and
    input_proj_linear's in_features, as Gemma3nAudioSubSampleConvProjection computes them. Raises ValueError where
    the model cannot be built."""
    channels, kernels, strides = v["sscp_conv_channel_size"], v["sscp_conv_kernel_size"], v["sscp_conv_stride_size"]
    for key, value in (("sscp_conv_channel_size", channels), ("sscp_conv_kernel_size", kernels),
                       ("sscp_conv_stride_size", strides)):
        if not isinstance(value, (list, tuple)) or len(value) < 2:
            raise ValueError(f'"{key}": {json.dumps(value)}: the two subsampling convolutions read two entries')
    for key, value in (("sscp_conv_kernel_size", kernels), ("sscp_conv_stride_size", strides)):
        for pair in value[:2]:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f'"{key}": {json.dumps(pair)} is not a (height, width) pair')
    for c in channels:
        if type(c) is not int:
            raise ValueError(f'"sscp_conv_channel_size": {json.dumps(c)} is not a whole number')
    freq = v["input_feat_size"]
    convs = []
    for i in range(2):
        (kh, kw), (_sh, sw) = kernels[i], strides[i]
        for name, x in (("kernel", kh), ("kernel", kw), ("stride", sw)):
            if not isinstance(x, int):  # (true and false count as 1 and 0, as Python and torch take them)
                raise ValueError(f'"sscp_conv_{name}_size": {json.dumps(x)} is not a whole number')
        if sw == 0:
            raise ValueError('"sscp_conv_stride_size": a frequency stride of 0 (the model divides by it)')
        c_in = 1 if i == 0 else channels[0]
        if min(channels[i], kh, kw) < 0:
            raise ValueError(f'"sscp_conv_kernel_size": convolution {i} would have a negative size')
        convs.append((channels[i], c_in, int(kh), int(kw)))
        freq = (freq + 2 - kw) // sw + 1
    in_features = channels[-1] * freq
    if in_features < 0:
        raise ValueError(f'"sscp_conv_kernel_size": input_proj_linear would take {in_features} features (the '
                         "frequencies left after the convolutions × the last channel count)")
    return convs[0], convs[1], in_features


def _sscp_or_none(v):
    try:
        return sscp_widths(v)
    except (ValueError, TypeError):
        return None


def _audio_check(spec) -> list[Problem]:
    v = spec.values
    out: list[Problem] = []
    where = spec.span
    try:
        if v.get("sscp_shapes") is None:  # (the derived value, None where they cannot be built: say why)
            sscp_widths(v)
    except (ValueError, TypeError) as exc:
        key = str(exc).split('"')[1] if str(exc).startswith('"') else "sscp_conv_kernel_size"
        out.append(Problem("error", "LC102", f"{exc}: Gemma3nAudioEncoder cannot be built",
                           spec.key_span(key) or where))
    if not v.get("num_layers"):  # (no conformer block: nothing below is built)
        return out
    hidden, heads, kernel = v.get("hidden_size"), v.get("num_heads"), v.get("conv_kernel_size")
    if type(hidden) is int and type(heads) is int and not 1 <= heads <= hidden:
        out.append(Problem("error", "LC103", f"{spec.key_label('num_heads')} ({heads}) is not between 1 and "
                                             f"hidden_size ({hidden}): each head would be {hidden // heads if heads else 0}"
                                             " wide, which Gemma 3n's audio attention cannot build (it scales by "
                                             "head_dim ** -0.5)",
                           spec.key_span("num_heads") or spec.key_span("hidden_size") or where))
    if type(kernel) is int and kernel < 0:
        out.append(Problem("error", "LC103", f"{spec.key_label('conv_kernel_size')} ({kernel}) is negative: the "
                                             "depthwise convolution cannot be built",
                           spec.key_span("conv_kernel_size") or where))
    chunk, left, right = v.get("attention_chunk_size"), v.get("context_left"), v.get("context_right")
    if all(type(x) is int for x in (chunk, left, right)):
        context = chunk + max(0, left - 1) + right
        if chunk < 0 or context < 0:
            out.append(Problem("error", "LC102", f"the local attention's chunk ({chunk}) or context ({chunk} + "
                                                 f"{max(0, left - 1)} + {right}) is negative: Gemma3nAudioEncoder "
                                                 "cannot build its mask",
                               spec.key_span("attention_chunk_size") or spec.key_span("context_right") or where))
    return out


AUDIO_FIELDS: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1536, minimum=0, doc="width of the conformer layers"),
    "num_layers": Field(("conf_num_hidden_layers",), 12, minimum=0, doc="conformer layers"),
    "num_heads": Field(("conf_num_attention_heads",), 8, minimum=-(10 ** 9),
                       doc="attention heads (hidden_size // heads wide)"),
    "conv_kernel_size": Field(("conf_conv_kernel_size",), 5, minimum=-(10 ** 9),
                              doc="width of each layer's depthwise convolution"),
    "attention_chunk_size": Field(("conf_attention_chunk_size",), 12, minimum=-(10 ** 9),
                                  doc="positions per chunk of the local attention (no parameters)"),
    "context_left": Field(("conf_attention_context_left",), 13, minimum=-(10 ** 9),
                          doc="left context of the local attention (no parameters)"),
    "context_right": Field(("conf_attention_context_right",), 0, minimum=-(10 ** 9),
                           doc="right context of the local attention (no parameters)"),
    "input_feat_size": Field(("input_feat_size",), 128, minimum=-(10 ** 9),
                             doc="mel channels per frame (the frequencies the subsampling convolves)"),
    "sscp_conv_channel_size": Field(("sscp_conv_channel_size",), (128, 32), "any", null="reject",
                                    doc="output channels of the two subsampling convolutions"),
    "sscp_conv_kernel_size": Field(("sscp_conv_kernel_size",), ((3, 3), (3, 3)), "any", null="reject",
                                   doc="(time, frequency) kernel of each subsampling convolution"),
    "sscp_conv_stride_size": Field(("sscp_conv_stride_size",), ((2, 2), (2, 2)), "any", null="reject",
                                   doc="(time, frequency) stride of each subsampling convolution"),
    "sscp_shapes": Field((), Derived(_sscp_or_none, "the subsampling convolutions' shapes and input_proj_linear's "
                                                    "in_features"), "any"),
}


FAMILIES: tuple[Family, ...] = (
    Family("gemma3n_text", "gemma3n", "Gemma3nForCausalLM", FIELDS,
           heads={"Gemma3nForCausalLM": "causal_lm", "Gemma3nTextModel": "base"},
           notes=("Gemma 3n ties its output head to the embeddings by default",),
           checks=(_check,)),
    Family("gemma3n_audio", "gemma3n_audio", "Gemma3nAudioEncoder", AUDIO_FIELDS, {"Gemma3nAudioEncoder": "base"},
           checks=(_audio_check,)),
)
