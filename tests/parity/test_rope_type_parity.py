"""RoPE types against transformers 5: a rope_parameters (or legacy rope_scaling) entry of a type without a key it
needs is refused by transformers' config class (RotaryEmbeddingConfigMixin._check_received_keys raises KeyError),
and one of a type it does not know leaves its model unable to build the rotary embedding (ROPE_INIT_FUNCTIONS has no
entry); lsp-count gives an LC103 error at the key for both, and counts the complete ones as transformers does.
Before, it counted all of them.

For every family with rotary positions, on random small configs (tests/parity/strategies.py): a flat entry under
rope_parameters and under rope_scaling, with rope_theta and (the complete ones) without; for the families that nest
them by layer type (Gemma 3, OLMo 3, ModernBERT, Gemma 4's text model), an entry per layer type. Also the types
only some models build: axial (the vision towers'), proportional (Gemma 4's)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.families import registry, supported_model_types

from .meta_count import lsp_count_verdict, transformers_verdict
from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

INCOMPLETE = [{"rope_type": "linear"}, {"type": "dynamic"}, {"rope_type": "yarn"},
              {"rope_type": "llama3", "factor": 8.0}, {"rope_type": "longrope"}, {"rope_type": "no-such-type"}]
# Complete but for a value the rotary embedding computes with (transformers fails as it builds the model).
INCOMPLETE += [{"rope_type": "linear", "factor": None}, {"rope_type": "yarn", "factor": 2.0,
                                                         "original_max_position_embeddings": None},
               {"rope_type": "longrope", "short_factor": "x", "long_factor": [1.0]}, {"rope_theta": None},
               {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 0},
               {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": None, "high_freq_factor": 4.0}]
# Types some models build and others refuse.
OTHER = [{"rope_type": "axial"}, {"rope_type": "proportional"}]
COMPLETE = [{"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0},
            {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0}]


def _nests(model_type: str) -> bool:
    return "rope_scaling_layer_types" in registry()[model_type].fields or model_type == "gemma4_text"


def _families(nested: bool) -> list[str]:
    return [mt for mt in supported_model_types() if "rope_parameters" in registry()[mt].fields
            and _nests(mt) == nested and strategy_for(mt) is not None and mt in transformers.CONFIG_MAPPING]


def _judge(config: dict, incomplete: bool) -> None:
    want = transformers_verdict(config)
    got, errors = lsp_count_verdict(config)
    assert got == want, (json.dumps(config), want, errors)
    if want is None and incomplete:
        assert any("rope_type" in e or "and fails" in e for e in errors), errors


def _each_drawn_config(model_type: str, variants) -> None:
    """Judge each config ``variants(base)`` makes of a few random configs of the family that transformers builds."""
    judged: list[dict] = []

    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        if transformers_verdict(base) is None:
            return  # (a config the strategy draws that transformers refuses for its own reasons)
        judged.append(base)
        for config, incomplete in variants(base):
            _judge(config, incomplete)

    check()
    assert judged, "no drawn config transformers builds"


@pytest.mark.parametrize("model_type", _families(nested=False))
def test_an_incomplete_or_unknown_rope_type_is_refused_where_transformers_refuses_it(model_type: str) -> None:
    def variants(base: dict):
        for key in ("rope_parameters", "rope_scaling"):
            for entry in INCOMPLETE + OTHER + COMPLETE + [{k: x for k, x in e.items() if k != "rope_theta"}
                                                          for e in COMPLETE]:
                config = copy.deepcopy(base)
                config.pop("rope_scaling", None)
                config[key] = {"rope_theta": 10000.0, **entry} if entry not in COMPLETE else {**entry}
                yield config, entry not in COMPLETE

    _each_drawn_config(model_type, variants)


@pytest.mark.parametrize("model_type", _families(nested=True))
def test_an_incomplete_or_unknown_rope_type_per_layer_type_is_refused_where_transformers_refuses_it(
        model_type: str) -> None:
    def variants(base: dict):
        for entry in INCOMPLETE + OTHER + COMPLETE:
            for layer_type in ("full_attention", "sliding_attention"):
                config = copy.deepcopy(base)
                config.pop("rope_scaling", None)
                config["rope_parameters"] = {t: {"rope_type": "default", "rope_theta": 10000.0}
                                             for t in ("full_attention", "sliding_attention")}
                config["rope_parameters"][layer_type] = {"rope_theta": 10000.0, **entry}
                yield config, entry not in COMPLETE

    _each_drawn_config(model_type, variants)


@pytest.mark.parametrize("rope_type", ["su", "yarn", "longrope", "linear"])
@pytest.mark.parametrize("complete", [True, False])
def test_phi3_reads_the_old_su_and_yarn_types_as_longrope(rope_type: str, complete: bool) -> None:
    """Phi3Config takes old checkpoints' "su" and "yarn" as longrope (with its short and long factors), and no other
    scaled type."""
    config = dict(model_type="phi3", architectures=["Phi3ForCausalLM"], hidden_size=64, num_attention_heads=4,
                  num_key_value_heads=4, num_hidden_layers=1, intermediate_size=64, vocab_size=100, pad_token_id=0,
                  rope_scaling={"type": rope_type, "factor": 2.0,
                                **({"short_factor": [1.0] * 8, "long_factor": [1.0] * 8} if complete else {})})
    _judge(config, True)


def _half_width(config: dict) -> int:
    """Half the rotary width transformers builds longrope's frequencies over: the config class's head_dim (else
    hidden_size / num_attention_heads), times the partial rotary factor, halved (_compute_longrope_parameters)."""
    cfg = transformers.CONFIG_MAPPING[config["model_type"]].from_dict(copy.deepcopy(config))
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    factor = (getattr(text, "rope_parameters", None) or {}).get("partial_rotary_factor", 1.0)
    return int(head_dim * factor) // 2


def test_phi3_refuses_longrope_factors_of_another_length_as_transformers_does() -> None:
    """Phi3Config's validate_rope checks both of longrope's lists: one number per rotated pair (a single number,
    which other models' rotary embeddings broadcast, is refused too), and numbers only; lsp-count refuses where
    transformers does, on random Phi-3 configs and partial rotary factors."""
    def variants(base: dict):
        for partial in (1.0, 0.5):
            half = _half_width({**base, "partial_rotary_factor": partial})
            for short, long in ((half, half), (1, 1), (half + 1, half), (half, half + 1), (max(half - 1, 2), half)):
                config = copy.deepcopy(base)
                config.pop("rope_scaling", None)
                config["partial_rotary_factor"] = partial
                config["rope_parameters"] = {"rope_type": "longrope", "rope_theta": 10000.0, "factor": 2.0,
                                             "original_max_position_embeddings": 64,
                                             "short_factor": [1.0] * short, "long_factor": [1.0] * long}
                yield config, False
        config = copy.deepcopy(base)
        config["rope_parameters"] = {"rope_type": "longrope", "rope_theta": 10000.0, "factor": 2.0,
                                     "original_max_position_embeddings": 64,
                                     "short_factor": [1.0] * _half_width(base), "long_factor": ["x"]}
        yield config, False

    _each_drawn_config("phi3", variants)


def _keeps_no_head_dim(model_type: str) -> bool:
    """Whether the family's config class, with its defaults, holds a head_dim attribute that is None (MixtralConfig):
    transformers' dynamic, YaRN and LongRoPE frequencies read that attribute where it exists."""
    try:
        config = transformers.CONFIG_MAPPING[model_type]()
        text = config.get_text_config() if hasattr(config, "get_text_config") else config
        return hasattr(text, "head_dim") and text.head_dim is None
    except Exception:  # noqa: BLE001 - a class whose defaults do not build, or a per-layer head_dim (Gemma 4)
        return False


SCALED = [{"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64},
          {"rope_type": "dynamic", "factor": 2.0},
          {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0], "original_max_position_embeddings": 64},
          {"type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64},
          {"type": "dynamic", "factor": 2.0}, *COMPLETE]


@pytest.mark.parametrize("model_type", [mt for mt in _families(nested=False) if _keeps_no_head_dim(mt)])
def test_a_scaled_rope_without_head_dim_is_refused_where_the_config_class_keeps_it_none(model_type: str) -> None:
    """A config class that keeps head_dim None where it is not written (Mixtral's) leaves transformers unable to
    build the rotary embedding of the RoPE types that read it (TypeError); lsp-count refuses those and counts the
    rest, with head_dim absent or null, under rope_parameters and the legacy rope_scaling."""
    def variants(base: dict):
        for entry in SCALED:
            for key in ("rope_parameters", "rope_scaling"):
                for head_dim in ("absent", None):
                    config = {k: x for k, x in copy.deepcopy(base).items() if k not in ("head_dim", "rope_scaling")}
                    if head_dim is None:
                        config["head_dim"] = None
                    config[key] = {"rope_theta": 10000.0, **entry}
                    yield config, False

    _each_drawn_config(model_type, variants)
