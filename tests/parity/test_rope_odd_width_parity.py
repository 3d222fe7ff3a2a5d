"""An odd head width under rotary positions, against transformers 5: its config classes refuse a
head_dim over 4 that is odd and fully rotated (RotaryEmbeddingConfigMixin.validate_rope: RoPE turns
pairs of values), and cannot build YaRN's rotary embedding for an odd number of rotated values over 4;
lsp-count gives an LC103 error at the key instead of a count. Before, it counted such configs (37
families and widths where transformers refuses).

For every family with rotary positions, on random small configs (tests/parity/strategies.py): the
width written (head_dim; DeepSeek-V2's qk_rope_head_dim) or derived (hidden_size = heads × width,
no head_dim), odd or even, with a partial_rotary_factor where the file gives one (at the top level,
in rope_parameters, of the default type or YaRN's, in the legacy rope_scaling, GPT-NeoX's rotary_pct,
per layer type where the config nests them): where transformers refuses the config or cannot build
the model, lsp-count refuses it (the rotary reason, naming the key, where that is transformers'
reason); elsewhere the count is transformers'. Whether the config class holds a head_dim at all differs by family
(LlamaConfig derives one, Qwen2Config keeps only a written one, Gemma's default is 256), and so
whether a derived odd width is refused."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry, supported_model_types
from lsp_count.core.spec import Derived

from .meta_count import ODD_ROTARY, lsp_count_verdict, transformers_verdict
from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

FACTORS = [0.25, 0.5, 0.75, 0.9, 1.0]
YARN = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 16}
# Classes that refuse YaRN for reasons of its own keys, not the width (not drawn there).
NO_YARN = {"phi3": "Phi3Config takes the default and longrope types only",
           "phimoe": "PhimoeConfig wants short_mscale and long_mscale beside any but the default type",
           "qwen3_vl_vision": "its config has no max_position_embeddings, which YaRN reads",
           "qwen3_vl_moe_vision": "its config has no max_position_embeddings, which YaRN reads",
           "pixtral": "its config has no max_position_embeddings, which YaRN reads"}
# Classes that refuse every odd head width for a reason of their own, before their RoPE check (both refuse it, for
# that reason: _judge).
ODD_WIDTH_REFUSED_FIRST = {"kolibri1_1": "Kolibri1_1Config wants a head_dim that is a multiple of 16 (its NVFP4 "
                                         "rounding of keys and values)"}


def _families() -> list[str]:
    return [mt for mt in supported_model_types() if "rope_head_dim" in registry()[mt].fields
            and strategy_for(mt) is not None and mt in transformers.CONFIG_MAPPING]


def _written_width_key(model_type: str) -> str | None:
    """The key a file writes the rotary head width under (head_dim; DeepSeek-V2's qk_rope_head_dim), or
    None where the config class takes none (Falcon's head_dim is a property it cannot set)."""
    fields = registry()[model_type].fields
    for name in ("rope_head_dim", "head_dim"):
        if name in fields and fields[name].keys:
            return fields[name].keys[0]
    return None


@st.composite
def _rope_settings(draw, model_type: str) -> dict:
    """Keys that set the partial rotary factor, as the family's config class reads them (or not)."""
    fields = registry()[model_type].fields
    nested = "rope_scaling_layer_types" in fields

    def factor() -> dict:
        return {"partial_rotary_factor": draw(st.sampled_from(FACTORS))} if draw(st.booleans()) else {}

    out: dict = {}
    if draw(st.booleans()):  # a top-level share: the family's own key (read or not)
        share_keys = fields["partial_rotary_factor"].keys or ("partial_rotary_factor",)
        out[share_keys[0]] = draw(st.sampled_from(FACTORS))
    if draw(st.booleans()):
        out["rope_scaling"] = {"rope_type": "default", **factor()}
    if draw(st.booleans()) and not nested:
        # YaRN builds only an even number of rotated values (over 4): GPT-OSS's default.
        kind = draw(st.sampled_from([{"rope_type": "default"}] + ([] if model_type in NO_YARN else [YARN])))
        out["rope_parameters"] = {**kind, **factor()}
    elif nested and draw(st.booleans()):
        # Per layer type, some entries or all. (Those rope_scaling updates are given: the config class
        # updates them before it fills the missing ones, and fails on one that is missing.)
        types = set(draw(st.sampled_from([("full_attention",), ("sliding_attention",),
                                          ("full_attention", "sliding_attention")])))
        types |= set(fields["rope_scaling_layer_types"].default) if "rope_scaling" in out else set()
        out["rope_parameters"] = {t: {"rope_type": "default", **factor()} for t in sorted(types)}
    return out


def _with_width(config: dict, model_type: str, width: int, how: str) -> bool:
    """Give ``config`` the head width ``width``: "written" under its key, "derived" (hidden_size = heads ×
    width, no head_dim), or "both" (written, and hidden_size heads × as wide: Qwen2VLVisionConfig refuses
    any other written head_dim). False where the config lacks what that takes."""
    fields = registry()[model_type].fields
    if how == "written":
        config[_written_width_key(model_type)] = width
        return True
    hidden = [key for key in fields["hidden_size"].keys if key in config]
    heads = [config[key] for key in fields["num_heads"].keys if key in config]
    if not hidden or not heads or type(heads[0]) is not int:
        return False
    for key in hidden:
        config[key] = heads[0] * width
    config.pop("head_dim", None)
    if how == "both":
        config[_written_width_key(model_type)] = width
    return True


def _judge(config: dict, model_type: str, how: str) -> int | str | None:
    """Assert lsp-count refuses ``config`` where transformers does, naming the key where the reason is the
    odd rotary width, and otherwise counts what transformers counts; transformers' answer."""
    want = transformers_verdict(config)
    got, errors = lsp_count_verdict(config)
    assert got == (None if want == ODD_ROTARY else want), (json.dumps(config), want, errors)
    if want == ODD_ROTARY:
        fields = registry()[model_type].fields
        named = [_written_width_key(model_type)] if how != "derived" else \
            [key for name in ("num_heads", "hidden_size") for key in fields[name].keys if key in config]
        assert any("even rotary dimension" in e and any(key in e for key in named) for e in errors), errors
    return want


@pytest.mark.parametrize("model_type", _families())
def test_an_odd_rotary_width_is_refused_where_transformers_refuses_it(model_type: str) -> None:
    """Each width written and derived, on a few random configs, with no rotary keys of the file's own."""
    can_write = _written_width_key(model_type) is not None
    refused: set[tuple[int, str]] = set()

    @settings(max_examples=3, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        for width in (3, 5, 6, 7, 9, 11):
            for how in ("written", "both", "derived") if can_write else ("derived",):
                config = copy.deepcopy(base)
                if _with_width(config, model_type, width, how) and _judge(config, model_type, how) == ODD_ROTARY:
                    refused.add((width, how))

    check()
    # transformers refuses only widths over 4: 3 and the even ones build.
    assert all(width > 4 and width % 2 for width, _ in refused), refused
    # A written odd width is refused wherever the family's class rotates the whole head by default
    # (Phi, StableLM, GPT-NeoX, GLM and Nemotron rotate part of it); a derived one where its class also
    # holds hidden_size / num_attention_heads as its head_dim (Llama, Mistral, Falcon; not Qwen2, whose
    # class holds none, nor Gemma, whose default is 256).
    fields = registry()[model_type].fields
    whole = fields["partial_rotary_factor"].default in (None, 1.0)
    holds_derived = not fields["rope_head_dim"].keys and isinstance(fields["head_dim"].default, Derived)
    if model_type in ODD_WIDTH_REFUSED_FIRST:
        whole = False
    assert bool({r for r in refused if r[1] != "derived"}) == (can_write and whole), refused
    assert bool({r for r in refused if r[1] == "derived"}) == (whole and holds_derived), refused


@pytest.mark.parametrize("model_type", _families())
def test_a_partial_rotary_factor_is_read_as_transformers_reads_it(model_type: str) -> None:
    """Odd and even widths with the factor written at the top level (GPT-NeoX's rotary_pct), in
    rope_parameters (per layer type where the class nests them) or in the legacy rope_scaling."""
    can_write = _written_width_key(model_type) is not None

    @settings(max_examples=25, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type), st.sampled_from([5, 6, 7, 9]),
           st.sampled_from(["written", "both", "derived"] if can_write else ["derived"]), _rope_settings(model_type))
    def check(config: dict, width: int, how: str, rope: dict) -> None:
        if _with_width(config, model_type, width, how):
            _judge({**config, **rope}, model_type, how)

    check()


# Composite configs: their text model's config class makes the same check (text_config, or Qwen2-VL's
# flat keys), and the error is at the sub-model's key.
COMPOSITES = {
    "gemma3": {"model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"],
               "text_config": {"model_type": "gemma3_text", "hidden_size": 32, "num_attention_heads": 4,
                               "num_key_value_heads": 2, "head_dim": 9, "intermediate_size": 16,
                               "num_hidden_layers": 2, "vocab_size": 300},
               "vision_config": {"hidden_size": 16, "intermediate_size": 8, "num_hidden_layers": 1,
                                 "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
               "mm_tokens_per_image": 4},
    "llava": {"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
              "text_config": {"model_type": "llama", "hidden_size": 36, "num_attention_heads": 4,
                              "intermediate_size": 16, "num_hidden_layers": 1, "vocab_size": 64},
              "vision_config": {"model_type": "clip_vision_model", "hidden_size": 16, "intermediate_size": 8,
                                "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 28,
                                "patch_size": 14, "projection_dim": 8}},
    "mistral3": {"model_type": "mistral3", "architectures": ["Mistral3ForConditionalGeneration"],
                 "text_config": {"model_type": "mistral", "hidden_size": 36, "num_attention_heads": 4,
                                 "num_key_value_heads": 2, "intermediate_size": 16, "num_hidden_layers": 1,
                                 "vocab_size": 64},
                 "vision_config": {"hidden_size": 16, "intermediate_size": 8, "num_hidden_layers": 1,
                                   "num_attention_heads": 2, "patch_size": 14}},
    "qwen2_vl": {"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"],
                 "text_config": {"hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
                                 "head_dim": 7, "intermediate_size": 16, "num_hidden_layers": 1, "vocab_size": 64},
                 "vision_config": {"embed_dim": 16, "num_heads": 2, "depth": 1, "hidden_size": 32}},
}


@pytest.mark.parametrize("model_type", sorted(COMPOSITES))
def test_a_composite_s_text_model_with_an_odd_rotary_width_is_refused(model_type: str) -> None:
    config = COMPOSITES[model_type]
    assert transformers_verdict(config) == ODD_ROTARY
    text = json.dumps(config, indent=2)
    report = analyze_text(text, "model/config.json")
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert "even rotary dimension" in error.message and not report.models, error
    # At the key: the written head_dim, or (Llama's derived width) the text model's head count.
    key = '"head_dim"' if "head_dim" in text else '"num_attention_heads"'
    line = text.splitlines()[error.span.start.line]
    assert line[error.span.start.column:].startswith(key), (line, error.span)
    # An even width counts as transformers builds it.
    even = json.loads(text.replace('"head_dim": 9', '"head_dim": 8').replace('"head_dim": 7', '"head_dim": 8')
                      .replace('"hidden_size": 36', '"hidden_size": 32'))
    assert lsp_count_verdict(even) == (transformers_verdict(even), [])


def test_a_flat_qwen2_vl_config_s_head_dim_is_not_its_text_model_s() -> None:
    """Qwen2VLConfig hands a flat config's text keys to its text config by that class's signature, which has
    no head_dim: a top-level head_dim stays on the composite, unchecked and unread."""
    config = {**{k: v for k, v in COMPOSITES["qwen2_vl"].items() if k != "text_config"},
              **COMPOSITES["qwen2_vl"]["text_config"]}
    assert lsp_count_verdict(config) == (transformers_verdict(config), [])


DYNAMIC = {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}


@pytest.mark.parametrize("model_type", [mt for mt in _families() if "rope_scaling_layer_types" not in registry()[mt].fields])
def test_dynamic_scaling_over_two_rotated_values_is_refused_where_transformers_refuses_it(model_type: str) -> None:
    """Dynamic NTK scaling raises the RoPE base to the power dim / (dim - 2): two rotated values (a head width of 2,
    or 4 with half of it rotated) divide by zero as transformers builds the model. lsp-count refuses those, naming
    the dynamic type, and counts the widths around them as transformers does."""
    can_write = _written_width_key(model_type) is not None
    judged: list[int | str | None] = []

    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        base = {k: v for k, v in base.items() if k not in ("rope_scaling", "partial_rotary_factor")}
        if transformers_verdict(base) is None:
            return
        for width, share in ((2, 1.0), (4, 0.5), (4, 1.0), (6, 1.0)):
            for how in ("written", "derived") if can_write else ("derived",):
                config = copy.deepcopy(base)
                if not _with_width(config, model_type, width, how):
                    continue
                unscaled = transformers_verdict(config)  # (some classes refuse the width itself: Ministral's derived one)
                config["rope_parameters"] = {**DYNAMIC, **({"partial_rotary_factor": share} if share != 1.0 else {})}
                want = transformers_verdict(config)
                got, errors = lsp_count_verdict(config)
                assert got == (None if want == ODD_ROTARY else want), (json.dumps(config), want, errors)
                if want is None and isinstance(unscaled, int):
                    assert any("dynamic" in e for e in errors), errors
                judged.append(want)

    check()
    assert judged, "no drawn config transformers builds"
