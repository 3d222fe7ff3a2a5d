"""Parity with LitGPT: the installed litgpt (``<venv>/litgpt-sidecar``, scripts/test.sh) builds each
model on the meta device in a child process (litgpt_runner.py), and formats/litgpt.py's tree must
count the same: every named config of litgpt.config.configs, random configs that use every field
the tree reads (hypothesis), and litgpt.lora's models with random adapter flags, trainable counted
after mark_only_lora_as_trainable. Then the two YAMLs end to end: a ``model_config.yaml`` and a
fine-tune YAML whose ``checkpoint_dir`` holds one."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_path
from lsp_count.formats.litgpt import LitGPTConfigError, LitLora, litgpt_tree, lora_adapters
from lsp_count.formats.lora import attach_adapters
from lsp_count.core.params import ParamTree

pytestmark = pytest.mark.parity

SIDECAR = pathlib.Path(sys.prefix) / "litgpt-sidecar"
RUNNER = pathlib.Path(__file__).with_name("litgpt_runner.py")


def built(jobs: list[dict]) -> list[list]:
    if not (SIDECAR / "litgpt").is_dir():
        pytest.skip(f"litgpt is not installed in {SIDECAR} (scripts/test.sh installs it)")
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    done = subprocess.run([sys.executable, str(RUNNER)], input=json.dumps(jobs), capture_output=True, text=True,
                          timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def counted(fields: dict, lora: dict | None) -> tuple[int, int]:
    flags = None if lora is None else LitLora(lora["lora_r"], lora["lora_query"], lora["lora_key"], lora["lora_value"],
                                              lora["lora_projection"], lora["lora_mlp"], lora["lora_head"])
    tree = ParamTree(litgpt_tree(fields, "m", flags))
    if flags is not None:
        adapters, _ = lora_adapters(fields, flags)
        tree = attach_adapters(tree, adapters, "LoRA")
    return tree.total, tree.trainable


def test_every_named_litgpt_config_counts_as_litgpt_builds_it() -> None:
    results = built([{"all": True}])
    assert len(results) > 150
    wrong = []
    for fields, total, _trainable in results:
        assert total != "error", (fields["name"], _trainable)
        if counted(fields, None) != (total, total):
            wrong.append((fields["name"], counted(fields, None)[0], total))
    assert not wrong


@st.composite
def litgpt_configs(draw) -> dict:
    n_head = draw(st.sampled_from([1, 2, 4]))
    head_size = draw(st.sampled_from([None, 8, 12]))
    n_embd = n_head * draw(st.sampled_from([4, 8, 16])) if head_size is None else draw(st.sampled_from([16, 24, 40]))
    mlp = draw(st.sampled_from(["GptNeoxMLP", "LLaMAMLP", "GemmaMLP", "LLaMAMoE"]))
    fields = {
        "name": draw(st.sampled_from(["tiny", "OLMo-tiny", "Gemma-tiny"])),
        "n_layer": draw(st.integers(1, 3)), "n_embd": n_embd, "n_head": n_head, "head_size": head_size,
        "n_query_groups": draw(st.sampled_from([None] + [g for g in (1, 2, 4) if n_head % g == 0])),
        "vocab_size": draw(st.integers(10, 300)), "padding_multiple": draw(st.sampled_from([1, 8, 64])),
        "norm_class_name": draw(st.sampled_from(["LayerNorm", "RMSNorm"])), "mlp_class_name": mlp,
        "intermediate_size": draw(st.sampled_from([None, 24, 40])) if mlp == "GptNeoxMLP" else draw(st.sampled_from([24, 40])),
        "bias": draw(st.booleans()), "attn_bias": draw(st.booleans()), "lm_head_bias": draw(st.booleans()),
        "norm_qk": draw(st.booleans()), "norm_qk_type": draw(st.sampled_from(["default", "olmo2"])),
        "post_attention_norm": draw(st.booleans()), "post_mlp_norm": draw(st.booleans()),
        "norm_1": draw(st.booleans()), "norm_2": draw(st.booleans()),
        "parallel_residual": draw(st.booleans()), "shared_attention_norm": draw(st.booleans()),
    }
    if mlp == "LLaMAMoE":
        fields.update(n_expert=draw(st.sampled_from([2, 4])), n_expert_per_token=draw(st.integers(1, 2)),
                      moe_intermediate_size=draw(st.sampled_from([None, 12])),
                      n_shared_expert=draw(st.sampled_from([None, 1, 2])),
                      first_k_dense_replace=draw(st.sampled_from([None, 0, 1, 2])))
        if fields["n_expert"] == 4 and draw(st.booleans()):
            fields.update(n_expert_groups=draw(st.sampled_from([2, 3])), n_topk_groups=1,
                          n_topk_scores_per_group=draw(st.sampled_from([None, 1, 3])))
    elif draw(st.integers(0, 9)) == 0:
        fields["first_k_dense_replace"] = 1  # (litgpt refuses it without LLaMAMoE)
    if draw(st.integers(0, 4)) == 0 and fields["n_query_groups"] in (None, n_head):
        fields["latent_attention"] = {"q_lora_rank": 8, "kv_lora_rank": 6, "qk_rope_head_dim": 4,
                                      "qk_nope_head_dim": 4, "v_head_dim": 6}
    return fields


LORA = st.fixed_dictionaries({"lora_r": st.integers(1, 4), **{f"lora_{k}": st.booleans() for k in (
    "query", "key", "value", "projection", "mlp", "head")}})


# (Generated, not shrunk: each example is a child process; a failure names its config and flags.)
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
@given(st.lists(st.tuples(litgpt_configs(), st.none() | LORA), min_size=40, max_size=40))
def test_random_litgpt_configs_count_as_litgpt_builds_them(cases) -> None:
    results = built([{"fields": fields, "lora": lora} for fields, lora in cases])
    for (fields, lora), (resolved, total, trainable) in zip(cases, results):
        if total == "error":  # litgpt refuses it: so does the tree, with a reason
            with pytest.raises(LitGPTConfigError):
                counted(fields, lora)
            continue
        if lora is not None and not any(v for k, v in lora.items() if k != "lora_r"):
            assert lora_adapters(fields, LitLora(**{k.removeprefix("lora_"): v for k, v in lora.items()}))[0] == []
            continue  # (no adapter: the reader refuses it, LC102)
        assert counted(fields, lora) == (total, trainable), (fields, lora)


def test_the_yamls_count_as_litgpt_builds_them(tmp_path) -> None:
    # Qwen3 (norm_qk) as LitGPT writes model_config.yaml beside a checkpoint, and a LoRA fine-tune YAML
    # whose checkpoint_dir holds it, with finetune/lora.py's defaults (query and value) and lora_mlp.
    import yaml

    ((fields, total, _),) = built([{"name": "Qwen3-0.6B", "lora": None}])
    ((_, lora_total, lora_trainable),) = built([{"name": "Qwen3-0.6B", "lora": {
        "lora_r": 4, "lora_query": True, "lora_key": False, "lora_value": True, "lora_projection": False,
        "lora_mlp": True, "lora_head": False}}])
    checkpoint = tmp_path / "checkpoints" / "Qwen" / "Qwen3-0.6B"
    checkpoint.mkdir(parents=True)
    (checkpoint / "model_config.yaml").write_text(yaml.safe_dump(fields))
    report = analyze_path(str(checkpoint / "model_config.yaml"))
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == (total, total)
    (tmp_path / "lora.yaml").write_text("checkpoint_dir: checkpoints/Qwen/Qwen3-0.6B\nlora_r: 4\nlora_mlp: true\n"
                                        "train:\n  micro_batch_size: 2\n  max_seq_length: 512\n")
    report = analyze_path(str(tmp_path / "lora.yaml"))
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == (lora_total, lora_trainable)
    assert (model.plan["mode"], model.plan["lora_rank"], model.plan["batch"], model.plan["context"]) == ("lora", 4, 2, 512)
    assert not report.has_errors, report.problems


def test_a_fine_tune_without_the_model_config_counts_litgpt_s_untied_head(tmp_path) -> None:
    # No model_config.yaml in checkpoint_dir: the hub id's transformers config (Llama-3.2-1B ties its
    # head to the embedding), with its own head as LitGPT builds it; query, value and the head adapted.
    flags = {"lora_r": 8, "lora_query": True, "lora_key": False, "lora_value": True, "lora_projection": False,
             "lora_mlp": False, "lora_head": True}
    ((_, total, trainable),) = built([{"name": "Llama-3.2-1B", "lora": flags}])
    (tmp_path / "lora.yaml").write_text("checkpoint_dir: checkpoints/meta-llama/Llama-3.2-1B\nlora_r: 8\n"
                                        "lora_head: true\n")
    report = analyze_path(str(tmp_path / "lora.yaml"))
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == (total, trainable) == (1_500_377_088, 1_894_400)
