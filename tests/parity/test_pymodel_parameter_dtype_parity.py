"""Parity: the dtypes of parameters and tensors as the analyser follows them (a torch layer's
parameters in its ``dtype`` argument or torch's default dtype, ``torch.set_default_dtype``, a
module's ``half()`` / ``to(dtype)``, arithmetic and views that keep a dtype, ``type(p)``), against
torch. Each answer decides a count: the analyser either counts the class as torch builds it or
refuses it (LC101); the answers it knows must be given (the test cannot pass by refusing them all).
Then peft's ``get_peft_model``, read from the installed peft, over random LoRA configurations:
total and trainable parameters as peft builds them."""

from __future__ import annotations

import textwrap
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def torch_and_static(source: str, name: str = "Net", options: AnalyzeOptions | None = None,
                     path: str = "net.py") -> tuple[tuple[int, int] | None, tuple[int, int] | None, list[str]]:
    """((total, trainable) as torch builds ``name``, None where it raises; the same counted
    statically, None where refused; the analysis' messages). torch's default dtype is put back
    after the build (the file may set it)."""
    namespace: dict = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, path, "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
            built = namespace[name]()
        params = list(built.parameters())
        want = (sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad))
    except Exception:  # noqa: BLE001 - torch rejects it: so must the analysis
        want = None
    finally:
        torch.set_default_dtype(torch.float32)
    report = analyze_text(source, path, options or AnalyzeOptions())
    got = next(((m.tree.total, m.tree.trainable) for m in report.models if m.name == name), None)
    return want, got, [p.message for p in report.problems]


def net(condition: str, setup: str = "", module: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(setup), " " * 8)
    return (f"import torch\nimport torch.nn as nn\n{module}\n\nclass Net(nn.Module):\n"
            f"    def __init__(self):\n        super().__init__()\n{body}\n"
            f"        self.fc = nn.Linear(3 if {condition} else 4, 1, bias=False)\n")


# (setup in the constructor, condition, whether the analyser knows the answer)
CASES = [
    ("", "nn.Linear(2, 2).weight.dtype == torch.float32", True),
    ("", "nn.Linear(2, 2).bias.dtype == torch.float16", True),
    ("", "nn.Linear(2, 2, dtype=torch.float16).weight.dtype == torch.float16", True),
    ("", "nn.Linear(2, 2, True, None, torch.float64).weight.dtype == torch.float64", True),  # after device
    ("", "nn.Linear(2, 2).weight.element_size() == 4 and nn.Linear(2, 2).weight.itemsize == 4", True),
    ("", "nn.Embedding(5, 2, dtype=torch.bfloat16).weight.element_size() == 2", True),
    ("", "nn.LayerNorm(4).weight.dtype == torch.float32", True),
    ("", "nn.LSTM(2, 3, dtype=torch.float64).weight_ih_l0.dtype == torch.float64", True),
    ("", "nn.MultiheadAttention(4, 2, dtype=torch.float64).out_proj.weight.dtype == torch.float64", True),
    ("", "nn.TransformerEncoderLayer(4, 2, 8, dtype=torch.float16).linear1.weight.dtype == torch.float16", True),
    ("", "nn.Linear(2, 2).half().weight.dtype == torch.float16", True),
    ("", "nn.Linear(2, 2).bfloat16().bias.element_size() == 2", True),
    ("", "nn.Linear(2, 2).double().float().weight.dtype == torch.float32", True),
    ("", "nn.Linear(2, 2).to(torch.float64).weight.dtype == torch.float64", True),
    ("", "nn.Linear(2, 2).to('cpu').weight.dtype == torch.float32", True),
    ("", "nn.Linear(2, 2).to(dtype=torch.bfloat16).weight.dtype == torch.bfloat16", True),
    ("", "nn.Linear(2, 2).weight.is_leaf", True),
    ("", "type(nn.Linear(2, 2).weight) is nn.Parameter", True),
    ("", "type(nn.Linear(2, 2).weight).__module__.startswith('torchao.')", True),
    ("", "nn.Linear(2, 2).weight.__class__.__name__ == 'Parameter'", True),
    ("", "torch.get_default_dtype() == torch.float32", True),
    ("", "torch.randn(2, 2).dtype == torch.float32", True),
    ("", "nn.Parameter(torch.randn(3)).dtype == torch.float32", True),
    ("", "torch.zeros(2, 3, dtype=torch.float16).dtype == torch.float16", True),
    ("", "(nn.Linear(2, 2).weight * 0.5 + 1).dtype == torch.float32", True),
    ("", "(nn.Linear(2, 2, dtype=torch.float64).weight @ torch.randn(2, 2, dtype=torch.float64)).dtype == torch.float64",
     True),
    ("", "nn.Linear(2, 3).weight.T.reshape(6).dtype == torch.float32", True),
    ("", "nn.Conv2d(2, 3, 3).weight.norm(p=2, dim=(1, 2, 3), keepdim=True).transpose(1, 0).dtype == torch.float32",
     True),
    ("", "nn.Linear(2, 3, dtype=torch.float64).weight.sum(0).dtype == torch.float64", True),
    ("", "torch.mm(nn.Linear(2, 3).weight, nn.Linear(4, 2).weight).dtype == torch.float32", True),
    ("", "torch.randn(3).to(torch.float16).dtype == torch.float16", True),
    ("", "torch.randn(3).half().element_size() == 2", True),
    ("", "torch.randn(3, dtype=torch.float64).to('cpu').dtype == torch.float64", True),
    ("torch.set_default_dtype(torch.float64)", "nn.Linear(2, 2).weight.dtype == torch.float64", True),
    ("torch.set_default_dtype(torch.float64)", "torch.get_default_dtype() == torch.float64", True),
    ("torch.set_default_dtype(torch.float64)", "torch.randn(2).dtype == torch.float64", True),
    ("torch.set_default_dtype(torch.float16)", "nn.Conv2d(1, 2, 3).weight.element_size() == 2", True),
    ("torch.set_default_dtype(torch.bfloat16)", "nn.Linear(2, 2, dtype=torch.float32).weight.dtype == torch.float32",
     True),
    ("torch.set_default_tensor_type(torch.DoubleTensor)", "nn.Linear(2, 2).weight.dtype == torch.float64", True),
    ("torch.set_default_tensor_type('torch.FloatTensor')", "nn.Linear(2, 2).weight.dtype == torch.float32", True),
    # Not known to the analyser: refused, never guessed.
    ("", "nn.Linear(2, 2).type(torch.float16).weight.dtype == torch.float16", False),
    ("", "nn.Linear(2, 2).to(torch.complex64).weight.dtype == torch.complex64", False),
    ("", "(torch.arange(3) + torch.randn(3)).dtype == torch.float32", False),
    ("torch.set_default_dtype(nn.Linear(2, 2).type(torch.float64).weight.dtype)",
     "nn.Linear(2, 2).weight.dtype == torch.float64", False),
    ("torch.set_default_dtype(nn.Linear(2, 2).type(torch.float64).weight.dtype)",
     "torch.get_default_dtype() == torch.float64", False),
]


@pytest.mark.parametrize("setup, condition, known", CASES)
def test_a_dtype_answer_is_torch_s_or_refused(setup: str, condition: str, known: bool) -> None:
    want, got, messages = torch_and_static(net(condition, setup))
    assert want is not None
    if known:
        assert got == want, messages
    else:
        assert got is None and any("LC101" in m or "cannot be counted" in m for m in messages), (got, messages)


def test_torch_refuses_a_default_dtype_that_is_not_floating_point() -> None:
    want, got, messages = torch_and_static(net("True", "torch.set_default_dtype(torch.int64)"))
    assert want is None and got is None
    assert any("only floating-point types are supported as the default type" in m for m in messages), messages


def test_the_default_dtype_the_import_sets_holds_for_every_class_and_a_count_s_own_is_undone() -> None:
    # Set at import: every class is built under it. Set by one constructor: the next class counted
    # is built as on its own (after the import), as torch builds it in a fresh process.
    source = textwrap.dedent("""
        import torch
        import torch.nn as nn
        torch.set_default_dtype(torch.float64)

        class Sets(nn.Module):
            def __init__(self):
                super().__init__()
                torch.set_default_dtype(torch.float16)
                self.fc = nn.Linear(3 if nn.Linear(1, 1).weight.dtype == torch.float16 else 4, 1)

        class Reads(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(5 if torch.get_default_dtype() == torch.float64 else 6, 1)
    """)
    for name in ("Sets", "Reads"):
        want, got, messages = torch_and_static(source, name)
        assert want is not None and got == want, (name, messages)


def test_a_block_built_again_under_another_default_dtype_is_not_a_copy_of_the_first() -> None:
    # The build cache copies identical builds; one made under another default dtype is not one.
    source = textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                if self.fc.weight.dtype == torch.float64:
                    self.extra = nn.Linear(7, 7)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = Block()
                torch.set_default_dtype(torch.float64)
                self.b = Block()
                torch.set_default_dtype(torch.float32)
                self.c = Block()
    """)
    want, got, messages = torch_and_static(source)
    assert want == (3 * 6 + 56, 3 * 6 + 56) and got == want, messages


# --- peft ------------------------------------------------------------------------------------

PEFT_MODEL = '''
import torch
import torch.nn as nn
from peft import LoraConfig, get_peft_model


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding({vocab}, {dim})
        self.q = nn.Linear({dim}, {dim}, bias={q_bias})
        self.v = nn.Linear({dim}, {dim})
        self.conv = nn.Conv2d({dim}, {dim}, 3)
        self.fc1 = nn.Linear({dim}, {hidden})
        self.fc2 = nn.Linear({hidden}, {dim})
        self.head = nn.Linear({dim}, 3)


class Tuned(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = get_peft_model(Base(), LoraConfig({config}))
'''

_OPTIONS = st.fixed_dictionaries({}, optional={
    "bias": st.sampled_from(["'none'", "'all'", "'lora_only'"]), "modules_to_save": st.just("['head']"),
    "use_dora": st.just("True"), "use_rslora": st.just("True"), "lora_dropout": st.just("0.1"),
    "init_lora_weights": st.sampled_from(["True", "False", "'gaussian'"]),
})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(targets=st.lists(st.sampled_from(["q", "v", "fc1", "fc2", "embed", "conv"]), min_size=1, max_size=4,
                        unique=True),
       r=st.integers(1, 8), alpha=st.integers(1, 32), options=_OPTIONS, vocab=st.integers(4, 50),
       dim=st.sampled_from([4, 8, 16]), hidden=st.integers(4, 40), q_bias=st.booleans())
def test_get_peft_model_counts_as_peft_builds_it(targets, r, alpha, options, vocab, dim, hidden, q_bias) -> None:
    pytest.importorskip("peft")
    config = ", ".join([f"r={r}", f"target_modules={targets!r}", f"lora_alpha={alpha}",
                        *(f"{k}={v}" for k, v in options.items())])
    source = PEFT_MODEL.format(vocab=vocab, dim=dim, hidden=hidden, q_bias=q_bias, config=config)
    want, got, messages = torch_and_static(source, "Tuned", AnalyzeOptions(read_packages=("peft", "transformers")),
                                           "tuned.py")
    assert want is not None and got == want, messages
    assert want[1] < want[0]  # the base is frozen: trainable is the adapters (and what is saved)


def test_get_peft_model_of_a_transformers_model_counts_as_peft_builds_it() -> None:
    # peft converts a transformers 5 model's adapter targets through transformers' table of weight
    # conversions for every model type (about 130,000 steps): within the installed packages'
    # allowance, and built once (its module-level cache is written through `global`).
    pytest.importorskip("peft")
    source = textwrap.dedent("""
        import torch.nn as nn
        from transformers import AutoModelForCausalLM, LlamaConfig
        from peft import LoraConfig, get_peft_model

        class Tuned(nn.Module):
            def __init__(self):
                super().__init__()
                config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                                     num_key_value_heads=2, num_hidden_layers=2, vocab_size=100)
                base = AutoModelForCausalLM.from_config(config)
                self.model = get_peft_model(base, LoraConfig(r=4, target_modules=["q_proj", "v_proj"],
                                                             task_type="CAUSAL_LM"))
    """)
    want, got, messages = torch_and_static(source, "Tuned", path="tuned.py")
    assert want is not None and got == want, messages


@pytest.mark.parametrize("hub_id", ["meta-llama/Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-70B"])
def test_get_peft_model_on_a_full_size_llama_from_the_catalog_matches_peft(tmp_path, hub_id) -> None:
    """A training script's `get_peft_model(AutoModelForCausalLM.from_pretrained(...), LoraConfig(...))`
    on the real shapes: peft walks every module of the 32 (80) layers, past the installed packages'
    former allowance (240,000 steps: LC101 "took more than 60,000 steps"); the README quotes
    the 8B's figures."""
    pytest.importorskip("peft")
    import json
    import pathlib

    from peft import LoraConfig, get_peft_model
    from transformers import AutoConfig, AutoModelForCausalLM

    import lsp_count

    org, name = hub_id.split("/")
    config_file = pathlib.Path(lsp_count.__file__).parent / "catalog" / org / f"{name}.json"
    data = json.loads(config_file.read_text())
    config = AutoConfig.for_model(**{k: v for k, v in data.items() if k != "architectures"} | {"model_type": data["model_type"]})
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        built = get_peft_model(AutoModelForCausalLM.from_config(config),
                               LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
    params = list(built.parameters())
    want = (sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad))
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        from peft import LoraConfig, get_peft_model
        from transformers import AutoModelForCausalLM


        def main():
            model = get_peft_model(AutoModelForCausalLM.from_pretrained("{hub_id}"),
                                   LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
            model.print_trainable_parameters()


        if __name__ == "__main__":
            main()
    """))
    report = analyze_text(script.read_text(), str(script), AnalyzeOptions())
    got = [(m.tree.total, m.tree.trainable) for m in report.models]
    assert got == [want], [p.message for p in report.problems]
    if hub_id.endswith("8B"):
        assert want == (8_037_076_992, 6_815_744)


def test_merge_and_unload_in_a_script_counts_as_peft_leaves_the_model(tmp_path) -> None:
    """peft's `merge_and_unload()` (peft's own sequence-classification example ends with it) replaces
    the LoRA layers in place: the wrapped model and what it returns are the base model again with
    the trained head (`modules_to_save`). It was followed no further than its tqdm progress bar,
    and the model kept its LoRA count."""
    pytest.importorskip("peft")
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification, LlamaConfig

    source = textwrap.dedent("""
        from peft import LoraConfig, get_peft_model
        from transformers import AutoModelForSequenceClassification, LlamaConfig

        config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                             num_hidden_layers=2, vocab_size=100, num_labels=3, pad_token_id=0)
        model = get_peft_model(AutoModelForSequenceClassification.from_config(config),
                               LoraConfig(task_type="SEQ_CLS", r=4, target_modules=["q_proj", "v_proj"]))
        merged = model.merge_and_unload()
    """)
    config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                         num_hidden_layers=2, vocab_size=100, num_labels=3, pad_token_id=0)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = get_peft_model(AutoModelForSequenceClassification.from_config(config),
                               LoraConfig(task_type="SEQ_CLS", r=4, target_modules=["q_proj", "v_proj"]))
        merged = model.merge_and_unload()

    def numbers(m):
        params = list(m.parameters())
        return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)

    script = tmp_path / "tune.py"
    script.write_text(source)
    report = analyze_text(source, str(script), AnalyzeOptions())
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == {
        "model": numbers(model), "merged": numbers(merged)}, [p.message for p in report.problems]


def test_prepare_model_for_kbit_training_counts_as_peft_leaves_the_model(tmp_path) -> None:
    """peft's QLoRA preparation (alpaca-lora's finetune.py) freezes the base model: it asks
    accelerate whether there is an XPU, which was not followed (LC101) where accelerate is not read."""
    pytest.importorskip("peft")
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from transformers import AutoModelForCausalLM, LlamaConfig

    settings = ("hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, "
                "num_hidden_layers=2, vocab_size=100")
    source = textwrap.dedent(f"""
        from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
        from transformers import AutoModelForCausalLM, LlamaConfig

        base = AutoModelForCausalLM.from_config(LlamaConfig({settings}))
        base = prepare_model_for_kbit_training(base, use_gradient_checkpointing=False)
        model = get_peft_model(base, LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    """)
    namespace: dict = {}
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        exec(compile(source, "tune.py", "exec"), namespace)  # noqa: S102 - the test's own script

    def numbers(m):
        params = list(m.parameters())
        return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)

    report = analyze_text(source, str(tmp_path / "tune.py"), AnalyzeOptions())
    got = {m.name: (m.tree.total, m.tree.trainable) for m in report.models}
    # `base` is the model peft wraps: counted after get_peft_model injected its adapters, as torch sees it then.
    assert got == {"base": numbers(namespace["base"]), "model": numbers(namespace["model"])}, \
        [p.message for p in report.problems]
    assert numbers(namespace["model"])[1] > 0 and got["model"][1] == numbers(namespace["model"])[1]
