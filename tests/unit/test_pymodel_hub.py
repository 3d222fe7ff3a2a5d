"""from_pretrained("org/name") in a Python model file: resolved offline (bundled catalog, then the
local HF cache), counted exactly when the catalog's class is the one the call builds, and said so
(with where it looked) when not."""

from __future__ import annotations

import json
import textwrap

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.catalog import CATALOG_DIR, analyze_model_id
from lsp_count.core.report import FileReport

OPTS = AnalyzeOptions()


def run(src: str, **options):
    return analyze_text(textwrap.dedent(src), "model.py", AnalyzeOptions(**options))


def lc101(report) -> dict[str, str]:
    return {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


def catalog_total(hub_id: str) -> int:
    return analyze_model_id(hub_id, OPTS).models[0].tree.total


def test_causal_lm_backbone_counts_exactly_from_the_catalog() -> None:
    report = run("""
        from transformers import AutoModelForCausalLM
        import torch.nn as nn
        class WithLM(nn.Module):
            def __init__(self):
                super().__init__()
                self.lm = AutoModelForCausalLM.from_pretrained("openai-community/gpt2")
                self.lm.requires_grad_(False)
                self.head = nn.Linear(self.lm.config.n_embd, 2)
    """)
    (model,) = report.models
    gpt2 = catalog_total("openai-community/gpt2")
    assert gpt2 == 124_439_808  # transformers' GPT2LMHeadModel (tied head counted once)
    assert model.tree.total == gpt2 + 768 * 2 + 2
    assert model.tree.trainable == 768 * 2 + 2  # requires_grad_(False) froze the backbone
    assert model.method == "static analysis (exact)" and "WithLM" not in lc101(report)
    ((span, hub_id, total, message),) = report.hub_counts
    assert (hub_id, total) == ("openai-community/gpt2", gpt2)
    assert "exact" in message and "bundled catalog" in message
    assert [r for _, r in report.hub_refs] == ["openai-community/gpt2"]  # unchanged beside it
    assert span == report.hub_refs[0][0]


def test_automodel_on_a_decoder_is_the_base_model_without_lm_head() -> None:
    report = run("""
        from transformers import AutoModel
        import torch.nn as nn
        class Classifier(nn.Module):
            def __init__(self, num_labels=3):
                super().__init__()
                self.backbone = AutoModel.from_pretrained("Qwen/Qwen2.5-7B")
                self.score = nn.Linear(self.backbone.config.hidden_size, num_labels, bias=False)
    """)
    (model,) = report.models
    tree = analyze_model_id("Qwen/Qwen2.5-7B", OPTS).models[0].tree
    head = tree.root.child("lm_head")
    assert head is not None and head.total > 0  # untied: Qwen2Model has no lm_head
    base = tree.total - head.total
    assert base == 7_070_619_136  # Qwen2Model
    assert model.tree.total == base + 3584 * 3
    (layers,) = model.tree.root.child("backbone").child("layers").children  # as a written-out ModuleList shows
    assert (layers.name, layers.repeat) == ("0-27", 28)
    assert report.hub_counts[0][2] == base and "builds Qwen2Model" in report.hub_counts[0][3]


def test_unknown_hub_id_stays_unresolved_and_says_where_it_looked() -> None:
    report = run("""
        from transformers import AutoModel
        import torch.nn as nn
        class WithBackbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = AutoModel.from_pretrained("no-such-org/no-such-model")
                self.head = nn.Linear(768, 2)
    """, hf_cache="/nonexistent-hf-home")
    assert report.models == ()
    message = lc101(report)["WithBackbone"]
    assert "from_pretrained" in message and "not found offline" in message
    assert "the bundled catalog" in message and "/nonexistent-hf-home" in message
    ((_, hub_id, total, why),) = report.hub_counts
    assert hub_id == "no-such-org/no-such-model" and total is None and "looked in" in why


def test_hub_id_from_the_local_hf_cache(tmp_path) -> None:
    config = json.loads((CATALOG_DIR / "openai-community" / "gpt2.json").read_text())
    repo = tmp_path / "hub" / "models--my-org--tiny-gpt2"
    (repo / "snapshots" / "abc123").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    (repo / "snapshots" / "abc123" / "config.json").write_text(json.dumps({**config, "n_layer": 2}))
    report = run("""
        from transformers import GPT2LMHeadModel
        import torch.nn as nn
        class Small(nn.Module):
            def __init__(self):
                super().__init__()
                self.lm = GPT2LMHeadModel.from_pretrained("my-org/tiny-gpt2")
    """, hf_cache=str(tmp_path))
    (model,) = report.models
    per_layer = (catalog_total("openai-community/gpt2") - 50257 * 768 - 1024 * 768 - 2 * 768) // 12
    assert model.tree.total == 50257 * 768 + 1024 * 768 + 2 * 768 + 2 * per_layer
    assert "Hugging Face cache" in report.hub_counts[0][3]


def test_a_class_of_another_family_stays_unresolved() -> None:
    report = run("""
        from transformers import LlamaForCausalLM
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = LlamaForCausalLM.from_pretrained("google-bert/bert-base-uncased")
    """)
    assert report.models == ()
    assert "BertForMaskedLM" in lc101(report)["Encoder"]
    ((_, _, total, message),) = report.hub_counts
    assert total is None and "BertForMaskedLM" in message and "109,514,298" in message


def test_config_and_tokenizer_loaders() -> None:
    report = run("""
        from transformers import AutoConfig, AutoTokenizer
        import torch.nn as nn
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                config = AutoConfig.from_pretrained("openai-community/gpt2")
                self.tokenizer = AutoTokenizer.from_pretrained("openai-community/gpt2")
                self.proj = nn.Linear(config.n_embd, config.vocab_size, bias=False)
    """)
    (model,) = report.models
    assert model.tree.total == 768 * 50257  # the tokenizer holds no parameters; the config gives sizes
    config_ref, tokenizer_ref = report.hub_counts
    assert config_ref[2] == catalog_total("openai-community/gpt2") and "config of GPT2LMHeadModel" in config_ref[3]
    assert tokenizer_ref[2] is None and "no parameters" in tokenizer_ref[3]


def test_moe_checkpoint_counts_exactly_without_thousands_of_modules() -> None:
    report = run("""
        from transformers import AutoModelForCausalLM
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = AutoModelForCausalLM.from_pretrained("deepseek-ai/DeepSeek-V3")
    """)
    (model,) = report.models
    assert model.tree.total == catalog_total("deepseek-ai/DeepSeek-V3")


def test_hub_counts_is_optional_and_empty_elsewhere() -> None:
    assert FileReport("x.json", (), ()).hub_counts == ()
    report = run("""
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
    """)
    assert report.hub_refs == () and report.hub_counts == ()


def test_every_from_pretrained_call_is_found_wherever_it_is_written() -> None:
    """Only the statements on lines that mention from_pretrained are walked; each call is still
    found, in methods, blocks of every kind and after lines are added above (a kept block)."""
    from lsp_count.pymodel.reuse import PythonMemo

    src = textwrap.dedent('''
        """Load with AutoModel.from_pretrained("in/a-docstring"): not a call."""
        from transformers import AutoConfig, AutoModel
        import torch.nn as nn
        top = AutoConfig.from_pretrained("openai-community/gpt2")
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def load(self, kind):
                if kind:
                    return AutoModel.from_pretrained("in/if")
                try:
                    pass
                except ValueError:
                    return AutoModel.from_pretrained(
                        pretrained_model_name_or_path="in/except")
                with open("x") as f:
                    x = [AutoModel.from_pretrained(n) for n in ("not/constant",)]
                match kind:
                    case 1:
                        return AutoModel.from_pretrained("in/match")
    ''')
    expected = ["openai-community/gpt2", "in/if", "in/except", "in/match"]
    assert [hub for _, hub in run(src).hub_refs] == expected
    memo = PythonMemo()
    first = analyze_text(src, "model.py", AnalyzeOptions(), memo=memo)
    moved = analyze_text("# one\n# two\n" + src, "model.py", AnalyzeOptions(), memo=memo)
    assert [hub for _, hub in moved.hub_refs] == expected
    assert [span.start.line for span, _ in moved.hub_refs] == [span.start.line + 2 for span, _ in first.hub_refs]


def test_keywords_that_change_the_model_are_never_counted_as_the_unchanged_model() -> None:
    """Where transformers is not read (read_packages=()), a from_pretrained whose keywords may
    change what it builds is LC101 naming them; loading keywords, and a config= holding the id's
    config as loaded, change nothing. (Where it is read, the parity suite compares them with
    transformers' own from_pretrained.)"""
    src = """
        import torch
        import torch.nn as nn
        from transformers import AutoConfig, AutoModelForCausalLM
        class Layers(nn.Module):
            def __init__(self):
                super().__init__()
                self.lm = AutoModelForCausalLM.from_pretrained("gpt2", n_layer=2)
        class Changed(nn.Module):
            def __init__(self):
                super().__init__()
                config = AutoConfig.from_pretrained("gpt2")
                config.n_layer = 2
                self.lm = AutoModelForCausalLM.from_pretrained("gpt2", config=config)
        class AsLoaded(nn.Module):
            def __init__(self):
                super().__init__()
                config = AutoConfig.from_pretrained("gpt2")
                self.lm = AutoModelForCausalLM.from_pretrained("gpt2", config=config, dtype=torch.bfloat16,
                                                               device_map="auto", revision="main")
    """
    outside = run(src, read_packages=())
    problems = lc101(outside)
    assert "`n_layer=` may change what it builds" in problems["Layers"]
    assert "`config=` (not the id's config.json as loaded) may change" in problems["Changed"]
    assert "read-packages" in problems["Layers"]
    assert {m.name: m.tree.total for m in outside.models} == {"AsLoaded": 124_439_808}
    # Read, the first two are built as transformers builds them: two of GPT-2's twelve layers.
    read = run(src)
    assert {m.name: m.tree.total for m in read.models} == {
        "Layers": 53_561_088, "Changed": 53_561_088, "AsLoaded": 124_439_808}


def test_the_hover_on_an_id_names_the_keywords_that_may_change_the_call_s_model() -> None:
    report = run("""
        import torch
        import torch.nn as nn
        from transformers import AutoModelForCausalLM
        LOADING = {"dtype": torch.bfloat16, "device_map": "auto"}
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.plain = AutoModelForCausalLM.from_pretrained("gpt2", dtype=torch.bfloat16)
                self.spread = AutoModelForCausalLM.from_pretrained("gpt2", **LOADING)
                self.layers = AutoModelForCausalLM.from_pretrained("gpt2", num_hidden_layers=2)
    """)
    plain, spread, layers = report.hub_counts
    assert plain[2] == 124_439_808 and "may change" not in plain[3]
    # `**LOADING` holds loading keywords only, which the count of the class follows; the id's hover
    # cannot tell, and says so.
    assert spread[2] is None and "This call's `**LOADING` may change that" in spread[3]
    assert layers[2] is None and "This call's `num_hidden_layers=` may change that" in layers[3]
    assert [m.tree.total for m in report.models] == [2 * 124_439_808 + 53_561_088]  # two GPT-2s, one of 2 layers


def test_question_answering_and_multiple_choice_auto_classes() -> None:
    """AutoModelForQuestionAnswering / AutoModelForMultipleChoice build BERT's QA head (no pooler,
    qa_outputs h → 2) and its multiple-choice head (the pooler, a classifier h → 1)."""
    report = run("""
        import torch.nn as nn
        from transformers import AutoModelForMultipleChoice, AutoModelForQuestionAnswering
        class Reader(nn.Module):
            def __init__(self):
                super().__init__()
                self.qa = AutoModelForQuestionAnswering.from_pretrained("google-bert/bert-base-uncased")
        class Chooser(nn.Module):
            def __init__(self):
                super().__init__()
                self.mc = AutoModelForMultipleChoice.from_pretrained("google-bert/bert-base-uncased")
    """)
    bare = analyze_text(json.dumps({**json.loads((CATALOG_DIR / "google-bert" / "bert-base-uncased.json").read_text()),
                                    "architectures": ["BertModel"]}), "base/config.json").models[0].tree.total
    totals = {m.name: m.tree.total for m in report.models}
    assert totals == {"Reader": bare - (768 * 768 + 768) + (768 * 2 + 2), "Chooser": bare + 768 + 1}
