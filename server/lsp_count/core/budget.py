"""Hardware and size budgets: what a team allows a model to be, and the verdicts.

A budget comes from ``[tool.lsp-count]`` in ``pyproject.toml`` or from a
``.lsp-count.toml`` (same keys at the top level), or from editor settings
(``budget_from_mapping``). Keys may be written kebab-case, snake_case or
camelCase. The table's own keys are the default budget; each
``[[tool.lsp-count.budget]]`` entry inherits them, overrides what it sets and
applies to the files its ``files`` globs match, so one repository can hold a
small serving model and a large training config under different rules::

    [tool.lsp-count]
    gpu = "RTX-4090"          # a GPU, or "2xA100-80GB"
    mode = "inference"        # + dtype, context, batch, optimizer, lora-rank, zero, tp, pp, ...
    max-params = "7B"
    ignore = ["legacy/**"]    # globs; "glob:LC201" ignores only that code

    [[tool.lsp-count.budget]]
    name = "training"
    files = ["train/**"]
    gpu = "8xH100"
    mode = "train"

``judge`` compares a counted model with a budget and returns problems whose
span is the key in the model file that drives the overrun, with a message that
says what would fit.
"""

from __future__ import annotations

import difflib
import functools
import math
import os
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Iterable, Mapping

from lsp_count.core.params import ParamNode, exact_count, short_count
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, Span

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - 3.10
    import tomli as tomllib  # type: ignore[no-redef]

_GiB = 1 << 30

# Budget keys, canonical (kebab-case) spelling. Settings keys are handed to
# lsp_count.core.memory.settings_from_mapping unchanged (it accepts the same spellings).
BUDGET_KEYS = ("name", "gpu", "max-params", "max-memory", "files", "ignore", "strict")
SETTINGS_KEYS = (
    "mode", "dtype", "kv-dtype", "context", "batch", "optimizer", "pure-precision", "reference-model",
    "reference-parameters", "lora-rank", "lora-targets", "gradient-checkpointing", "flash-attention", "zero", "tp",
    "pp", "gpus",
)
# Only the top level may hold the list of budgets.
_LIST_KEY = "budget"


@dataclass(frozen=True)
class Budget:
    name: str | None = None
    gpu: str | None = None
    max_params: int | None = None
    max_memory: int | None = None  # bytes
    files: tuple[str, ...] = ()  # globs relative to the budget file's directory; empty = every file
    ignore: tuple[str, ...] = ()  # globs (optionally "glob:LC###") whose files or findings are skipped
    strict: bool = False  # a model that cannot be counted exactly is an error, not a warning
    settings: Mapping[str, object] = field(default_factory=dict)

    @property
    def has_limits(self) -> bool:
        return self.gpu is not None or self.max_params is not None or self.max_memory is not None

    @property
    def label(self) -> str:
        return f'budget "{self.name}"' if self.name else "the budget"


@dataclass(frozen=True)
class BudgetConfig:
    budgets: tuple[Budget, ...] = ()
    source: str | None = None  # the file the budgets came from; globs are relative to its directory
    # Python model files: the installed packages read where a file imports them, and the
    # site-packages directories they are read from (relative to the budget file's directory); None:
    # the defaults (AnalyzeOptions.read_packages, the environments found).
    read_packages: tuple[str, ...] | None = None
    site_packages: tuple[str, ...] | None = None
    # Python scripts: (file glob, the command line they are run with), the first matching glob's
    # (``[tool.lsp-count.script-args]``: ``"train.py" = "--n_layer 12"``).
    script_args: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def site_package_dirs(self) -> tuple[str, ...] | None:
        """``site-packages`` as directories: a relative one under the budget file's directory."""
        if self.site_packages is None:
            return None
        base = os.path.dirname(os.path.abspath(self.source)) if self.source else os.getcwd()
        return tuple(os.path.join(base, os.path.expanduser(d)) for d in self.site_packages)

    def reading_options(self, options: Any, path: str | None = None) -> Any:
        """``options`` (an AnalyzeOptions) with the file's ``read-packages`` / ``site-packages``, where
        it sets them (the gate's and the editor's), and the command line its ``script-args`` give the
        script at ``path``."""
        if self.read_packages is not None:
            options = replace(options, read_packages=self.read_packages)
        sites = self.site_package_dirs()
        if sites is not None:
            options = replace(options, site_packages=sites)
        if path is not None and self.script_args:
            rel = relative_to_config(self, path)
            given = next((args for pattern, args in self.script_args if glob_match(pattern, rel)), None)
            if given is not None:
                options = replace(options, script_args=given)
        return options


class BudgetError(Exception):
    """A budget that cannot be used; each problem names the key (and its line in the budget file)."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(p.message for p in self.problems))


# --- key spellings --------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def canonical_key(key: str) -> str:
    """``maxParams``, ``max_params``, ``MAX-PARAMS`` → ``max-params``."""
    return _CAMEL.sub(r"-\1", key).replace("_", "-").lower()


def _suggest(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(canonical_key(key), list(known), n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


# --- sizes ----------------------------------------------------------------------------

_COUNT_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_BYTE_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}
_NUMBER = r"(\d[\d_,]*(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)"
_SIZE = re.compile(rf"^\s*{_NUMBER}\s*([a-z]*)\s*$", re.IGNORECASE)


def _number(text: str) -> float:
    return float(text.replace("_", "").replace(",", ""))


def parse_count(value: object) -> int:
    """A parameter count: ``7B``, ``500M``, ``7e9``, ``7_000_000_000``, 7000000000.

    Raises ValueError with a message fit to show after the key's name.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a parameter count such as \"7B\" or 7e9, got {str(value).lower()}")
    if isinstance(value, (int, float)):
        number, scale = float(value), 1
    elif isinstance(value, str):
        m = _SIZE.match(value)
        if not m or m.group(2).lower() not in _COUNT_SUFFIX:
            raise ValueError(f"expected a parameter count such as \"7B\", \"500M\" or 7e9, got \"{value}\"")
        number, scale = _number(m.group(1)), _COUNT_SUFFIX[m.group(2).lower()]
    else:
        raise ValueError(f"expected a parameter count such as \"7B\" or 7e9, got {type(value).__name__}")
    total = number * scale
    if not math.isfinite(total) or total < 1:
        raise ValueError(f"must be a positive parameter count, got {value!r}")
    return int(round(total))


def parse_bytes(value: object) -> int:
    """A memory size: ``24GiB``, ``80 GiB`` (binary), ``24GB`` (decimal, 24·10^9), or bytes as a number."""
    if isinstance(value, bool):
        raise ValueError(f"expected a memory size such as \"24GiB\" or \"24GB\", got {str(value).lower()}")
    if isinstance(value, (int, float)):
        number, scale = float(value), 1
    elif isinstance(value, str):
        m = _SIZE.match(value)
        unit = m.group(2).lower() if m else ""
        if not m or unit not in _BYTE_UNITS:
            hint = ""
            if m and unit in ("k", "m", "g", "t"):
                # "24G" is ambiguous between GiB and GB, which differ by 7%: make the user say which.
                hint = f' (write "{m.group(1)}{unit.upper()}iB" for binary or "{m.group(1)}{unit.upper()}B" for decimal)'
            raise ValueError(f"expected a memory size such as \"24GiB\" or \"24GB\", got \"{value}\"{hint}")
        number, scale = _number(m.group(1)), _BYTE_UNITS[unit]
    else:
        raise ValueError(f"expected a memory size such as \"24GiB\", got {type(value).__name__}")
    total = number * scale
    if not math.isfinite(total) or total < 1:
        raise ValueError(f"must be a positive memory size, got {value!r}")
    return int(round(total))


def format_gib(n: int) -> str:
    return f"{n / _GiB:,.1f} GiB"


# --- budget from a mapping ---------------------------------------------------------------


@dataclass(frozen=True)
class _Where:
    """Locates a key of one table in the budget file, for messages and spans."""

    path: str | None
    text: str | None
    table: tuple[str, ...]  # e.g. ("tool", "lsp-count") or ("tool", "lsp-count", "budget")
    index: int | None = None  # which [[...]] entry

    def problem(self, key: str | None, message: str) -> Problem:
        span = _find_key(self.text, self.table, self.index, key) if self.text is not None else None
        where = self.path or "settings"
        if span is not None:
            where += f":{span.start.line + 1}"
        label = ".".join(self.table + ((f"[{self.index}]",) if self.index is not None else ()) + ((key,) if key else ()))
        return Problem("error", "LC204", f"{where}: {label}: {message}" if label else f"{where}: {message}", span)


def _str_tuple(value: object, key: str, where: _Where, raw_key: str, errors: list[Problem]) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    errors.append(where.problem(raw_key, "expected a glob or a list of globs"))
    return ()


def _read_table(mapping: Mapping[str, object], where: _Where, base: Budget, allow_list: bool,
                errors: list[Problem]) -> tuple[Budget, object]:
    """One table's keys over ``base``; returns the budget and the raw ``budget`` list (if allowed)."""
    fields: dict[str, object] = {}
    settings = dict(base.settings)
    listed: object = None
    known = BUDGET_KEYS + SETTINGS_KEYS + ((_LIST_KEY,) if allow_list else ())
    for raw_key, value in mapping.items():
        key = canonical_key(str(raw_key))
        if key == _LIST_KEY and allow_list:
            listed = value
            continue
        if key in ANALYSIS_KEYS:  # (the top level's were read before)
            errors.append(where.problem(str(raw_key), "says how model files are read: set it in the top-level table, "
                                                      "not in a budget"))
            continue
        if key not in known:
            suggestions = known + (ANALYSIS_KEYS if allow_list else ())
            errors.append(where.problem(str(raw_key), f"unknown key{_suggest(str(raw_key), suggestions)}"))
            continue
        if key in SETTINGS_KEYS:
            settings[key] = value
            continue
        try:
            if key == "name":
                if not isinstance(value, str):
                    raise ValueError("expected a string")
                fields["name"] = value
            elif key == "gpu":
                fields["gpu"] = _check_gpu(value)
            elif key == "max-params":
                fields["max_params"] = parse_count(value)
            elif key == "max-memory":
                fields["max_memory"] = parse_bytes(value)
            elif key == "strict":
                if not isinstance(value, bool):
                    raise ValueError("expected true or false")
                fields["strict"] = value
            elif key in ("files", "ignore"):
                fields[key] = _str_tuple(value, key, where, str(raw_key), errors)
        except ValueError as exc:
            errors.append(where.problem(str(raw_key), str(exc)))
    budget = replace(base, **fields, settings=settings)  # type: ignore[arg-type]
    _check_settings(budget.settings, mapping, where, errors)
    return budget, listed


def _check_gpu(value: object) -> str:
    from lsp_count.core.hardware import parse_gpu_spec

    if not isinstance(value, str):
        raise ValueError('expected a GPU name such as "RTX-4090" or "2xA100-80GB"')
    parse_gpu_spec(value)  # raises UnknownGPU (a ValueError) with suggestions
    return value


def _check_settings(settings: Mapping[str, object], mapping: Mapping[str, object], where: _Where,
                    errors: list[Problem]) -> None:
    """Validate memory settings now, so a typo fails at load time with the key named, not per model."""
    if not settings:
        return
    try:
        from lsp_count.core.memory import SettingsError, settings_from_mapping
    except ImportError:  # the memory estimator is not part of this build: nothing to validate against
        return
    try:
        settings_from_mapping(settings)
    except SettingsError as exc:
        flag = canonical_key(str(getattr(exc, "flag", "") or ""))
        raw = next((k for k in mapping if canonical_key(str(k)) == flag), None)
        errors.append(where.problem(raw, getattr(exc, "message", str(exc))))


def budget_from_mapping(mapping: Mapping[str, object], source: str = "settings") -> Budget:
    """A budget from editor settings or any mapping with the TOML table's keys. Raises BudgetError."""
    errors: list[Problem] = []
    budget, _ = _read_table(mapping, _Where(source, None, ()), Budget(), False, errors)
    if errors:
        raise BudgetError(errors)
    return budget


# Keys of the top-level table that say how Python model files are read, not what a model may use.
ANALYSIS_KEYS = ("read-packages", "site-packages", "script-args")


def _script_args(value: object, raw_key: str, where: _Where, errors: list[Problem]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``script-args``: a table of file globs and the command line each script is run with (a string,
    split as a shell splits it, or a list of arguments)."""
    expected = 'expected a table of file globs and command lines, such as {"train.py" = "--n_layer 12"}'
    if not isinstance(value, dict):
        errors.append(where.problem(raw_key, expected))
        return ()
    out = []
    for pattern, line in value.items():
        if isinstance(line, str):
            try:
                args = tuple(shlex.split(line))
            except ValueError as exc:
                errors.append(where.problem(raw_key, f"the command line of \"{pattern}\" does not split as a shell "
                                                     f"splits it: {exc}"))
                continue
        elif isinstance(line, list) and all(isinstance(a, str) for a in line):
            args = tuple(line)
        else:
            errors.append(where.problem(raw_key, f"\"{pattern}\": {expected}"))
            continue
        out.append((str(pattern), args))
    return tuple(out)


def _analysis_keys(table: Mapping[str, object], where: _Where, errors: list[Problem]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = canonical_key(str(raw_key))
        if key not in ANALYSIS_KEYS:
            continue
        if key == "script-args":
            out["script_args"] = _script_args(value, str(raw_key), where, errors)
            continue
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(v, str) and v for v in items):
            errors.append(where.problem(str(raw_key), "expected a list of " + (
                "package names, such as [\"transformers\", \"timm\"]" if key == "read-packages" else "directories")))
            continue
        if key == "read-packages":
            bad = next((v for v in items if not v.isidentifier()), None)
            if bad is not None:
                errors.append(where.problem(str(raw_key), f"\"{bad}\" is not a package name (a top-level package: "
                                                          f"\"transformers\", not \"transformers.models\")"))
                continue
        out[key.replace("-", "_")] = tuple(items)
    return out


def config_from_mapping(table: Mapping[str, object], where: _Where) -> BudgetConfig:
    errors: list[Problem] = []
    analysis = _analysis_keys(table, where, errors)
    table = {k: v for k, v in table.items() if canonical_key(str(k)) not in ANALYSIS_KEYS}
    base, listed = _read_table(table, where, Budget(), True, errors)
    budgets: list[Budget] = []
    if listed is not None:
        if not isinstance(listed, list) or not all(isinstance(b, dict) for b in listed):
            errors.append(where.problem(_LIST_KEY, "expected [[...budget]] tables"))
        else:
            sub = _Where(where.path, where.text, where.table + (_LIST_KEY,))
            for i, entry in enumerate(listed):
                b, _ = _read_table(entry, replace(sub, index=i), replace(base, files=()), False, errors)
                if b.name is None:
                    b = replace(b, name=f"budget[{i}]")
                budgets.append(b)
    # The table's own keys also form the catch-all for files no listed budget matches,
    # when they set a limit (or when there is no list at all).
    if not budgets or base.has_limits:
        budgets.append(base)
    if errors:
        raise BudgetError(errors)
    return BudgetConfig(tuple(budgets), where.path, **analysis)  # type: ignore[arg-type]


# --- budget files -------------------------------------------------------------------------

PYPROJECT = "pyproject.toml"
DEDICATED = ".lsp-count.toml"
_TABLE = ("tool", "lsp-count")


def _pyproject_has_table(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        # A broken pyproject that mentions us is ours to report; one that does not is not.
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return "lsp-count" in fh.read()
        except OSError:
            return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "lsp-count" in tool


def find_budget_file(start_dir: str) -> str | None:
    """The nearest ``.lsp-count.toml``, or ``pyproject.toml`` with ``[tool.lsp-count]``, walking up.

    In one directory the dedicated file wins. The walk stops at the repository
    root (a directory holding ``.git``) so a stray file above it never applies.
    """
    here = os.path.abspath(start_dir)
    while True:
        dedicated = os.path.join(here, DEDICATED)
        if os.path.isfile(dedicated):
            return dedicated
        pyproject = os.path.join(here, PYPROJECT)
        if os.path.isfile(pyproject) and _pyproject_has_table(pyproject):
            return pyproject
        parent = os.path.dirname(here)
        if parent == here or os.path.exists(os.path.join(here, ".git")):
            return None
        here = parent


_TOML_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_budget_config(path: str) -> BudgetConfig:
    """Read budgets from ``path`` (a pyproject.toml or .lsp-count.toml). Raises BudgetError."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BudgetError((Problem("error", "LC204", f"{path}: cannot read the budget file: {exc}"),)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_ERROR_AT.search(str(exc))
        span = Span.at(int(m.group(1)) - 1, int(m.group(2)) - 1) if m else None
        where = f"{path}:{m.group(1)}" if m else path
        raise BudgetError((Problem("error", "LC204", f"{where}: invalid TOML: {exc}", span),)) from None
    table_path: tuple[str, ...] = () if os.path.basename(path) == DEDICATED else _TABLE
    table: object = data
    for part in table_path:
        table = table.get(part) if isinstance(table, dict) else None
    if table is None:
        return BudgetConfig((), path)
    where = _Where(path, text, table_path)
    if not isinstance(table, dict):
        raise BudgetError((where.problem(None, "expected a table"),))
    return config_from_mapping(table, where)


# Finding a key's line: tomllib keeps no positions, so scan the text. Good enough
# for the shapes budget files take (bare or quoted keys, [table] and [[array]] headers).
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_LINE = re.compile(r"""^(\s*)(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=""")


def _header_parts(text: str) -> tuple[str, ...]:
    return tuple(p.strip().strip("\"'") for p in re.split(r"\.(?=(?:[^\"']*[\"'][^\"']*[\"'])*[^\"']*$)", text))


def _find_key(text: str | None, table: tuple[str, ...], index: int | None, key: str | None) -> Span | None:
    if text is None:
        return None
    current: tuple[str, ...] = ()
    seen: dict[tuple[str, ...], int] = {}
    header_span: Span | None = Span.at(0, 0) if not table else None
    active = not table
    for n, line in enumerate(text.splitlines()):
        h = _HEADER.match(line)
        if h:
            current = _header_parts(h.group(2))
            if h.group(1) == "[[":
                seen[current] = seen.get(current, -1) + 1
            active = current == table and (index is None or seen.get(current) == index)
            if active and header_span is None:
                header_span = Span.at(n, h.start(2) - 1, n, len(line.rstrip()))
            continue
        if active and key is not None:
            k = _KEY_LINE.match(line)
            if k and (k.group(2) or k.group(3) or k.group(4)) == key:
                start = len(k.group(1))
                return Span.at(n, start, n, start + len(line.strip().split("=")[0].rstrip()))
    return header_span


# --- which budget applies -------------------------------------------------------------------


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-like: ``**`` spans directories, ``*`` and ``?`` stay within one; no slash = any depth."""
    pattern = pattern.strip().lstrip("./") if pattern.startswith("./") else pattern.strip()
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/")
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    if pattern.endswith("/"):
        body += ".*"
    prefix = "" if anchored else "(?:.*/)?"
    # A directory pattern matches everything below it.
    return re.compile(f"^{prefix}{body}(?:/.*)?$")


def glob_match(pattern: str, rel_path: str) -> bool:
    return _glob_regex(pattern).match(rel_path.replace(os.sep, "/")) is not None


def relative_to_config(config: BudgetConfig, file_path: str) -> str:
    """``file_path`` relative to the budget file's directory (or as given when there is none)."""
    if config.source is None:
        return PurePosixPath(file_path.replace(os.sep, "/")).as_posix()
    root = os.path.dirname(os.path.abspath(config.source))
    rel = os.path.relpath(os.path.abspath(file_path), root)
    return rel.replace(os.sep, "/")


def split_ignore(entry: str) -> tuple[str, str | None]:
    """``"legacy/**:LC201"`` → (``legacy/**``, ``LC201``); a bare glob ignores every code."""
    m = re.match(r"^(.*):(LC\d{3})$", entry.strip())
    return (m.group(1), m.group(2)) if m else (entry.strip(), None)


def budget_for(config: BudgetConfig, file_path: str) -> Budget | None:
    """The first budget whose ``files`` globs match ``file_path`` (a budget without globs matches all)."""
    rel = relative_to_config(config, file_path)
    for budget in config.budgets:
        if not budget.files or any(glob_match(g, rel) for g in budget.files):
            return budget
    return None


def ignored_codes(budget: Budget, rel_path: str) -> frozenset[str] | None:
    """Codes the budget's ``ignore`` list suppresses for this file; ``None`` means the whole file."""
    codes: set[str] = set()
    for entry in budget.ignore:
        pattern, code = split_ignore(entry)
        if glob_match(pattern, rel_path):
            if code is None:
                return None
            codes.add(code)
    return frozenset(codes)


# --- verdicts --------------------------------------------------------------------------------


def _driving_node(model: ModelReport) -> ParamNode | None:
    """The biggest top-level component whose size a key in the file sets (usually the layers)."""
    best: ParamNode | None = None
    for child in model.tree.root.children:
        if child.source is not None and (best is None or child.total > best.total):
            best = child
    return best


def _key_text(model: ModelReport, node: ParamNode | None) -> str | None:
    if node is None or model.spec is None:
        return None
    return model.spec.key_name(node.key) or node.key or None


def model_anchor(model: ModelReport) -> Span | None:
    """Where a finding about the model as a whole points: its model_type key, else the model's first line."""
    spec = model.spec
    if spec is not None:
        for name in ("model_type",):
            span = spec.key_span(name)
            if span is not None:
                return span
    span = model.span or (spec.span if spec is not None else None)
    return Span.at(span.start.line, span.start.column) if span is not None else None


def _layers_that_fit(model: ModelReport, limit: int, node: ParamNode | None = None,
                     total: int | None = None) -> tuple[str, int, int] | None:
    """(key, value, params) for the largest repeat count of the repeated block that keeps the model ≤ limit.

    ``node`` and ``total``: ``_driving_node(model)`` and the model's total, when the caller has them."""
    if node is None:
        node = _driving_node(model)
    if node is None or node.repeat <= 1:
        return None
    key = _key_text(model, node)
    if key is None:
        return None
    rest = (model.tree.total if total is None else total) - node.total
    if limit <= rest:
        return None
    reps = min((limit - rest) // node.per_repeat, node.repeat - 1)
    if reps < 1:
        return None
    return key, reps, rest + reps * node.per_repeat


def judge_params(model: ModelReport, budget: Budget) -> Problem | None:
    if budget.max_params is None:
        return None
    total = model.tree.total  # a walk of the whole tree: once
    if total <= budget.max_params:
        return None
    node = _driving_node(model)
    span = node.source if node is not None and node.source is not None else model_anchor(model)
    msg = (f"{short_count(total)} parameters ({exact_count(total)}) is over max-params "
           f"{short_count(budget.max_params)} of {budget.label}")
    fit = _layers_that_fit(model, budget.max_params, node, total)
    if fit is not None:
        key, reps, params = fit
        msg += f"; {key} ≤ {reps} would fit ({short_count(params)})"
    return Problem("error", "LC202", msg, span, data=(("total", total), ("limit", budget.max_params)))


def _memory_span(model: ModelReport) -> Span | None:
    node = _driving_node(model)
    return node.source if node is not None and node.source is not None else model_anchor(model)


def merged_settings(model: ModelReport, budget: Budget) -> dict[str, object]:
    """The file's own training plan (a fine-tuning YAML's mode, rank, seq len) under the budget's rules.

    The budget's explicit settings win: it states the rule the team agreed on.
    """
    return plan_under(model.plan, budget.settings)


def plan_under(plan: Mapping[str, object], settings: Mapping[str, object]) -> dict[str, object]:
    """A model's plan under ``settings`` (a budget's, an editor's), which win. A plan's ZeRO stage (a
    trainer's FSDP or DeepSpeed) is its training's: it is dropped where the settings ask for inference."""
    merged = {**{canonical_key(str(k)): v for k, v in plan.items()}, **settings}
    if merged.get("mode") == "inference" and "zero" not in settings:
        merged.pop("zero", None)
    return merged


def _not_checked(model: ModelReport, what: str, module: str) -> Problem:
    # An install without the estimator must not pass a memory budget silently.
    return Problem("warning", "LC203", f"{what} not checked: this lsp-count has no {module}", model_anchor(model))


def judge_memory(model: ModelReport, budget: Budget) -> tuple[Problem, ...]:
    if budget.gpu is None and budget.max_memory is None:
        return ()
    try:
        from lsp_count.core.memory import MemoryEstimator, SettingsError, settings_from_mapping, with_context
    except ImportError:
        return (_not_checked(model, "memory budget", "memory estimator (lsp_count.core.memory)"),)
    try:
        settings = settings_from_mapping(merged_settings(model, budget))
    except SettingsError:
        # The file's plan holds something the estimator rejects: judge by the budget's rule alone.
        settings = settings_from_mapping(budget.settings)
    settings = with_context(model, settings)  # the model's own where the budget and the file give none
    problems: list[Problem] = []
    # One estimator for every estimate below (the fit search's dozens included): each distinct
    # setting is estimated once and the parameter tree is walked once.
    est = MemoryEstimator(model)
    try:
        if budget.gpu is not None:
            problem = _judge_gpu(model, settings, budget, est)
            if problem is not None:
                problems.append(problem)
        if budget.max_memory is not None:
            report = est(settings)
            if report.total_bytes > budget.max_memory:
                limit = budget.max_memory
                fits = _cheaper_setting(est, settings, lambda r: r.total_bytes <= limit)
                problems.append(Problem(
                    "error", "LC201",
                    f"needs {format_gib(report.total_bytes)} in {report.dtype} for {_workload(settings)}; "
                    f"max-memory of {budget.label} is {format_gib(limit)}" + (f" (fits: {fits})" if fits else ""),
                    _memory_span(model), data=(("required", report.total_bytes), ("limit", limit)),
                ))
    except SettingsError as exc:
        # e.g. tp = 4 in a budget applied to a model with 6 heads: the budget cannot apply to this file.
        problems.append(Problem("error", "LC102", f"the settings of {budget.label} do not apply to this model: "
                                f"{getattr(exc, 'message', exc)}", model_anchor(model)))
    return tuple(problems)


def _judge_gpu(model: ModelReport, settings: object, budget: Budget, est: object) -> Problem | None:
    assert budget.gpu is not None
    selection = _gpu_selection(budget.gpu)
    s = _sharded(est, settings, selection.count, budget)
    # judge_fit searches context, batch, dtype and GPU count for its hints, which is most of
    # the gate's time; a model that fits needs none of that, so check the fit itself first
    # (the same comparison judge_fit makes: per-GPU estimate against usable memory).
    report = est(s)  # type: ignore[operator]
    if report.total_bytes <= selection.gpu.usable_bytes:
        return None
    try:
        from lsp_count.core.fit import judge_fit
    except ImportError:
        return _not_checked(model, f"GPU budget ({budget.gpu})", "fit judge (lsp_count.core.fit)")
    verdict = judge_fit(model, s, selection, est)  # type: ignore[arg-type]
    if verdict.fits:
        return None
    gpu = selection.gpu.name
    hints = []
    if verdict.lowest_dtype and verdict.lowest_dtype != report.dtype:
        hints.append(verdict.lowest_dtype)
    if verdict.min_gpus is not None and verdict.min_gpus > selection.count:
        hints.append(f"{verdict.min_gpus}×{gpu}")
    if verdict.lowest_dtype is None and s.mode == "inference":
        # Not even the lowest precision fits this selection: how many GPUs would at 4 bits.
        # A scan (not another full judge_fit) because it stops below the GPU count already found.
        cap = verdict.min_gpus if verdict.min_gpus is not None else 64
        for n in range(selection.count + 1, cap):
            trial = _sharded(est, replace(s, dtype=_INT4[0]), n, budget)
            if _fits_bytes(est, trial, selection.gpu.usable_bytes):
                hints.append(f"{_INT4[1]} on {n}×{gpu}")
                break
    if verdict.max_context is not None and verdict.max_context < s.context:
        hints.append(f"context ≤ {verdict.max_context:,}")
    per_gpu = " per GPU" if selection.count > 1 else ""
    message = (f"needs {format_gib(verdict.required_bytes)}{per_gpu} in {report.dtype} for {_workload(s)}; "
               f"{selection.label} has {format_gib(verdict.available_bytes)}{per_gpu}"
               + (f" ({budget.label})" if budget.name else ""))
    if hints:
        message += f" (fits: {', or '.join(hints)})"
    elif verdict.suggestions:
        message += f"; {verdict.suggestions[0]}"
    return Problem("error", "LC201", message, _memory_span(model),
                   data=(("required", verdict.required_bytes), ("available", verdict.available_bytes)))


@functools.lru_cache(maxsize=64)
def _gpu_selection(gpu: str) -> Any:
    """``parse_gpu_spec`` (a pure lookup in the bundled catalog), once per distinct GPU string:
    every model judged against a budget names the same GPU. Errors are not cached."""
    from lsp_count.core.hardware import parse_gpu_spec

    return parse_gpu_spec(gpu)


def _sharded(est: object, settings: object, count: int, budget: Budget) -> object:
    """Settings on ``count`` GPUs. "Serve on 2×A100" means the model is split over them, so a
    multi-GPU budget that sets no parallelism gets tensor parallel for inference (pipeline where
    the heads do not divide) and ZeRO-3 for training, rather than a replica per GPU.
    ``est``: the model's MemoryEstimator."""
    from lsp_count.core.memory import SettingsError

    s = replace(settings, gpus=count)  # type: ignore[type-var]
    chosen = {canonical_key(k) for k in budget.settings}
    if count == 1 or chosen & {"tp", "pp", "zero"}:
        return s
    if s.mode != "inference":
        return replace(s, zero=3)
    for trial in (replace(s, tp=count), replace(s, pp=count)):
        try:
            est.validate(trial)  # type: ignore[attr-defined]
            return trial
        except SettingsError:
            continue
    return s


def _fits_bytes(est: object, settings: object, available: int) -> bool:
    from lsp_count.core.memory import SettingsError

    try:
        return est(settings).total_bytes <= available  # type: ignore[operator]
    except SettingsError:
        return False


# The 4-bit format named when a model needs quantizing: AWQ/GPTQ int4 (≈4.16 bits with scales).
_INT4 = ("awq-4bit", "int4")


# Cheaper ways to run the same model, in the order a team would reach for them.
_INFERENCE_DTYPES = (("int8", "int8"), ("awq-4bit", "int4"))
_TRAINING_FALLBACKS = (("lora", None, "LoRA"), ("qlora", "nf4-dq", "QLoRA"))


def _cheaper_setting(est: object, settings: object, ok: object) -> str | None:
    """The first cheaper setting under which ``ok(MemoryReport)`` holds, described for a message.

    ``est``: the model's MemoryEstimator."""
    trials: list[tuple[dict[str, object], str]] = []
    mode = getattr(settings, "mode", "inference")
    if mode == "inference":
        trials = [({"dtype": d}, label) for d, label in _INFERENCE_DTYPES]
    elif mode == "train":
        trials = [({"mode": m, "dtype": d}, label) for m, d, label in _TRAINING_FALLBACKS]
    elif mode == "lora":
        trials = [({"mode": "qlora", "dtype": "nf4-dq"}, "QLoRA")]
    for change, label in trials:
        try:
            report = est(replace(settings, **change))  # type: ignore[type-var,operator]
        except ValueError:  # SettingsError: the combination is not a run anyone could have
            continue
        if ok(report):  # type: ignore[operator]
            return label
    return None


def _workload(settings: object) -> str:
    mode = getattr(settings, "mode", "inference")
    context = getattr(settings, "context", None)
    batch = getattr(settings, "batch", 1)
    text = f"{mode} at {context} tokens" if context else str(mode)
    if batch and batch != 1:
        text += f" × batch {batch}"
    return text


def judge(model: ModelReport, budget: Budget) -> tuple[Problem, ...]:
    """Every way ``model`` breaks ``budget``: LC201 (memory) and LC202 (parameters)."""
    out = list(judge_memory(model, budget))
    params = judge_params(model, budget)
    if params is not None:
        out.append(params)
    return tuple(out)
