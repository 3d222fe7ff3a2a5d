"""Parity for models written on top of an installed transformers (AnalyzeOptions.read_packages):
a user's ``PreTrainedModel`` subclass built from a family's decoder layers and norm, with random
small configs (some that transformers' config validation refuses), counted statically (the
analyser reads transformers' source from the environment the tests run in) and by torch on the
meta device (the test's own file run here); a model on an installed timm against timm's build."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.parity.meta_count import file_class_counts

pytestmark = pytest.mark.parity
pytest.importorskip("transformers")

# (module, config class, decoder layer, norm): each family's own layer and norm classes.
FAMILIES = [
    ("llama", "LlamaConfig", "LlamaDecoderLayer", "LlamaRMSNorm"),
    ("mistral", "MistralConfig", "MistralDecoderLayer", "MistralRMSNorm"),
    ("qwen2", "Qwen2Config", "Qwen2DecoderLayer", "Qwen2RMSNorm"),
    ("qwen3", "Qwen3Config", "Qwen3DecoderLayer", "Qwen3RMSNorm"),
    ("gemma", "GemmaConfig", "GemmaDecoderLayer", "GemmaRMSNorm"),
    ("phi3", "Phi3Config", "Phi3DecoderLayer", "Phi3RMSNorm"),
]

TEMPLATE = '''
import torch.nn as nn
from transformers import PreTrainedModel
from transformers.models.{module}.configuration_{module} import {config}
from transformers.models.{module}.modeling_{module} import {layer}, {norm}

CONFIG = {config}(hidden_size={hidden}, intermediate_size={intermediate}, num_attention_heads={heads},
                  num_key_value_heads={kv_heads}, num_hidden_layers={layers}, vocab_size={vocab}{extra})


class MyModel(PreTrainedModel):
    config_class = {config}

    def __init__(self, config={config_arg}):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([{layer}(config, i) for i in range(config.num_hidden_layers)])
        self.norm = {norm}(config.hidden_size, eps=config.rms_norm_eps)
        self.head = nn.Linear(config.hidden_size, config.vocab_size, bias={head_bias})
        if {tie}:
            self.head.weight = self.embed.weight
        self.post_init()
'''


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), head_dim=st.sampled_from([8, 16]), kv_heads=st.sampled_from([1, 2]),
       groups=st.integers(1, 3), intermediate=st.integers(4, 96), layers=st.integers(1, 3), vocab=st.integers(2, 300),
       tie=st.booleans(), head_bias=st.booleans(), explicit_head_dim=st.booleans(), as_default=st.booleans())
def test_a_model_on_installed_transformers_layers_counts_as_torch_builds_it(
        family, head_dim, kv_heads, groups, intermediate, layers, vocab, tie, head_bias, explicit_head_dim,
        as_default) -> None:
    module, config, layer, norm = family
    heads = kv_heads * groups
    hidden = heads * head_dim if not explicit_head_dim else heads * head_dim + 8
    extra = f", head_dim={head_dim}" if explicit_head_dim or module in ("qwen3", "gemma") else ""
    text = TEMPLATE.format(module=module, config=config, layer=layer, norm=norm, hidden=hidden,
                           intermediate=intermediate, heads=heads, kv_heads=kv_heads, layers=layers, vocab=vocab,
                           extra=extra, tie=tie, head_bias=head_bias,
                           config_arg="CONFIG" if as_default else f"{config}(**CONFIG.to_dict())")
    want, got, messages = file_class_counts(text, "user_model.py", "MyModel")
    # A config transformers refuses (a hidden size that is no multiple of the heads: its `@strict`
    # validators) is refused by the analysis too, with transformers' error.
    assert got == want, (text, messages)
    if want is None:
        assert any("raises StrictDataclassClassValidationError" in m for m in messages), messages


TIMM_USER_FILE = '''
import torch.nn as nn
import timm
from timm.layers import Mlp
from timm.models.vision_transformer import Block


class Backbone(nn.Module):
    def __init__(self, name="resnet18"):
        super().__init__()
        self.body = timm.create_model(name, pretrained=False, num_classes=0)
        self.head = Mlp(512, 64, 3)


class Tower(nn.Module):
    def __init__(self, dim=96, depth=3, heads=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads, mlp_ratio=2.0, qkv_bias=i % 2 == 0) for i in range(depth)])
'''

TIMM_BUILD = '''
import json, sys, torch
sys.path.insert(0, sys.argv[2])
import timm_runner
timm_runner._import_timm(sys.argv[1])
namespace = {}
exec(compile(open(sys.argv[3]).read(), "user_model.py", "exec"), namespace)
with torch.device("meta"):
    print(json.dumps({name: sum(p.numel() for p in namespace[name]().parameters()) for name in ("Backbone", "Tower")}))
'''


def test_a_model_on_installed_timm_counts_as_timm_builds_it(tmp_path) -> None:
    import json
    import pathlib
    import subprocess
    import sys

    from lsp_count.core.analyze import AnalyzeOptions, analyze_path

    sidecar = pathlib.Path(sys.prefix) / "timm-sidecar"
    if not (sidecar / "timm").is_dir():
        pytest.skip(f"timm is not installed in {sidecar} (scripts/test.sh installs it)")
    user = tmp_path / "user_model.py"
    user.write_text(TIMM_USER_FILE)
    # timm is not in the test environment itself (test_timm_parity.py says why): the analysis is
    # pointed at its directory, and torch builds the file in a child process that imports it.
    report = analyze_path(str(user), AnalyzeOptions(site_packages=(str(sidecar),)))
    static = {m.name: m.tree.total for m in report.models}
    built = subprocess.run([sys.executable, "-c", TIMM_BUILD, str(sidecar), str(pathlib.Path(__file__).parent), str(user)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    want = json.loads(built.stdout.strip().splitlines()[-1])
    assert static == want, [p.message for p in report.problems]
    assert want["Backbone"] == 11_176_512 + 512 * 64 + 64 + 64 * 3 + 3  # resnet18 without its classifier


STRICT_PRELUDE = '''
from dataclasses import dataclass
import torch.nn as nn
from huggingface_hub.dataclasses import strict


class Base:
    def validate_width(self):
        if self.width % self.heads:
            raise ValueError(f"width {{self.width}} is not a multiple of heads {{self.heads}}")


@strict
@dataclass
class Cfg(Base):
    width: int = 32
    heads: int = 4
    scale: float | None = None
    label: str = "cfg"
{validators}

{subclass}

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = {config}
        self.fc = nn.Linear(cfg.width, cfg.heads)
'''


@pytest.mark.parametrize("validators, subclass, config, error", [
    ("", "", "Cfg()", None),
    ("", "", "Cfg(width=30)", "StrictDataclassClassValidationError"),
    ("", "", "Cfg(width=30, heads=3)", None),
    # in name order: `validate_a` runs first; a TypeError is wrapped too
    ("    def validate_a(self):\n        if self.heads > 8:\n            raise TypeError('too many heads')\n",
     "", "Cfg(width=32, heads=16)", "StrictDataclassClassValidationError"),
    # an error other than ValueError / TypeError is not wrapped
    ("    def validate_a(self):\n        if self.heads > 8:\n            raise KeyError('heads')\n",
     "", "Cfg(width=32, heads=16)", "KeyError"),
    # the decorated class's own validator overrides its base's
    ("    def validate_width(self):\n        pass\n", "", "Cfg(width=30)", None),
    # a property or a static method named validate_ is not called as one
    ("    @property\n    def validate_p(self):\n        raise ValueError('never')\n", "", "Cfg()", None),
    # a subclass made a dataclass has an __init__ of its own: not validated, as in Python
    ("", "@dataclass\nclass Sub(Cfg):\n    extra: int = 1\n", "Sub(width=30)", None),
    # without a dataclass of its own, it runs the wrapped __init__: validated
    ("", "class Sub(Cfg):\n    pass\n", "Sub(width=30)", "StrictDataclassClassValidationError"),
    # each field's type, as its __setattr__ checks it: a bool is no int, an int no float
    ("", "", "Cfg(width=32.0)", "StrictDataclassFieldValidationError"),
    ("", "", "Cfg(heads=True)", "StrictDataclassFieldValidationError"),
    ("", "", "Cfg(scale=1)", "StrictDataclassFieldValidationError"),
    ("", "", "Cfg(scale=0.5, label='wide')", None),
    ("", "", "Cfg(label=3)", "StrictDataclassFieldValidationError"),
])
@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
def test_huggingface_hub_strict_validators_run_as_they_do_in_python(validators, subclass, config, error, future) -> None:
    pytest.importorskip("huggingface_hub")
    text = future + STRICT_PRELUDE.format(validators=validators, subclass=subclass, config=config)
    want, got, messages = file_class_counts(text, "strict_model.py", "Net")
    assert got == want, (text, messages)
    if future and error == "StrictDataclassFieldValidationError":
        # The annotations are texts: huggingface_hub checks no field's type (a float width is then
        # torch's refusal of nn.Linear(32.0, 4); a bool heads, True, builds).
        assert not any(error in m for m in messages), messages
        return
    assert (want is None) == (error is not None)
    if error is not None:
        assert any(error in m for m in messages), messages


AUTO_FROM_CONFIG = '''
import torch.nn as nn
from transformers import AutoModel, AutoModelForCausalLM, BertConfig, BertModel, LlamaConfig

SMALL = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_hidden_layers=2, vocab_size=100)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = {build}
'''


@pytest.mark.parametrize("build", [
    "AutoModel.from_config(LlamaConfig(**SMALL))",
    "AutoModelForCausalLM.from_config(LlamaConfig(**SMALL, tie_word_embeddings=True))",
    "BertModel(BertConfig(**SMALL), add_pooling_layer=False)",
    "AutoModel.from_config(BertConfig(**SMALL))",
])
def test_transformers_models_built_from_configs_in_ones_own_file_count_as_torch_builds_them(build) -> None:
    want, got, messages = file_class_counts(AUTO_FROM_CONFIG.format(build=build), "auto_model.py", "Net")
    assert want is not None and got == want, messages


def test_a_timm_model_with_pretrained_weights_counts_as_the_model_timm_builds(tmp_path) -> None:
    """`timm.create_model(name, pretrained=True)` (accelerate's cv_example) builds the model, then
    loads the checkpoint's weights into it, adapted to it: the sizes are those of `pretrained=False`,
    which the test above compares with timm (the analysis followed timm's download code and stopped
    at its "Hugging Face hub model specified but package not installed"). Never a download."""
    import pathlib
    import sys

    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    sidecar = pathlib.Path(sys.prefix) / "timm-sidecar"
    if not (sidecar / "timm").is_dir():
        pytest.skip(f"timm is not installed in {sidecar} (scripts/test.sh installs it)")
    options = AnalyzeOptions(site_packages=(str(sidecar),))
    source = "import timm\n\nmodel = timm.create_model('resnet18', pretrained={}, num_classes=10)\n"
    counts = [[(m.name, m.tree.total) for m in analyze_text(source.format(flag), str(tmp_path / "train.py"),
                                                            options).models] for flag in (True, False)]
    assert counts[0] == counts[1] == [("model", 11_176_512 + 512 * 10 + 10)]
