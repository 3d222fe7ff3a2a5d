"""Parity for the Hydra config a script's ``@hydra.main`` gets (pymodel/hydra_config.py): random
config directories (groups with options, nested defaults lists with relative groups, ``_self_``
anywhere or left out, ``override`` (an experiment's too, listed after the groups it overrides),
``optional`` options that are missing, ``null`` choices,
``group@package``, ``# @package`` headers, configs named by path, lists of options, keys several
configs set, interpolations absolute, relative and inside strings) composed by the installed Hydra
(``compose``, resolved) and by the analyser, which must give the same data."""

from __future__ import annotations

import os
import pathlib
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.pymodel import hydra_config

pytestmark = pytest.mark.parity

hydra = pytest.importorskip("hydra")
from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

KEYS = ["dim", "depth", "name", "width"]


@st.composite
def contents(draw, refs: list[str]) -> dict:
    """A config's own content: a few keys (some shared with other configs, so the merge order
    shows), a nested mapping, and interpolations of keys every config has (``refs``)."""
    out: dict = {}
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True)):
        out[key] = draw(st.one_of(st.integers(0, 99), st.sampled_from(["a", "b", "1e-3", "True", "null"])))
    if draw(st.booleans()):
        out["sub"] = {k: draw(st.integers(0, 9)) for k in draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True))}
    if refs and draw(st.booleans()):
        out["ref"] = "${" + draw(st.sampled_from(refs)) + "}"
    if refs and draw(st.booleans()):
        out["text"] = "run_${" + draw(st.sampled_from(refs)) + "}_x"
    if "sub" in out and out["sub"] and draw(st.booleans()):
        out["sub"]["rel"] = "${." + next(iter(out["sub"])) + "}"
    return out


def _dump(data: dict) -> str:
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {v}" for k, v in value.items()) if value else lines.append("  {}")
            if not value:
                lines[-2:] = [f"{key}: {{}}"]
        elif isinstance(value, str) and "${" in value:
            lines.append(f'{key}: "{value}"')
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"


@st.composite
def config_dirs(draw) -> dict[str, str]:
    """{path in the config dir: file text}; the primary config is config.yaml."""
    files: dict[str, str] = {}
    top = {"top": 1, "dim": 8}
    refs = ["top", "dim"]
    groups = draw(st.lists(st.sampled_from(["model", "data", "opt"]), min_size=1, max_size=3, unique=True))
    defaults: list[str] = []
    overrides: list[str] = []
    for group in groups:
        options = ["a", "b"]
        for option in options:
            body: dict = draw(contents(refs))
            header = draw(st.sampled_from(["", "", "# @package _global_\n", f"# @package {group}_pkg\n"]))
            nested: list[str] = []
            if group == "model" and draw(st.booleans()):
                nested.append(f"  - enc: {draw(st.sampled_from(['x', 'y']))}")
                for sub in ("x", "y"):
                    files[f"model/enc/{sub}.yaml"] = _dump({"size": draw(st.integers(1, 9)), "dim": draw(st.integers(1, 9))})
            if nested:
                where = draw(st.sampled_from(["first", "last", "none"]))
                lines = ["defaults:"]
                if where == "first":
                    lines.append("  - _self_")
                lines.extend(nested)
                if where == "last":
                    lines.append("  - _self_")
                files[f"{group}/{option}.yaml"] = header + "\n".join(lines) + "\n" + _dump(body)
            else:
                files[f"{group}/{option}.yaml"] = header + _dump(body)
        choice = draw(st.sampled_from(["a", "b", "b.yaml", "null", "missing", "list"]))
        optional = ""
        if choice == "missing":  # ("b.yaml": lightning-hydra-template's older configs name options so)
            optional, choice = "optional ", "zz"
        elif choice == "list":
            choice = "[a, b]"
        package = draw(st.sampled_from(["", "", f"@{group}_alt"]))
        defaults.append(f"  - {optional}{group}{package}: {choice}")
        if group == "model" and "model/enc/x.yaml" in files and draw(st.booleans()) and choice in ("a", "b") and \
                "enc:" in files[f"model/{choice}.yaml"] and not package:
            overrides.append(f"  - override model/enc: {draw(st.sampled_from(['x', 'y']))}")
    if draw(st.booleans()):
        files["extra.yaml"] = _dump(draw(contents(refs)))
        defaults.append("  - extra")
    if draw(st.booleans()):
        # lightning-hydra-template's experiments: a global config, listed last, that overrides groups listed
        # before it (Hydra expands a defaults list from its end)
        lines = ["defaults:"] + [f"  - override /{group}: {draw(st.sampled_from(['a', 'b', 'a.yaml']))}"
                                 for group in groups if draw(st.booleans())]
        files["experiment/e1.yaml"] = "# @package _global_\n" + ("\n".join(lines) + "\n" if len(lines) > 1 else "") + \
            _dump(draw(contents(refs)))
        defaults.append("  - experiment: e1")
    self_at = draw(st.sampled_from(["first", "last", "none", "middle"]))
    if self_at == "first":
        defaults.insert(0, "  - _self_")
    elif self_at == "last":
        defaults.append("  - _self_")
    elif self_at == "middle":
        defaults.insert(len(defaults) // 2, "  - _self_")
    files["config.yaml"] = "defaults:\n" + "\n".join(defaults + overrides) + "\n" + _dump(top)
    return files


def _hydra_compose(directory: str) -> object:
    try:
        with initialize_config_dir(version_base="1.3", config_dir=directory):
            cfg = compose(config_name="config")
            return OmegaConf.to_container(cfg, resolve=True)
    except Exception as exc:  # noqa: BLE001 - Hydra refusing the directory is a result too
        return ("error", type(exc).__name__ + ": " + str(exc)[:200])


def _ours(directory: str) -> object:
    try:
        return hydra_config.compose(directory, "config").values
    except hydra_config.ConfigError:
        return ("error",)


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(config_dirs())
def test_composed_config_equals_hydras(files: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            target = pathlib.Path(tmp, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        theirs = _hydra_compose(tmp)
        ours = _ours(tmp)
    listing = "\n".join(f"--- {p}\n{t}" for p, t in sorted(files.items()))
    if isinstance(theirs, tuple):
        assert ours == ("error",), f"Hydra fails ({theirs[1]}), the analyser composes {ours}\n{listing}"
    else:
        assert ours == theirs, listing


def test_lightning_hydra_template_config_equals_hydras() -> None:
    """The fixture's configs (lightning-hydra-template's layout), where Hydra resolves what the
    analyser does not know (the environment, Hydra's own run-time values) and the rest agrees."""
    directory = str(pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "hydra_project" / "configs")
    os.environ.setdefault("PROJECT_ROOT", "/project")
    with initialize_config_dir(version_base="1.3", config_dir=directory):
        cfg = compose(config_name="train.yaml")
        theirs = OmegaConf.to_container(cfg, resolve=False)
    ours = hydra_config.compose(directory, "train.yaml").values
    assert ours["model"] == {**theirs["model"], "net": {**theirs["model"]["net"], "input_size": 784, "output_size": 10}}
    assert ours["data"]["batch_size"] == theirs["data"]["batch_size"] == 128
    assert ours["task_name"] == "train" and ours["tags"] == ["dev"]
    assert type(ours["paths"]["root_dir"]).__name__ == "Unknown"
    assert "oc.env" in ours["paths"]["root_dir"].why
    assert set(ours) == set(theirs)


@st.composite
def overrides(draw) -> list[str]:
    """A command line's overrides (Hydra's ``compose(overrides=...)``): groups chosen or appended,
    values set, added, forced or deleted; some Hydra refuses (a key not there, one there already)."""
    pool = ["model=a", "model=b", "data=a", "opt=b", "+data=b", "top=5", "dim=abc", "+newkey=3", "++dim=4",
            "++fresh.sub=1", "~top", "model.dim=7", "+model.extra=[1,2]", "top={a: 1}", "nokey=1", "+top=2",
            "model/enc=y", "data=null"]
    return draw(st.lists(st.sampled_from(pool), max_size=4, unique=True))


def _hydra_compose_with(directory: str, given: list[str]) -> object:
    try:
        with initialize_config_dir(version_base="1.3", config_dir=directory):
            cfg = compose(config_name="config", overrides=given)
    except Exception as exc:  # noqa: BLE001 - Hydra refusing the overrides is a result too
        return ("error", type(exc).__name__ + ": " + str(exc)[:200])
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except Exception as exc:  # noqa: BLE001 - `~top` under a `${top}`: OmegaConf raises where it is read
        return ("unresolved", type(exc).__name__)


def _unknowns(value: object) -> list[str]:
    if isinstance(value, dict):
        return [why for v in value.values() for why in _unknowns(v)]
    if isinstance(value, list):
        return [why for v in value for why in _unknowns(v)]
    return [value.why] if type(value).__name__ == "Unknown" else []


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(config_dirs(), overrides())
def test_composed_config_with_overrides_equals_hydras(files: dict[str, str], given: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            target = pathlib.Path(tmp, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        theirs = _hydra_compose_with(tmp, given)
        try:
            ours: object = hydra_config.compose(tmp, "config", overrides=given).values
        except hydra_config.ConfigError:
            ours = ("error",)
    listing = "\n".join(f"--- {p}\n{t}" for p, t in sorted(files.items()))
    if isinstance(theirs, tuple) and theirs[0] == "unresolved":
        # an interpolation of a key an override deleted: OmegaConf raises where the program reads it; the
        # analyser's value there is not known, for that reason
        assert theirs[1] == "InterpolationKeyError" and any(
            "InterpolationKeyError" in why for why in _unknowns(ours)), f"{given}\n{listing}"
    elif isinstance(theirs, tuple):
        assert ours == ("error",), f"Hydra fails ({theirs[1]}), the analyser composes {ours}\n{given}\n{listing}"
    else:
        assert ours == theirs, f"{given}\n{listing}"
