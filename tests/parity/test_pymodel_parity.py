"""Parity: the static count of each nn.Module class in the corpus equals torch's count of
the same class built on the meta device (the fixture is imported here, in the test
process; the analyser itself never imports or runs it)."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import pathlib
import sys

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_path, analyze_text
from lsp_count.pymodel.analyzer import CONFIG_CLASS_NAME

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels"
FILES = sorted(p.name for p in CORPUS.glob("*.py") if not p.name.startswith("bad_"))
# Classes the analyser must refuse with a reason (their size depends on constructor arguments).
UNRESOLVED = {"nanogpt.py": {"LayerNorm"}, "subclassing.py": {"ScaledNorm"},
              "timm_style.py": {"BatchNormAct2d", "GroupNormAct"}, "factories.py": {"VGG"},
              "torchvision_style.py": {"IntermediateLayerGetter"}, "idioms.py": {"SameConv"}}
# Files with model functions, and how many each must count at least (the test cannot pass by counting none).
MODEL_FUNCTIONS = {"factories.py": 6, "registry_style.py": 2}


def _import(path: pathlib.Path):
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"pymodel_fixture_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


def _config_classes(module) -> list[type]:
    plain = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__
             and not issubclass(c, torch.nn.Module)]
    return [c for c in plain if CONFIG_CLASS_NAME.search(c.__name__)] or [
        c for c in plain if dataclasses.is_dataclass(c)]


def _build(cls, module):
    """The class with its defaults; a config argument gets its config class's defaults (what the analyser says it did)."""
    kwargs = {}
    for name, p in list(inspect.signature(cls.__init__).parameters.items())[1:]:
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            config_cls = p.annotation if p.annotation is not inspect.Parameter.empty else _config_classes(module)[0]
            kwargs[name] = config_cls()
    try:
        with torch.device("meta"):
            return cls(**kwargs)
    except RuntimeError as exc:  # a constructor reads a tensor's value (.item()): the corpus's models are small
        if "meta" not in str(exc):
            raise
        return cls(**kwargs)


def _module_variables(module, path) -> dict[str, tuple[torch.nn.Module, int]]:
    """The file's module-level names assigned a module with parameters, and the 0-based line of
    the last assignment: what the analysis reports by the name."""
    lines: dict[str, int] = {}
    for stmt in ast.parse(path.read_text()).body:
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
                stmt, ast.AnnAssign) and stmt.value is not None else []:
            if isinstance(target, ast.Name):
                lines[target.id] = target.lineno - 1
    return {n: (v, lines[n]) for n, v in vars(module).items() if n in lines and isinstance(v, torch.nn.Module)
            and not isinstance(v, type) and sum(p.numel() for p in v.parameters())}


def _module_classes(module) -> set[str]:
    return {n for n, c in vars(module).items() if isinstance(c, type) and issubclass(c, torch.nn.Module)
            and c.__module__ == module.__name__}


@pytest.mark.parametrize("name", FILES)
def test_static_count_equals_torch_meta_count(name: str) -> None:
    path = CORPUS / name
    report = analyze_path(str(path), AnalyzeOptions())
    module = _import(path)
    refused = UNRESOLVED.get(name, set())
    variables = _module_variables(module, path)
    assert {m.name for m in report.models} == (_module_classes(module) - refused) | set(variables)
    assert {p.message.split("`")[1] for p in report.problems if p.code == "LC101"} == refused
    # Each class statement's line (its `class` line, below any decorators; a decorator may have made
    # the name another class, defined elsewhere); under a module-level `if`, the first branch's.
    class_lines: dict[str, int] = {}
    for n in _module_statements(ast.parse(path.read_text()).body):
        if isinstance(n, ast.ClassDef):
            class_lines.setdefault(n.name, n.lineno - 1)
    for model in report.models:
        if model.name in variables:  # a module the file's own statements built (`SHARED = nn.Linear(8, 8)`)
            built, line = variables[model.name]
            params = list(built.parameters())
            assert (model.tree.total, model.tree.trainable) == (
                sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)), model.name
            assert model.span is not None and model.span.start.line == line
            continue
        # Each class in a fresh import of its file, as the analysis counts it: a constructor that
        # changes a class attribute or a global (a layer counter) does not change the next class.
        fresh = _import(path)
        built = _build(getattr(fresh, model.name), fresh)
        params = list(built.parameters())  # torch yields a tied tensor once
        total = sum(p.numel() for p in params)
        trainable = sum(p.numel() for p in params if p.requires_grad)
        assert (model.tree.total, model.tree.trainable) == (total, trainable), model.name
        assert model.span is not None and model.span.start.line == class_lines[model.name]


def _module_statements(body: list[ast.stmt]):
    """The module's statements, those under its own if/try/with blocks included."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.Try | ast.With):
            for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", []),
                          *[h.body for h in getattr(stmt, "handlers", [])]):
                yield from _module_statements(block)


def test_corpus_covers_the_styles() -> None:
    assert {"nanogpt.py", "resnet.py", "lora.py", "mlp.py", "recurrent.py", "project_import.py",
            "subclassing.py"} <= set(FILES)


PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pypackage"


def test_a_package_in_the_transformers_layout_counts_as_torch_does_and_reads_only_what_it_uses() -> None:
    """modeling_tiny.py imports its config, layers and an activation table relatively, as
    transformers' modeling files do; it also imports things a count never needs (a download
    helper, a type-checking-only import of a file that does not exist)."""
    from lsp_count.pymodel.reuse import PythonMemo

    path = PACKAGE / "tinylm" / "modeling_tiny.py"
    memo = PythonMemo()  # its files: the project files the analysis read
    report = analyze_text(path.read_text(), str(path), AnalyzeOptions(), memo=memo)
    sys.path.insert(0, str(PACKAGE))
    try:
        import tinylm
    finally:
        sys.path.remove(str(PACKAGE))
    assert [m.name for m in report.models] == ["TinyModel", "TinyForCausalLM"]
    for model in report.models:
        with torch.device("meta"):
            built = getattr(tinylm, model.name)(tinylm.TinyConfig())
        assert model.tree.total == sum(p.numel() for p in built.parameters()), model.name
    read = {pathlib.Path(f).relative_to(path.parent).as_posix() for f in memo.files}
    assert read == {"__init__.py", "configuration_tiny.py", "layers.py", "activations.py", "utils/__init__.py",
                    "utils/logging.py"}  # not utils/hub.py: download_everything is imported, never used


def _needs_arguments(fn: ast.FunctionDef) -> bool:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return len(positional) > len(fn.args.defaults) or any(d is None for d in fn.args.kw_defaults)


def _functions_without_arguments(name: str) -> tuple[str, ...]:
    return tuple(n.name for n in ast.parse((CORPUS / name).read_text()).body
                 if isinstance(n, ast.FunctionDef) and not _needs_arguments(n))


FUNCTION_FILES = [name for name in FILES if _functions_without_arguments(name)]


def test_the_files_with_model_functions_are_found() -> None:
    assert set(MODEL_FUNCTIONS) <= set(FUNCTION_FILES)


@pytest.mark.parametrize("name", FUNCTION_FILES)
def test_model_functions_count_what_torch_builds_by_calling_them(name: str) -> None:
    """Each module-level function that takes no arguments, counted as ``name()`` (`--function`, the
    hover on its `def`), equals torch's count of what calling it returns; one that returns no module
    is not counted."""
    path = CORPUS / name
    functions = _functions_without_arguments(name)
    report = analyze_path(str(path), AnalyzeOptions(functions=functions))
    counted = {m.name[:-2]: m for m in report.models if m.name.endswith("()")}
    module = _import(path)
    for function in functions:
        with torch.device("meta"):
            built = getattr(module, function)()
        if not isinstance(built, torch.nn.Module):
            assert function not in counted
            continue
        assert function in counted, [p.message for p in report.problems]
        params = list(built.parameters())
        assert counted[function].tree.total == sum(p.numel() for p in params), function
        assert counted[function].tree.trainable == sum(p.numel() for p in params if p.requires_grad), function
    assert len(counted) >= MODEL_FUNCTIONS.get(name, 0)


def test_the_language_server_s_warm_up_model_counts_as_torch_builds_it() -> None:
    """The built-in model the server analyses at start-up (lsp/analysis.py) is counted exactly."""
    from lsp_count.lsp import analysis

    sys.modules["lsp_count_warm_up"] = module = type(sys)("lsp_count_warm_up")  # dataclasses look their module up
    try:
        exec(compile(analysis._WARM_UP_SOURCE, analysis.WARM_UP_PATH, "exec"), module.__dict__)  # noqa: S102 - our own source
    finally:
        del sys.modules["lsp_count_warm_up"]
    with torch.device("meta"):
        built = module.WarmUpModel()
    assert analysis.warm_up_python_analysis() == sum(p.numel() for p in built.parameters()) == 7536
