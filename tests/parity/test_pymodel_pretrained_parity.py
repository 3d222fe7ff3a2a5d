"""Parity for ``from_pretrained`` calls that change what they build, in a Python model file that
reads the installed transformers (the default): keywords that set config attributes
(``num_hidden_layers=1``, GPT-2's ``n_layer`` or its alias), a config loaded with
``AutoConfig.from_pretrained`` and changed before ``from_config`` or ``config=``, and keywords
transformers gives to the model's ``__init__`` (a TypeError). A random small model of four
families is saved to a local directory; the analysis reads its config.json (never weights), and
the same file is run here, where transformers' real ``from_pretrained`` loads the directory."""

from __future__ import annotations

import logging
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.parity
pytest.importorskip("transformers")

# (model_type, the class saved, the loaders a file may call on its directory, the layer count's names)
FAMILIES = {
    "gpt2": ("GPT2LMHeadModel", ("AutoModel", "AutoModelForCausalLM", "GPT2LMHeadModel", "GPT2Model"),
             ("n_layer", "num_hidden_layers")),
    "llama": ("LlamaForCausalLM", ("AutoModel", "AutoModelForCausalLM", "LlamaForCausalLM",
                                   "AutoModelForSequenceClassification"), ("num_hidden_layers",)),
    "qwen2": ("Qwen2ForCausalLM", ("AutoModelForCausalLM", "Qwen2Model"), ("num_hidden_layers",)),
    "bert": ("BertForMaskedLM", ("AutoModel", "AutoModelForMaskedLM", "AutoModelForSequenceClassification",
                                 "BertForSequenceClassification"), ("num_hidden_layers",)),
}
AUTO_ONLY = ("AutoModel", "AutoModelForCausalLM", "AutoModelForMaskedLM", "AutoModelForSequenceClassification")


def _sizes(model_type: str, heads: int, head_dim: int, layers: int, vocab: int, inner: int) -> dict:
    hidden = heads * head_dim
    if model_type == "gpt2":
        return dict(n_embd=hidden, n_head=heads, n_layer=layers, vocab_size=vocab, n_positions=32, n_inner=inner)
    sizes = dict(hidden_size=hidden, num_attention_heads=heads, num_hidden_layers=layers, vocab_size=vocab,
                 intermediate_size=inner)
    if model_type == "bert":
        sizes["max_position_embeddings"] = 32
    else:
        sizes["num_key_value_heads"] = 1 if heads % 2 else 2
    return sizes


def _file(path: str, form: str, loader: str, changes: dict) -> str:
    kw = "".join(f", {k}={v!r}" for k, v in changes.items())
    imports = "from transformers import AutoConfig, " + loader
    if form == "keywords":
        body = f"self.lm = {loader}.from_pretrained({path!r}, ignore_mismatched_sizes=True{kw})"
    elif form == "from_config":
        body = f"config = AutoConfig.from_pretrained({path!r}{kw})\n        self.lm = {loader}.from_config(config)"
    else:  # a config changed after loading, given as config=
        sets = "".join(f"\n        config.{k} = {v!r}" for k, v in changes.items())
        body = (f"config = AutoConfig.from_pretrained({path!r}){sets}\n"
                f"        self.lm = {loader}.from_pretrained({path!r}, config=config, ignore_mismatched_sizes=True)")
    return f'''import torch.nn as nn
{imports}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        {body}
        self.head = nn.Linear(4, 2)
'''


def _run(text: str) -> int | None:
    """transformers' own count of the file's Model, its from_pretrained loading the directory; None
    where it raises."""
    namespace: dict = {}
    try:
        exec(compile(text, "model.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
        return sum(p.numel() for p in namespace["Model"]().parameters())
    except Exception:  # noqa: BLE001 - transformers refuses it: so must the analysis
        return None


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(model_type=st.sampled_from(sorted(FAMILIES)), heads=st.integers(1, 4), head_dim=st.sampled_from([4, 8]),
       layers=st.integers(1, 3), vocab=st.integers(8, 120), inner=st.integers(4, 40), data=st.data())
def test_from_pretrained_with_its_config_changed_counts_as_transformers_loads_it(
        tmp_path_factory, monkeypatch, model_type, heads, head_dim, layers, vocab, inner, data) -> None:
    import torch
    import transformers
    from lsp_count.core.analyze import analyze_text

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    saved, loaders, layer_names = FAMILIES[model_type]
    directory = tmp_path_factory.mktemp("model")
    config = transformers.AutoConfig.for_model(model_type, **_sizes(model_type, heads, head_dim, layers, vocab, inner))
    torch.manual_seed(0)
    getattr(transformers, saved)(config).save_pretrained(directory)

    form = data.draw(st.sampled_from(["keywords", "from_config", "config="]), "form")
    loader = data.draw(st.sampled_from([x for x in loaders if form != "from_config" or x in AUTO_ONLY]), "loader")
    changes: dict = {}
    if data.draw(st.booleans(), "layers changed"):
        changes[data.draw(st.sampled_from(layer_names), "layers key")] = data.draw(st.integers(1, 4), "layers")
    if data.draw(st.booleans(), "vocabulary changed"):
        changes["vocab_size"] = data.draw(st.integers(8, 120), "vocab")
    if "SequenceClassification" in loader and data.draw(st.booleans(), "labels changed"):
        changes["num_labels"] = data.draw(st.integers(1, 5), "labels")
    if form != "config=" and data.draw(st.integers(0, 4), "unknown keyword") == 0:
        changes["not_a_config_key"] = 3  # a model's __init__ refuses it; AutoConfig leaves it unused
    text = _file(str(directory), form, loader, changes)

    want = _run(text)
    report = analyze_text(text, str(directory.parent / "model.py"))
    got = report.models[0].tree.total if report.models else None
    assert got == want, (text, [p.message for p in report.problems])
    if want is not None:
        assert not [p for p in report.problems if p.severity != "info"], text


def test_the_catalog_answers_a_call_with_loading_keywords_only(tmp_path) -> None:
    """dtype, device_map, revision and the like change nothing: the catalog's count, as before; a
    keyword that is a config attribute is followed in transformers' code, and differs."""
    from lsp_count.core.analyze import analyze_text

    text = '''import torch
import torch.nn as nn
from transformers import AutoModelForCausalLM


class Loaded(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = AutoModelForCausalLM.from_pretrained("openai-community/gpt2", dtype=torch.bfloat16,
                                                       device_map="auto", revision="main", trust_remote_code=False)


class Shallow(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = AutoModelForCausalLM.from_pretrained("gpt2", num_hidden_layers=2)
'''
    report = analyze_text(text, str(tmp_path / "model.py"))
    counts = {m.name: m.tree.total for m in report.models}
    # GPT-2 small: 124,439,808; two of its twelve layers: minus ten of 7,087,872 each.
    assert counts == {"Loaded": 124_439_808, "Shallow": 124_439_808 - 10 * 7_087_872}
    hovers = {h[0].start.line: h for h in report.hub_counts}
    assert hovers[8][2] == 124_439_808
    assert hovers[15][2] is None and "This call's `num_hidden_layers=` may change that" in hovers[15][3]
