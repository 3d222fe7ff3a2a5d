"""Installed model libraries a Python model file imports (AnalyzeOptions.read_packages) are read
from the project's environment, as the project's own files are; where they are found
(pymodel/environments.py); how the CLI, the gate and the editor's settings name them. Parity with
transformers for a model written on top of it: tests/parity/test_pymodel_installed_parity.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lsp_count.core.analyze import DEFAULT_READ_PACKAGES, AnalyzeOptions, analyze_path, analyze_text
from lsp_count.core.budget import BudgetError, load_budget_config
from lsp_count.lsp.settings import parse_client_settings
from lsp_count.pymodel.environments import discover_site_packages, environment_site_packages, project_environments

BLOCKS = """
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, dim=16, hidden=None):
            super().__init__()
            self.up = nn.Linear(dim, hidden or 4 * dim)
            self.down = nn.Linear(hidden or 4 * dim, dim)
            self.norm = nn.LayerNorm(dim)
"""

USER_FILE = """
    import torch.nn as nn
    from fakelib import Block
    import fakelib.blocks as fb


    class Tower(nn.Module):
        def __init__(self, dim=32, depth=3):
            super().__init__()
            self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
            self.last = fb.Block(dim, hidden=8)
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def fake_site(site: Path) -> Path:
    """A site-packages directory holding the installed package ``fakelib``."""
    write(site / "fakelib" / "__init__.py", "from .blocks import Block\n")
    write(site / "fakelib" / "blocks.py", BLOCKS)
    (site / "fakelib-1.0.dist-info").mkdir(parents=True, exist_ok=True)
    return site


def make_venv(prefix: Path, python: str = "python3.11") -> Path:
    write(prefix / "pyvenv.cfg", "home = /usr/bin\n")
    site = prefix / "lib" / python / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    return site


def torch_count(text: str, site: Path) -> int:
    """What torch builds for ``Tower`` with fakelib importable (the test's own files)."""
    import torch

    sys.path.insert(0, str(site))
    try:
        namespace: dict = {}
        exec(compile(textwrap.dedent(text), "user.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
        with torch.device("meta"):
            return sum(p.numel() for p in namespace["Tower"]().parameters())
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m == "fakelib" or m.startswith("fakelib.")]:
            del sys.modules[name]


def counts(report) -> dict[str, int]:
    return {m.name: m.tree.total for m in report.models}


# --- reading an installed package ------------------------------------------------------------


def test_an_installed_package_named_in_read_packages_is_read_and_counted_as_torch_counts(tmp_path) -> None:
    site = fake_site(tmp_path / "site")
    user = write(tmp_path / "project" / "user.py", USER_FILE)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert [p.message for p in report.problems] == []
    assert counts(report) == {"Tower": torch_count(USER_FILE, site)}
    assert counts(report)["Tower"] == 3 * (32 * 128 + 128 + 128 * 32 + 32 + 64) + (32 * 8 + 8 + 8 * 32 + 32 + 64)


PROBING_BLOCKS = """
    import dataclasses
    import importlib.util
    import torch.nn as nn

    # An installed library's import-time probe for an optional package, and a dataclass config whose
    # fields' metadata it reads (peft's is_bnb_available(), LoraConfig's field metadata).
    HAS_FAST_KERNELS = importlib.util.find_spec("lsp_count_test_not_installed") is not None


    @dataclasses.dataclass
    class Settings:
        dim: int = dataclasses.field(default=16, metadata={"doubles": True})
        depth: int = 2


    class Block(nn.Module):
        def __init__(self, settings=None):
            super().__init__()
            settings = settings or Settings()
            wide = sum(2 for f in dataclasses.fields(settings) if f.metadata.get("doubles"))
            self.fc = nn.Linear(settings.dim, settings.dim * wide if dataclasses.is_dataclass(settings) else 1)
            self.fast = nn.Linear(4, 4) if HAS_FAST_KERNELS else nn.Identity()
"""


@pytest.mark.parametrize("optional_installed", [False, True])
def test_an_installed_packages_probes_for_optional_packages_find_what_its_environment_has(
        tmp_path, optional_installed: bool) -> None:
    # The library's probe finds the optional package where its site-packages has it, else not (a
    # machine without it); a dataclass's field metadata and dataclasses.is_dataclass as Python has them.
    site = tmp_path / "site"
    write(site / "fakelib" / "__init__.py", "from .blocks import Block\n")
    write(site / "fakelib" / "blocks.py", PROBING_BLOCKS)
    if optional_installed:
        write(site / "lsp_count_test_not_installed" / "__init__.py", "")
    user_file = USER_FILE.replace("Block(dim) for _ in range(depth)", "Block() for _ in range(depth)").replace(
        "fb.Block(dim, hidden=8)", "fb.Block()")
    user = write(tmp_path / "project" / "user.py", user_file)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert [p.message for p in report.problems if p.severity != "info"] == []
    fast = 4 * 4 + 4 if optional_installed else 0
    assert counts(report) == {"Tower": torch_count(user_file, site)} == {"Tower": 4 * (16 * 32 + 32 + fast)}


def test_a_package_not_named_stays_outside_even_where_installed(tmp_path) -> None:
    site = fake_site(tmp_path / "site")
    user = write(tmp_path / "project" / "user.py", USER_FILE)
    for read in ((), DEFAULT_READ_PACKAGES):
        report = analyze_path(str(user), AnalyzeOptions(read_packages=read, site_packages=(str(site),)))
        assert report.models == ()
        (problem,) = report.problems
        assert problem.code == "LC101" and "`fakelib.blocks.Block` is outside this file" in problem.message, problem.message


def test_the_projects_own_module_of_that_name_comes_first(tmp_path) -> None:
    # As on Python's path: the script's directory before site-packages.
    site = fake_site(tmp_path / "site")
    user = write(tmp_path / "project" / "user.py", USER_FILE)
    write(tmp_path / "project" / "fakelib" / "__init__.py", "from .blocks import Block\n")
    write(tmp_path / "project" / "fakelib" / "blocks.py", BLOCKS.replace("nn.LayerNorm(dim)", "nn.Identity()"))
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert counts(report) == {"Tower": 3 * (32 * 128 + 128 + 128 * 32 + 32) + (32 * 8 + 8 + 8 * 32 + 32)}


def test_the_projects_virtual_environment_is_found_without_options(tmp_path) -> None:
    project = tmp_path / "project"
    write(project / "pyproject.toml", "[project]\nname = 'x'\n")
    site = fake_site(make_venv(project / ".venv"))
    user = write(project / "models" / "user.py", USER_FILE)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",)))
    assert counts(report) == {"Tower": torch_count(USER_FILE, site)}


def test_a_package_read_but_not_installed_anywhere_is_said_as_before(tmp_path) -> None:
    user = write(tmp_path / "user.py", USER_FILE)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(tmp_path / "none"),)))
    assert report.models == ()
    assert "`fakelib.blocks.Block` is outside this file" in report.problems[0].message


# --- transformers, read from the environment the tests run in ---------------------------------


def test_a_model_built_on_installed_transformers_is_counted_and_its_loaders_stay_offline() -> None:
    pytest.importorskip("transformers")
    text = textwrap.dedent("""
        import torch.nn as nn
        from transformers import AutoConfig, AutoModel, AutoTokenizer, LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRMSNorm


        class Small(nn.Module):
            def __init__(self):
                super().__init__()
                config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                                     num_key_value_heads=2, num_hidden_layers=2, vocab_size=100)
                self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
                self.layers = nn.ModuleList([LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers)])
                self.norm = LlamaRMSNorm(config.hidden_size)


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.tokenizer = AutoTokenizer.from_pretrained("openai-community/gpt2")
                self.backbone = AutoModel.from_pretrained("openai-community/gpt2")
                self.score = nn.Linear(768, 1)


        class FromHubConfig(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = AutoModel.from_config(AutoConfig.from_pretrained("openai-community/gpt2"))


        class Pipeline(nn.Module):
            def __init__(self):
                super().__init__()
                self.generate = pipeline("text-generation", model="openai-community/gpt2")
                self.fc = nn.Linear(3, 3)
    """).replace("AutoTokenizer, LlamaConfig", "AutoTokenizer, LlamaConfig, pipeline")
    import torch

    read = analyze_text(text, "model.py")
    outside = analyze_text(text, "model.py", AnalyzeOptions(read_packages=()))
    namespace: dict = {}
    exec(compile(text, "model.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
    with torch.device("meta"):
        assert sum(p.numel() for p in namespace["Small"]().parameters()) == counts(read)["Small"]
    layer = 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64  # q, o; k, v (2 kv heads); the MLP; two norms
    assert counts(read)["Small"] == 100 * 64 + 2 * layer + 64
    assert "Small" not in counts(outside)
    # The loaders answer from the offline catalog, read or not: the same count.
    assert counts(read)["Head"] == counts(outside)["Head"] == 124_439_808 + 769
    # A config loaded from the catalog is made by transformers' own config class, which from_config
    # builds from (GPT2Model: the LM's count, whose head is tied); where transformers is not read,
    # from_config is outside.
    assert counts(read)["FromHubConfig"] == 124_439_808
    (problem,) = [p for p in outside.problems if "FromHubConfig" in p.message]
    assert "`transformers.AutoModel.from_config` is outside this file" in problem.message
    # `pipeline` loads from the hub: not read, said as where transformers is not read.
    assert [p.message for p in read.problems if "Pipeline" in p.message] == \
        [p.message for p in outside.problems if "Pipeline" in p.message] == \
        ["`Pipeline` cannot be counted exactly: `generate`: `transformers.pipeline` is outside this file and torch.nn; "
         "the analyser does not follow it"]


# --- where the environments are found --------------------------------------------------------


def test_environments_are_found_in_order_without_running_anything(tmp_path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    venv_site = make_venv(project / ".venv")
    other = make_venv(project / "sub" / "venv", "python3.12")
    (project / "sub" / "env").mkdir()  # no pyvenv.cfg: not an environment
    activated = make_venv(tmp_path / "activated")
    conda = tmp_path / "conda"
    (conda / "Lib" / "site-packages").mkdir(parents=True)  # a Windows layout
    above = make_venv(tmp_path / ".venv")  # above the repository's root: not the project's
    found = discover_site_packages(str(project / "sub"), {"VIRTUAL_ENV": str(tmp_path / "activated"),
                                                          "CONDA_PREFIX": str(conda)})
    mine = [d for d in found if str(tmp_path) in d]
    assert mine == [str(activated), str(other), str(venv_site), str(conda / "Lib" / "site-packages")]
    assert str(above) not in found
    # lsp-count's own environment comes last.
    import sysconfig

    assert found[-1] in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])


def test_an_environment_with_several_pythons_lists_the_newest_first(tmp_path) -> None:
    old = make_venv(tmp_path / "v", "python3.9")
    new = make_venv(tmp_path / "v", "python3.12")
    assert environment_site_packages(str(tmp_path / "v")) == (str(new), str(old))
    assert project_environments(str(tmp_path / "nothing")) == ()


# --- the CLI, the gate and the editor's settings --------------------------------------------


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LSP_COUNT_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, "-m", "lsp_count", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_cli_reads_the_packages_and_directories_it_is_given(tmp_path) -> None:
    site = fake_site(tmp_path / "site")
    write(tmp_path / "user.py", USER_FILE)
    out = cli("user.py", "--json", "--read-packages", "fakelib,timm", "--site-packages", str(site), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    (model,) = json.loads(out.stdout)["files"][0]["models"]
    assert model["params"]["total"] == torch_count(USER_FILE, site)
    none = cli("user.py", "--read-packages", "none", "--site-packages", str(site), cwd=tmp_path)
    assert none.returncode == 2 and "is outside this file" in none.stdout
    bad = cli("user.py", "--read-packages", "fakelib.blocks", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith("--read-packages: `fakelib.blocks` is not a package name (a top-level package: "
                                       "transformers, timm)")
    missing = cli("user.py", "--site-packages", "nowhere", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.strip().endswith("--site-packages: no such directory: nowhere")
    assert "Traceback" not in bad.stderr + missing.stderr


def test_the_gate_reads_them_from_the_budget_file_relative_to_it(tmp_path) -> None:
    fake_site(tmp_path / "deps" / "site")
    write(tmp_path / "pyproject.toml", """
        [tool.lsp-count]
        max-params = "10K"
        read-packages = ["fakelib"]
        site-packages = ["deps/site"]
    """)
    write(tmp_path / "models" / "user.py", USER_FILE)
    out = cli("check", "models/user.py", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr  # counted (27,... parameters), over the 10K budget
    assert "over" in out.stdout and "Tower" in out.stdout
    config = load_budget_config(str(tmp_path / "pyproject.toml"))
    assert config.read_packages == ("fakelib",)
    assert config.site_package_dirs() == (str(tmp_path / "deps/site"),)


@pytest.mark.parametrize("table, message", [
    ('read-packages = ["transformers.models"]', 'read-packages: "transformers.models" is not a package name'),
    ("read-packages = 3", "read-packages: expected a list of package names"),
    ("site-packages = [1]", "site-packages: expected a list of directories"),
    ('max-params = "7B"\n[[tool.lsp-count.budget]]\nread-packages = ["timm"]',
     "budget.[0].read-packages: says how model files are read: set it in the top-level table, not in a budget"),
    ('read-package = ["timm"]', "read-package: unknown key; did you mean read-packages or site-packages?"),
    # the command line a script is given (tests/unit/test_script_args.py)
    ('script-args = "--width 3"', 'script-args: expected a table of file globs and command lines, such as '
                                  '{"train.py" = "--n_layer 12"}'),
    ('[tool.lsp-count.script-args]\n"train.py" = 3', '"train.py": expected a table of file globs'),
    ('[tool.lsp-count.script-args]\n"train.py" = "--name \'unclosed"',
     'the command line of "train.py" does not split as a shell splits it: No closing quotation'),
])
def test_a_wrong_budget_file_key_is_named_with_its_line(tmp_path, table: str, message: str) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool.lsp-count]\n" + table + "\n")
    with pytest.raises(BudgetError) as raised:
        load_budget_config(str(path))
    (problem,) = raised.value.problems
    assert message in problem.message and problem.message.startswith(f"{path}:"), problem.message


def test_the_editor_settings_name_them_and_a_wrong_value_is_dropped_with_a_warning() -> None:
    settings, warnings = parse_client_settings({"lsp-count": {"readPackages": ["timm"], "sitePackages": ["/v/site"]}})
    assert (settings.read_packages, settings.site_packages, warnings) == (("timm",), ("/v/site",), ())
    settings, warnings = parse_client_settings({"readPackages": [], "sitePackages": None})
    assert (settings.read_packages, settings.site_packages, warnings) == ((), None, ())
    settings, warnings = parse_client_settings({"readPackages": "timm", "sitePackages": [3]})
    assert (settings.read_packages, settings.site_packages) == (None, None)
    assert warnings == ("lsp-count.readPackages: expected a list of package names, got 'timm'",
                        "lsp-count.sitePackages: expected a list of directories, got [3]")


def test_a_class_on_an_installed_package_not_read_says_how_to_read_it(tmp_path) -> None:
    site = tmp_path / "site"
    write(site / "lightlib" / "__init__.py", "import torch.nn as nn\n\n\nclass LightModule(nn.Module):\n    pass\n")
    user = write(tmp_path / "user.py", """
        import torch.nn as nn
        from lightlib import LightModule


        class Lit(LightModule):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)


        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.lit = Lit()
    """)

    def messages(read: tuple[str, ...], sites: tuple[str, ...]) -> list[str]:
        report = analyze_path(str(user), AnalyzeOptions(read_packages=read, site_packages=sites))
        return [p.message for p in report.problems]

    installed = messages(("transformers",), (str(site),))
    assert installed[0] == ("`Lit` cannot be counted exactly: whether it is a module is not known: it extends "
                            "`lightlib.LightModule`, which is outside the file and torch (`lightlib` is installed: "
                            "`read-packages` can name it, to read its source)")
    assert "(`lightlib` is installed: `read-packages` can name it, to read its source)" in installed[1]
    assert "`lightlib` is in `read-packages`, but not in the site-packages directories found (1; `site-packages` " \
           "names others)" in messages(("lightlib",), (str(tmp_path / "elsewhere"),))[0]
    # Installed nowhere the analyser looks (or reading turned off): the general clause.
    assert messages((), (str(site),))[0].endswith("(the analyser reads the project's files, and the installed "
                                                  "packages `read-packages` names where it finds them)")
    # Named and found: read, and counted.
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("lightlib",), site_packages=(str(site),)))
    assert counts(report) == {"Lit": 20, "Holder": 20}


# --- an installed package's version, as importlib.metadata reads it ----------------------------

VERSION_PROBING_BLOCKS = """
    import importlib.metadata
    import importlib.util
    import torch.nn as nn
    from packaging import version

    # transformers 5.25's is_kernels_available(): found by find_spec, then its version checked; a
    # kernel-backed layer only from a version on.
    def _fast_kernels() -> bool:
        if importlib.util.find_spec("lsp_count_test_kernels") is None:
            return False
        return version.parse(importlib.metadata.version("lsp-count-test-kernels")) >= version.parse("0.10")


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)
            self.fast = nn.Linear(4, 4) if _fast_kernels() else nn.Identity()
"""


def write_distribution(site: Path, import_name: str, distribution: str, installed: str, metadata: str | None) -> None:
    """An installed package ``import_name`` and its ``*.dist-info`` (named with ``installed``, its
    METADATA's ``Version:`` ``metadata`` where given), as pip leaves them."""
    write(site / import_name / "__init__.py", "")
    info = site / f"{distribution.replace('-', '_')}-{installed}.dist-info"
    info.mkdir(parents=True)
    if metadata is not None:
        (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {distribution}\nVersion: {metadata}\n\nText\n")


@pytest.mark.parametrize("installed", [None, "0.9.1", "0.19.1"])
def test_an_installed_packages_version_probe_reads_the_version_its_environment_has(tmp_path, installed) -> None:
    site = tmp_path / "site"
    write(site / "fakelib" / "__init__.py", "from .blocks import Block\n")
    write(site / "fakelib" / "blocks.py", VERSION_PROBING_BLOCKS)
    if installed is not None:
        write_distribution(site, "lsp_count_test_kernels", "lsp-count-test-kernels", installed, installed)
    user_file = USER_FILE.replace("Block(dim) for _ in range(depth)", "Block() for _ in range(depth)").replace(
        "fb.Block(dim, hidden=8)", "fb.Block()")
    user = write(tmp_path / "project" / "user.py", user_file)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert [p.message for p in report.problems if p.severity != "info"] == []
    fast = 4 * 4 + 4 if installed == "0.19.1" else 0
    assert counts(report) == {"Tower": torch_count(user_file, site)} == {"Tower": 4 * (16 * 16 + 16 + fast)}


def test_the_version_is_the_metadatas_else_the_directory_names(tmp_path) -> None:
    from lsp_count.pymodel.environments import installed_distribution_version

    first, second = tmp_path / "a", tmp_path / "b"
    write_distribution(first, "typing_extensions", "Typing-Extensions", "4.15.0", "4.15.0")
    write_distribution(second, "kernels", "kernels", "0.19.1", None)  # no METADATA: the name's
    write_distribution(second, "typing_extensions", "typing_extensions", "4.1.0", "4.1.0")
    write(second / "oldegg-1.2-py3.11.egg-info" / "PKG-INFO", "Metadata-Version: 1.0\nName: oldegg\nVersion: 1.2.post1\n")
    sites = (str(first), str(second), str(tmp_path / "missing"))
    assert installed_distribution_version("typing.extensions", sites) == "4.15.0"  # the first directory's
    assert installed_distribution_version("Kernels", sites) == "0.19.1"
    assert installed_distribution_version("oldegg", sites) == "1.2.post1"
    assert installed_distribution_version("lsp-count-not-installed", sites) is None


def test_the_files_own_version_check_of_a_package_it_reads_is_answered_and_noted(tmp_path) -> None:
    site = fake_site(tmp_path / "site")
    (site / "fakelib-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.4\nName: fakelib\nVersion: 1.0\n")
    user = write(tmp_path / "project" / "user.py", """
        import importlib.metadata
        import torch.nn as nn
        from fakelib import Block

        WIDE = importlib.metadata.version("fakelib") >= "1.0"


        class Tower(nn.Module):
            def __init__(self, dim=32):
                super().__init__()
                self.last = Block(dim, hidden=8 if WIDE else 4)
    """)
    report = analyze_path(str(user), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert counts(report) == {"Tower": 32 * 8 + 8 + 8 * 32 + 32 + 64}
    assert any(p.code == "LC106" and "counted with the installed version in the environment the analysis reads: "
               "`fakelib 1.0` (line 6)" in p.message for p in report.problems), [p.message for p in report.problems]
    # A package the analysis does not read: its version is not known, and the count says why.
    other = write(tmp_path / "project" / "other.py", user.read_text().replace('version("fakelib")', 'version("numpy")'))
    report = analyze_path(str(other), AnalyzeOptions(read_packages=("fakelib",), site_packages=(str(site),)))
    assert report.models == () and "importlib.metadata.version" in report.problems[0].message, report.problems


def test_kernels_decorators_give_a_class_no_init_and_no_parameters(tmp_path) -> None:
    # transformers 5.25 with `kernels` installed: `@use_kernel_forward_from_hub("SiLU")` on a class
    # without an __init__ of its own (kernels only marks the class for a Hub kernel's forward).
    user = write(tmp_path / "user.py", """
        import torch.nn as nn
        from kernels import use_kernel_forward_from_hub, use_kernelized_func


        @use_kernel_forward_from_hub("SiLU")
        class SiLUActivation(nn.SiLU):
            pass


        @use_kernelized_func(print)
        class Mlp(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
                self.act = SiLUActivation()
    """)
    report = analyze_path(str(user), AnalyzeOptions())
    assert [p.message for p in report.problems if p.severity != "info"] == []
    assert counts(report) == {"SiLUActivation": 0, "Mlp": 72}
