"""LoRA on encoder-decoder models (T5, Switch Transformers, BART, mBART, Whisper) against peft on the meta device.

A regex target is ``re.fullmatch``ed against transformers' full module names
(``decoder.block.0.layer.1.EncDecAttention.q``, ``model.encoder.layers.0.fc1``),
and a dotted name target against their endings: both need lsp-count to name
each adapted module as transformers does. Each case reads a bundled catalog
config from a training YAML and builds the class lsp-count counted.
"""

from __future__ import annotations

import json
import logging

import pytest

from .test_lora_parity import analyze_any, peft_outcome

pytest.importorskip("peft")

pytestmark = pytest.mark.parity

T5_TARGETS = [["q", "v"], ["EncDecAttention.q", "SelfAttention.v"], r"encoder\.block\.[0-9]+\.layer\.0\.SelfAttention\.(q|k)",
              r".*decoder.*(SelfAttention|EncDecAttention)\.(q|v)", r"decoder\.block\.[13]\.layer\.2\.DenseReluDense\.wo",
              r"encoder\.block\.1\..*", None]
SWITCH_TARGETS = [["q", "v"], ["EncDecAttention.q", "expert_0.wi", "mlp.wo"], r".*encoder.*mlp\.(wi|wo)",
                  r".*decoder.*(SelfAttention|EncDecAttention)\.(q|v)",
                  r"decoder\.block\.[13]\.layer\.2\.mlp\.router\.classifier|encoder\.block\.2\.layer\.1\.mlp\.wi",
                  r".*experts\.expert_[01]\.wo", ["classifier"], None]
# bart-base's config names BartModel: its stacks sit at the top, not under model.
BART_TARGETS = [["q_proj", "v_proj"], ["encoder_attn.q_proj", "self_attn.v_proj"],
                r"(model\.)?encoder\.layers\.[0-9]+\.(fc1|fc2)", r".*decoder.*encoder_attn\.(k|out)_proj",
                r"(model\.)?decoder\.layers\.[02]\.self_attn\.q_proj", r"(model\.)?encoder\.layers\.0\.self_attn", None]
# Regexes that also match a container of linear layers: peft refuses them, and so does lsp-count.
REFUSED = {r"encoder\.block\.1\..*", r"(model\.)?encoder\.layers\.0\.self_attn"}
CASES = {
    "google-t5/t5-small": T5_TARGETS,
    "google/flan-t5-small": T5_TARGETS + [["wi_0", "DenseReluDense.wi_1"]],
    "google/switch-base-8": SWITCH_TARGETS,
    "facebook/bart-base": BART_TARGETS,
    "facebook/mbart-large-cc25": BART_TARGETS,
    "openai/whisper-tiny": BART_TARGETS,
}


def catalog_config(name: str) -> dict:
    from lsp_count.core.catalog import CATALOG_DIR

    return json.loads((CATALOG_DIR / f"{name}.json").read_text())


def yaml_for(targets, rank: int) -> str:
    text = f"base_model: ./base\nadapter: lora\nlora_r: {rank}\nsequence_len: 512\n"
    if targets is None:
        return text + "lora_target_linear: true\n"
    if isinstance(targets, list):
        return text + f"lora_target_modules: {json.dumps(targets)}\n"
    return text + f"lora_target_modules: '{targets}'\n"


def check(tmp_path, config: dict, targets, rank: int = 4):
    report = analyze_any(tmp_path, config, yaml_for(targets, rank))
    architecture = next(m.tree.root.name for m in report.models) if report.models else config["architectures"][0]
    expected = peft_outcome({**config, "architectures": [architecture]}, rank, "all-linear" if targets is None else targets)
    if isinstance(expected, str):
        assert report.has_errors, (targets, expected)
        return None
    assert not report.has_errors, (targets, report.problems)
    (model,) = report.models
    assert model.tree.trainable > 0, targets
    assert (model.tree.total, model.tree.trainable) == expected, targets
    return expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_seq2seq_targets_match_peft(tmp_path, name):
    """Name lists, dotted names, regexes over the encoder or the decoder, all-linear: peft's counts."""
    config = catalog_config(name)
    for targets in CASES[name]:
        refused = check(tmp_path, config, targets) is None
        assert refused == (isinstance(targets, str) and targets in REFUSED), targets


def test_flan_t5_decoder_regex_is_peft_s(tmp_path):
    """The reported case: a decoder-attention regex on flan-t5-small adapts 229,376 parameters."""
    expected = check(tmp_path, catalog_config("google/flan-t5-small"), r".*decoder.*(SelfAttention|EncDecAttention)\.(q|v)",
                     rank=8)
    assert expected is not None and expected[1] == 229_376


def test_whisper_untied_head_left_out_of_all_linear(tmp_path):
    """An untied Whisper head (proj_out) is the output embedding: peft's all-linear leaves it alone."""
    check(tmp_path, {**catalog_config("openai/whisper-tiny"), "tie_word_embeddings": False}, None)
    check(tmp_path, {**catalog_config("openai/whisper-tiny"), "tie_word_embeddings": False}, ["proj_out", "fc1"])


TINY_T5 = dict(d_model=16, d_ff=32, d_kv=8, num_heads=2, vocab_size=64)
# Token classification and question answering (their module paths below, their targets against peft at the end).
NEW_HEADS = {
    "t5-token-classification": dict(model_type="t5", num_layers=2, architectures=["T5ForTokenClassification"],
                                    num_labels=5, **TINY_T5),
    "mt5-question-answering": dict(model_type="mt5", num_layers=2, num_decoder_layers=1,
                                   architectures=["MT5ForQuestionAnswering"], **TINY_T5),
    "bart-question-answering": dict(model_type="bart", d_model=16, encoder_layers=1, decoder_layers=2,
                                    encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                                    decoder_ffn_dim=24, vocab_size=64, max_position_embeddings=32,
                                    architectures=["BartForQuestionAnswering"]),
}


@pytest.mark.parametrize("config", [
    dict(model_type="t5", num_layers=2, num_decoder_layers=3, feed_forward_proj="gated-gelu", **TINY_T5),
    dict(model_type="t5", num_layers=3, **TINY_T5),
    dict(model_type="switch_transformers", num_layers=7, num_decoder_layers=5, num_experts=2, encoder_sparse_step=3,
         decoder_sparse_step=1, **TINY_T5),
    dict(model_type="switch_transformers", num_layers=4, num_decoder_layers=4, num_experts=3, encoder_sparse_step=2,
         decoder_sparse_step=0, router_bias=True, **TINY_T5),
    # 3 of 12 blocks sparse at step 5 (1, 6, 11), as at step 4 (1, 5, 9): the counts alone do not place them.
    dict(model_type="switch_transformers", num_layers=12, num_decoder_layers=2, num_experts=2, encoder_sparse_step=5,
         decoder_sparse_step=0, **TINY_T5),
    dict(model_type="bart", d_model=16, encoder_layers=2, decoder_layers=3, encoder_attention_heads=2,
         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, max_position_embeddings=32),
    dict(model_type="mbart", d_model=16, encoder_layers=3, decoder_layers=1, encoder_attention_heads=2,
         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, max_position_embeddings=32),
    dict(model_type="whisper", d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, num_mel_bins=8,
         max_source_positions=16, max_target_positions=16, pad_token_id=0, bos_token_id=0, eos_token_id=0,
         decoder_start_token_id=0, tie_word_embeddings=False),
    dict(model_type="t5", num_layers=2, architectures=["T5ForSequenceClassification"], num_labels=3, **TINY_T5),
    dict(model_type="t5", num_layers=2, architectures=["T5EncoderModel"], **TINY_T5),
    dict(model_type="bart", d_model=16, encoder_layers=1, decoder_layers=2, encoder_attention_heads=2,
         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, max_position_embeddings=32,
         architectures=["BartForSequenceClassification"]),
    dict(model_type="whisper", d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, num_mel_bins=8,
         max_source_positions=16, max_target_positions=16, pad_token_id=0, classifier_proj_size=8, num_labels=3,
         architectures=["WhisperForAudioClassification"]),
    dict(model_type="mt5", num_layers=2, num_decoder_layers=3, **TINY_T5),
    dict(model_type="umt5", num_layers=3, num_decoder_layers=2, **TINY_T5),
    dict(model_type="mt5", num_layers=2, architectures=["MT5ForSequenceClassification"], num_labels=3, **TINY_T5),
    dict(model_type="umt5", num_layers=2, architectures=["UMT5ForSequenceClassification"], num_labels=3, **TINY_T5),
    *NEW_HEADS.values(),
], ids=["t5-gated", "t5", "switch-step3", "switch-step2", "switch-step5-of-12", "bart", "mbart", "whisper-untied",
        "t5-classification", "t5-encoder", "bart-classification", "whisper-audio-classification", "mt5", "umt5",
        "mt5-classification", "umt5-classification", *NEW_HEADS])
def test_module_paths_are_transformers_s(config):
    """Every linear module lsp-count adapts has the full name transformers gives it, Switch's interleaved sparse
    blocks and per-expert nn.Linear included."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    from lsp_count.core.hf_config import count_config
    from lsp_count.core.source import SourceNode
    from lsp_count.formats import lora
    from lsp_count.formats.common import lora_layer_indices

    logging.getLogger("transformers").setLevel(logging.ERROR)
    def source(v):
        if isinstance(v, list):
            return SourceNode(tuple(source(x) for x in v), None)
        return SourceNode(v, None)

    report, _ = count_config(SourceNode({k: source(v) for k, v in config.items()}, None), config["model_type"])
    tree = report.tree
    cfg = CONFIG_MAPPING[config["model_type"]](**{k: v for k, v in config.items() if k != "model_type"})
    assert tree.root.name == config.get("architectures", [tree.root.name])[0]
    with torch.device("meta"):
        model = getattr(transformers, tree.root.name)(cfg)
    theirs = {n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    out = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    # Tied (to the shared embedding, or to Marian's unshared decoder embedding): counted once, as the embedding.
    if out is not None and any(out.weight is m.weight for m in model.modules() if isinstance(m, torch.nn.Embedding)):
        theirs -= {n for n, m in model.named_modules() if m is out}
    paths = lora.SEQ2SEQ_PATHS[config["model_type"]]
    blocks = lora._seq2seq_blocks(tree, lora_layer_indices(report.spec))
    ours: list[str] = []
    for path, t, mult, _f in tree.root.iter_tensors():
        if lora._is_adaptable(t, path):
            ours += lora._seq2seq_paths(path, t.module, mult, paths, blocks)
    assert len(ours) == len(set(ours))
    assert set(ours) == theirs


@pytest.mark.parametrize("model_type", ["mt5", "umt5"])
def test_mt5_targets_match_peft(tmp_path, model_type):
    """mT5 and umT5 name their modules as T5 does: name lists, a decoder regex and all-linear are peft's."""
    prefix = "UMT5" if model_type == "umt5" else "MT5"
    config = dict(model_type=model_type, architectures=[f"{prefix}ForConditionalGeneration"], num_layers=2,
                  num_decoder_layers=3, **TINY_T5)
    for targets in (["q", "v"], ["wi_0", "wi_1", "wo"], r".*decoder.*SelfAttention\.(q|v)", None):
        check(tmp_path, config, targets)


@pytest.mark.parametrize("name", sorted(NEW_HEADS))
@pytest.mark.parametrize("targets", ["all-linear", "names", "encoder regex"])
def test_token_classification_and_question_answering_heads_match_peft(tmp_path, name, targets):
    """T5's token classifier (its stacks under `transformer`) and the question-answering heads: their
    classifier and qa_outputs are adapted by all-linear, as peft adapts them (no output embeddings)."""
    config = NEW_HEADS[name]
    chosen = {"all-linear": None, "names": ["q_proj", "v_proj"] if config["model_type"] == "bart" else ["q", "v"],
              "encoder regex": r".*encoder.*\.(q|k)(_proj)?"}[targets]
    assert check(tmp_path, config, chosen) is not None


# The BART-like families added later: one tiny config each (Marian unshared with a decoder vocabulary of its
# own, MVP with its prompts), every head class the family counts.
TINY_BART = dict(d_model=16, encoder_layers=2, decoder_layers=3, encoder_attention_heads=2, decoder_attention_heads=4,
                 encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64, max_position_embeddings=32, pad_token_id=0)
MORE_BART_LIKE = {
    "pegasus": dict(model_type="pegasus", **TINY_BART),
    "marian": dict(model_type="marian", decoder_start_token_id=0, **TINY_BART),
    "marian-unshared": dict(model_type="marian", decoder_start_token_id=0, share_encoder_decoder_embeddings=False,
                            decoder_vocab_size=40, **TINY_BART),
    "marian-untied": dict(model_type="marian", decoder_start_token_id=0, share_encoder_decoder_embeddings=False,
                          tie_word_embeddings=False, decoder_vocab_size=40, **TINY_BART),
    "blenderbot": dict(model_type="blenderbot", **TINY_BART),
    "blenderbot-small": dict(model_type="blenderbot-small", **TINY_BART),
    "plbart": dict(model_type="plbart", **TINY_BART),
    "mvp": dict(model_type="mvp", **TINY_BART),
    "mvp-prompt": dict(model_type="mvp", use_prompt=True, prompt_length=5, prompt_mid_dim=12, **TINY_BART),
}


def _more_bart_like_configs(name: str) -> list[dict]:
    """MORE_BART_LIKE[name] as each head class the family counts."""
    import transformers

    from lsp_count.core.families import registry

    config = MORE_BART_LIKE[name]
    return [{**config, "architectures": [arch]} for arch in registry()[config["model_type"]].heads
            if hasattr(transformers, arch)]


def _more_bart_like_cases() -> list:
    return [pytest.param(config, id=f"{name}-{config['architectures'][0]}")
            for name in MORE_BART_LIKE for config in _more_bart_like_configs(name)]


@pytest.mark.parametrize("config", _more_bart_like_cases())
def test_more_bart_like_module_paths_are_transformers_s(config):
    """Pegasus, Marian (MarianMTModel holds its stacks under `model`), Blenderbot, BlenderbotSmall, PLBart, MVP
    (its decoder prompts' prompt_trans.0 / .2): every head class's linear modules by their full names."""
    test_module_paths_are_transformers_s(config)


@pytest.mark.parametrize("name", sorted(MORE_BART_LIKE))
@pytest.mark.parametrize("targets", [["q_proj", "v_proj"], ["encoder_attn.q_proj", "self_attn.v_proj"],
                                     r".*decoder.*encoder_attn\.(k|out)_proj", r"(model\.)?encoder\.layers\.[01]\.fc1",
                                     r".*prompt_trans\.[02]|.*decoder\.layers\.0\.fc2", None])
def test_more_bart_like_targets_match_peft(tmp_path, name, targets):
    """Name lists, dotted names, regexes and all-linear (an untied head is the output embedding: left out;
    MVP's prompt MLPs are linear layers: adapted) on every head class: peft's counts."""
    if name != "mvp-prompt" and isinstance(targets, str) and "prompt" in targets:
        targets = r".*decoder\.layers\.0\.fc2"  # no prompt here: the regex would match that fc2 alone
    for config in _more_bart_like_configs(name):
        check(tmp_path, config, targets)


# m2m_100, BigBird-Pegasus (BigBird's attention in its encoder: self_attn.self.{query,key,value} and self_attn.output),
# LED (Longformer attention in its encoder: self_attn.longformer_self_attn.{query,key,value,*_global} and
# self_attn.output; its stacks under `led`), LongT5 (the encoder's layer.0.LocalSelfAttention or
# .TransientGlobalSelfAttention) and FSMT (its output projection inside the decoder): every head class.
_TINY_BART_WITHOUT_VOCAB = {k: v for k, v in TINY_BART.items() if k != "vocab_size"}
NEWER_TYPES = {
    "m2m_100": (dict(model_type="m2m_100", **TINY_BART), ["q_proj", "v_proj"]),
    # NLLB-MoE: encoder layers 1 sparse of 2 (step 2), decoder layer 2 of 3 (step 3): experts' fc1 / fc2 and routers.
    "nllb-moe": (dict(model_type="nllb-moe", num_experts=3, encoder_sparse_step=2, decoder_sparse_step=3,
                      router_bias=True, **TINY_BART), ["cross_attention.q_proj", "expert_1.fc2", "router.classifier"]),
    "led": (dict(model_type="led", d_model=16, encoder_layers=2, decoder_layers=3, encoder_attention_heads=2,
                 decoder_attention_heads=4, encoder_ffn_dim=32, decoder_ffn_dim=24, vocab_size=64,
                 max_encoder_position_embeddings=32, max_decoder_position_embeddings=16, attention_window=[4, 6],
                 pad_token_id=0), ["query", "key_global", "output", "v_proj"]),
    "bigbird_pegasus": (dict(model_type="bigbird_pegasus", attention_type="original_full", use_bias=True,
                             **TINY_BART), ["query", "output", "q_proj", "fc1"]),
    "longt5-local": (dict(model_type="longt5", num_layers=2, num_decoder_layers=3, **TINY_T5), ["q", "v"]),
    "longt5-transient-global": (dict(model_type="longt5", num_layers=2, num_decoder_layers=1,
                                     encoder_attention_type="transient-global", feed_forward_proj="gated-gelu",
                                     **TINY_T5), ["TransientGlobalSelfAttention.q", "wi_1"]),
    "fsmt": (dict(model_type="fsmt", src_vocab_size=40, tgt_vocab_size=64, **_TINY_BART_WITHOUT_VOCAB),
             ["q_proj", "output_projection"]),
}
# Tied, FSMT's output_projection shares the decoder embedding's weight: counted once, as the embedding, with no
# tensor of its own, so it is left out of the module paths; named targets that do not reach it are peft's.
FSMT_TIED = dict(model_type="fsmt", src_vocab_size=40, tgt_vocab_size=64, tie_word_embeddings=True,
                 **_TINY_BART_WITHOUT_VOCAB)


def _newer_type_configs(name: str) -> list[dict]:
    from lsp_count.core.families import registry

    config = NEWER_TYPES[name][0]
    return [{**config, "architectures": [arch]} for arch in registry()[config["model_type"]].heads]


@pytest.mark.parametrize("config", [pytest.param(config, id=f"{name}-{config['architectures'][0]}")
                                    for name in NEWER_TYPES for config in _newer_type_configs(name)])
def test_newer_types_module_paths_are_transformers_s(config):
    test_module_paths_are_transformers_s(config)


@pytest.mark.parametrize("name", sorted(NEWER_TYPES))
@pytest.mark.parametrize("which", ["names", "encoder regex", "all-linear"])
def test_newer_types_targets_match_peft(tmp_path, name, which):
    """Each family's own module names, an encoder regex over its attention, and all-linear: peft's counts."""
    targets = {"names": NEWER_TYPES[name][1], "encoder regex": r".*encoder\.(layers|block)\.1\..*(q|query|q_proj)",
               "all-linear": None}[which]
    for config in _newer_type_configs(name):
        check(tmp_path, config, targets)


@pytest.mark.parametrize("architecture", ["FSMTForConditionalGeneration", "FSMTModel"])
def test_tied_fsmt_named_targets_match_peft(tmp_path, architecture):
    for targets in (["q_proj", "fc2"], r".*decoder\.layers\.0\.encoder_attn\.(k|v)_proj"):
        check(tmp_path, {**FSMT_TIED, "architectures": [architecture]}, targets)


# The ForCausalLM classes of BART, mBART and Whisper (the other BART-likes' are among their families' head classes
# above): the decoder alone under model.decoder, its cross-attention (encoder_attn) adapted like any linear.
CAUSAL_LMS = {
    "bart": dict(model_type="bart", architectures=["BartForCausalLM"], **TINY_BART),
    "mbart-untied": dict(model_type="mbart", architectures=["MBartForCausalLM"], tie_word_embeddings=False,
                         **TINY_BART),
    "whisper": dict(model_type="whisper", architectures=["WhisperForCausalLM"], num_mel_bins=8, max_source_positions=16,
                    max_target_positions=16, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0,
                    **{k: v for k, v in TINY_BART.items() if k != "max_position_embeddings"}),
}


@pytest.mark.parametrize("name", sorted(CAUSAL_LMS))
def test_causal_lm_module_paths_are_transformers_s(name):
    test_module_paths_are_transformers_s(CAUSAL_LMS[name])


@pytest.mark.parametrize("name", sorted(CAUSAL_LMS))
@pytest.mark.parametrize("targets", [["q_proj", "v_proj"], r".*decoder.*encoder_attn\.(k|out)_proj",
                                     r"model\.decoder\.layers\.[02]\.fc1", None])
def test_causal_lm_targets_match_peft(tmp_path, name, targets):
    assert check(tmp_path, CAUSAL_LMS[name], targets) is not None


def test_a_switch_block_the_counts_do_not_place_is_named_as_the_config_places_it(tmp_path):
    """Step 5 of 12 blocks makes blocks 1, 6 and 11 sparse; step 4 would make 1, 5 and 9, as many: a regex naming
    block 6's experts adapts what peft adapts."""
    config = dict(model_type="switch_transformers", num_layers=12, num_decoder_layers=2, num_experts=2,
                  encoder_sparse_step=5, decoder_sparse_step=0, **TINY_T5)
    assert check(tmp_path, config, r"encoder\.block\.6\.layer\.1\.mlp\.experts\.expert_0\.wi") is not None
