"""Offline base-model resolution: bundled catalog, HF cache snapshots, local paths; never the network."""

from __future__ import annotations

import json

from lsp_count.core.catalog import analyze_model_id, catalog_ids, resolve_model
from lsp_count.core.analyze import AnalyzeOptions, analyze_path

TINY = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1,
        "intermediate_size": 96, "vocab_size": 100}


def test_bundled_catalog_first(tmp_path):
    found = resolve_model("meta-llama/Meta-Llama-3-8B", hf_cache=str(tmp_path)).found
    assert found.source == "bundled catalog"
    assert "meta-llama/Meta-Llama-3-8B" in catalog_ids()
    assert resolve_model("META-LLAMA/meta-llama-3-8b", hf_cache=str(tmp_path)).found is not None


def test_hf_cache_snapshot_follows_refs_main(tmp_path):
    repo = tmp_path / "hub" / "models--acme--tiny"
    for commit, layers in (("aaa", 1), ("bbb", 3)):
        (repo / "snapshots" / commit).mkdir(parents=True)
        (repo / "snapshots" / commit / "config.json").write_text(json.dumps({**TINY, "num_hidden_layers": layers}))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("aaa")
    found = resolve_model("acme/tiny", hf_cache=str(tmp_path)).found
    assert found.source == "Hugging Face cache" and found.path.endswith("aaa/config.json")


def test_hf_home_environment(tmp_path, monkeypatch):
    snap = tmp_path / "home" / "hub" / "models--acme--tiny" / "snapshots" / "c1"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(TINY))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    assert resolve_model("acme/tiny").found.source == "Hugging Face cache"


def test_local_directory_relative_to_document(tmp_path):
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text(json.dumps(TINY))
    found = resolve_model("ckpt", hf_cache=str(tmp_path / "none"), base_dir=str(tmp_path)).found
    assert found.source == "local path"


def test_not_found_says_where_it_looked_and_how_to_add(tmp_path):
    report = analyze_model_id("acme/missing", AnalyzeOptions(hf_cache=str(tmp_path)))
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert problem.code == "LC104"
    assert "bundled catalog" in problem.message and str(tmp_path) in problem.message
    assert "huggingface-cli download acme/missing" in problem.message and "local directory" in problem.message


def test_cli_path_that_is_a_hub_id():
    report = analyze_path("meta-llama/Meta-Llama-3-8B")
    assert report.models[0].tree.total == 8_030_261_248


def test_legacy_one_part_ids_resolve_as_the_hub_redirects_them(tmp_path):
    # In the catalog, under the organisation the model moved to.
    for legacy, moved in (("gpt2", "openai-community/gpt2"), ("bert-base-uncased", "google-bert/bert-base-uncased"),
                          ("t5-small", "google-t5/t5-small"), ("roberta-base", "FacebookAI/roberta-base"),
                          ("distilbert-base-uncased", "distilbert/distilbert-base-uncased")):
        found = resolve_model(legacy, hf_cache=str(tmp_path)).found
        assert found is not None and found.source == "bundled catalog", legacy
        assert found.path.endswith(moved + ".json")
    assert analyze_model_id("gpt2", AnalyzeOptions(hf_cache=str(tmp_path))).models[0].tree.total == 124_439_808
    # In the HF cache, as downloaded by either name.
    for stored in ("models--distilgpt2", "models--distilbert--distilgpt2"):
        snap = tmp_path / stored / "hub" / stored / "snapshots" / "c1"
        snap.mkdir(parents=True)
        (snap / "config.json").write_text(json.dumps(TINY))
        found = resolve_model("distilgpt2", hf_cache=str(tmp_path / stored)).found
        assert found is not None and found.source == "Hugging Face cache" and stored in found.path
    # A one-part name that is no legacy id is not taken for a catalog model of the same name.
    lookup = resolve_model("Qwen3-8B", hf_cache=str(tmp_path / "none"))
    assert lookup.found is None and str(tmp_path / "none") in "; ".join(lookup.searched)


def test_a_directory_named_like_a_hub_id_comes_first(tmp_path):
    """transformers' from_pretrained("gpt2") loads ./gpt2 where it holds a config.json."""
    (tmp_path / "gpt2").mkdir()
    (tmp_path / "gpt2" / "config.json").write_text(json.dumps(TINY))
    found = resolve_model("gpt2", hf_cache=str(tmp_path / "none"), base_dir=str(tmp_path)).found
    assert found.source == "local path"
    assert resolve_model("gpt2", hf_cache=str(tmp_path / "none"), base_dir=str(tmp_path / "gpt2")).found.source == \
        "bundled catalog"
