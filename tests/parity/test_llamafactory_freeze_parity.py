"""LLaMA-Factory's freeze tuning (``finetuning_type: freeze``) against its rule applied to the model transformers
builds: the parameters whose names hold ``.{layer}.{module}`` of the layers it trains, or an extra module, are
trainable (src/llamafactory/model/adapter.py, ``_setup_freeze_tuning``, restated below as ``llamafactory_freeze``).
LLaMA-Factory is not installed here; what this checks is lsp-count's tree and its transformers names against the
names of the real model, over random configs of the decoder families and random freeze settings."""

from __future__ import annotations

import json
import logging
import re
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import layers_the_backward_reaches

from .meta_count import transformers_verdict
from .strategies import strategy_for

pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# Every decoder-only family but those whose trees name some layer modules otherwise than transformers (what
# follows the layer's number in a parameter's name, which freeze_trainable_modules picks by), and LongCat-Flash,
# whose layers hold numbered sub-blocks (self_attn.0, self_attn.1) that LLaMA-Factory's ".{layer}." matches too,
# with a num_hidden_layers that counts two per layer, and HRM-Text, whose two stacks (H_module's and L_module's
# layers) and parameters on the model itself lsp-count names otherwise. A stack of interleaved kinds of layers (a hybrid's, MiMo-V2's
# sliding and full MoE layers) is not modelled: a warning, and those draws are not compared.
EXCLUDED = {"afmoe", "dbrx", "deepseek_v4", "doge", "ernie4_5_moe", "gpt_neox_japanese", "granitemoe_swa",
            "granitemoeshared", "hrm_text", "hy_v4", "jetmoe", "longcat_flash"}
FAMILIES = sorted(m for m, f in registry().items() if f.layout == "decoder" and m not in EXCLUDED)


def llamafactory_freeze(model, config, layers: int, modules: list[str], extra: list[str], llama_pro: bool) -> int | str:
    """The trainable parameters LLaMA-Factory's _setup_freeze_tuning leaves, or "error" where it raises."""
    names = llamafactory_trained(model, config, layers, modules, extra, llama_pro)
    return names if isinstance(names, str) else sum(p.numel() for n, p in model.named_parameters() if n in names)


def llamafactory_trained(model, config, layers: int, modules: list[str], extra: list[str],
                         llama_pro: bool) -> set[str] | str:
    """The names of the parameters _setup_freeze_tuning leaves trainable, or "error" where it raises."""
    num_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "num_layers", None) or \
        getattr(config, "n_layer", None)
    if llama_pro:
        if layers < 1 or num_layers % layers:
            return "error"
        stride = num_layers // layers
        ids = range(stride - 1, num_layers + stride - 1, stride)
    elif layers > 0:
        ids = range(max(0, num_layers - layers), num_layers)
    else:
        ids = range(min(-layers, num_layers))
    names = [name for name, _ in model.named_parameters()]
    hidden, non_hidden = set(), set()
    for name in names:
        if ".0." in name:
            hidden.add(name.split(".0.")[-1].split(".")[0])
        elif ".1." in name:
            hidden.add(name.split(".1.")[-1].split(".")[0])
        if re.search(r"\.\d+\.", name) is None:
            non_hidden.add(name.split(".")[-2] if "." in name else name)  # (a bare name: LLaMA-Factory's IndexError)
    trainable = []
    for module in modules:
        if module != "all" and module not in hidden:
            return "error"
        trainable += [".{:d}.{}".format(i, module if module != "all" else "") for i in ids]
    for module in extra:
        if module not in non_hidden:
            return "error"
        trainable.append(module)
    return {name for name, _ in model.named_parameters() if any(t in name for t in trainable)}


def built(config: dict):
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    with torch.device("meta"):
        return getattr(transformers, config["architectures"][0])(cfg), cfg


def lsp_count_model(config: dict, yaml: str):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "base").mkdir()
        (Path(tmp) / "base" / "config.json").write_text(json.dumps(config))
        report = analyze_text("model_name_or_path: ./base\nstage: sft\nfinetuning_type: freeze\n" + yaml,
                              str(Path(tmp) / "train.yaml"),
                              AnalyzeOptions(base_dir=tmp, hf_cache=str(Path(tmp) / "no-cache")))
    return report


def lsp_count_freeze(config: dict, yaml: str) -> tuple[int | str, int | None]:
    """(trainable, total), or ("error", None) where lsp-count refuses the settings with an error, ("not modelled",
    None) where it counts a full fine-tune with a warning."""
    report = lsp_count_model(config, yaml)
    if report.has_errors:
        assert any("freeze_" in p.message or "use_llama_pro" in p.message for p in report.problems if
                   p.severity == "error"), report.problems
        return "error", None
    if any("freeze tuning is not modelled" in p.message for p in report.problems):
        return "not modelled", None
    (model,) = report.models
    return model.tree.trainable, model.tree.total


@pytest.mark.parametrize("model_type", FAMILIES)
def test_freeze_tuning_trains_what_llamafactory_trains(model_type: str) -> None:
    compared: list[str] = []
    unmodelled: list[str] = []

    @settings(max_examples=3, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type), st.data())
    def check(config: dict, data) -> None:
        if not isinstance(transformers_verdict(config), int):
            return
        model, cfg = built(config)
        names = [n for n, _ in model.named_parameters()]
        hidden = sorted({n.split(".0.")[-1].split(".")[0] for n in names if ".0." in n})
        outside = sorted({n.split(".")[-2] if "." in n else n for n in names if re.search(r"\.\d+\.", n) is None})
        layers = data.draw(st.integers(-3, 4))
        modules = data.draw(st.one_of(st.just(["all"]), st.lists(st.sampled_from(hidden + ["nonexistent"]),
                                                                   min_size=1, max_size=3, unique=True)))
        extra = data.draw(st.lists(st.sampled_from(outside), max_size=2, unique=True))
        llama_pro = data.draw(st.booleans()) and layers > 0
        yaml = (f"freeze_trainable_layers: {layers}\nfreeze_trainable_modules: {','.join(modules)}\n"
                + (f"freeze_extra_modules: {','.join(extra)}\n" if extra else "")
                + ("use_llama_pro: true\n" if llama_pro else ""))
        want = llamafactory_freeze(model, cfg, layers, modules, extra, llama_pro)
        got, total = lsp_count_freeze(config, yaml)
        if got == "not modelled":
            unmodelled.append(yaml)
            return
        assert got == want, (yaml, json.dumps(config))
        if total is not None:
            assert total == sum(p.numel() for p in model.parameters())
        compared.append(yaml)

    check()
    if unmodelled and not compared:
        pytest.skip(f"{model_type}: freeze tuning not modelled for the stacks drawn")
    assert compared, "no drawn config that transformers builds"


SMALL = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 24, "num_attention_heads": 2,
         "num_key_value_heads": 1, "num_hidden_layers": 6}
DEEPER = {
    "llama": {"model_type": "llama", "architectures": ["LlamaForCausalLM"], **SMALL},
    "gemma2": {"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], **SMALL, "head_dim": 8},
    "qwen3_moe": {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], **SMALL, "num_experts": 4,
                  "num_experts_per_tok": 2, "moe_intermediate_size": 8, "mlp_only_layers": [1]},
    "deepseek_v3": {"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], **SMALL,
                    "first_k_dense_replace": 2, "n_routed_experts": 4, "num_experts_per_tok": 2,
                    "moe_intermediate_size": 8, "q_lora_rank": 8, "kv_lora_rank": 8, "qk_nope_head_dim": 4,
                    "qk_rope_head_dim": 4, "v_head_dim": 4, "n_group": 1, "topk_group": 1},
    "gpt2": {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 64, "n_embd": 16, "n_layer": 6,
             "n_head": 2, "n_positions": 32},
}
SETTINGS = [(2, ["all"], []), (-2, ["all"], []), (3, ["mlp", "{attention}"], ["{embed}"]), (0, ["all"], ["{norm}"]),
            (1, ["{norm_in_layer}"], []), (9, ["all"], [])]
NAMES = {"gpt2": {"attention": "attn", "embed": "wte", "norm": "ln_f", "norm_in_layer": "ln_2"}}
LLAMA_NAMES = {"attention": "self_attn", "embed": "embed_tokens", "norm": "norm", "norm_in_layer": "post_attention_layernorm"}


@pytest.mark.parametrize("model_type", sorted(DEEPER))
@pytest.mark.parametrize("layers, modules, extra", SETTINGS)
def test_freeze_tuning_of_six_layers(model_type, layers, modules, extra) -> None:
    """Six layers, so that the last, the first and LLaMA-Pro's layers differ (the random configs have one or two)."""
    config = DEEPER[model_type]
    names = NAMES.get(model_type, LLAMA_NAMES)
    modules = [m.format(**names) for m in modules]
    extra = [m.format(**names) for m in extra]
    model, cfg = built(config)
    for llama_pro in ([False, True] if layers in (2, 3) else [False]):
        yaml = (f"freeze_trainable_layers: {layers}\nfreeze_trainable_modules: {','.join(modules)}\n"
                + (f"freeze_extra_modules: {','.join(extra)}\n" if extra else "")
                + ("use_llama_pro: true\n" if llama_pro else ""))
        want = llamafactory_freeze(model, cfg, layers, modules, extra, llama_pro)
        assert isinstance(want, int) and 0 < want < sum(p.numel() for p in model.parameters()) or layers == 9
        assert lsp_count_freeze(config, yaml)[0] == want, yaml
        # Which layers: the first one trained is where the backward pass stops (the activations kept).
        names_trained = llamafactory_trained(model, cfg, layers, modules, extra, llama_pro)
        trained = [i for i in range(6) if any(re.search(rf"(layers|h)\.{i}\.", n) for n in names_trained)]
        (lsp_model,) = lsp_count_model(config, yaml).models
        reached = layers_the_backward_reaches(lsp_model.tree)
        if trained and extra != [names["embed"]]:
            assert reached == 6 - trained[0], yaml
