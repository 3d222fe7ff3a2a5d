"""What a model means under the current settings: memory, fit and budget verdicts.

The workspace budget file gives the team's rule; the user's client settings
override it per user (a user with a bigger GPU sees their own fit). Memory
needs the estimator to understand the model; when it cannot (a layout it does
not model), the editor still shows parameters and says why memory is missing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Mapping

from lsp_count.core.budget import Budget, BudgetConfig, BudgetError, budget_for, canonical_key, judge, plan_under
from lsp_count.core.hardware import GPUSelection, UnknownGPU, parse_gpu_spec
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem

from lsp_count.lsp.settings import ClientSettings

if TYPE_CHECKING:
    from lsp_count.core.fit import FitVerdict
    from lsp_count.core.memory import MemoryReport, Settings

MODES = ("inference", "lora", "qlora", "train")


@dataclass(frozen=True)
class Rules:
    """The budget and settings that apply to one document."""

    budget: Budget | None  # None: no budget file entry and no GPU chosen, so nothing to judge
    settings: Mapping[str, object]
    gpu: str | None
    problems: tuple[Problem, ...] = ()  # a broken budget file or setting, shown on the document
    source: str | None = None  # the budget file, if one applies


@dataclass(frozen=True)
class ModelView:
    model: ModelReport
    settings: Settings | None
    memory: MemoryReport | None
    # Each training workload's memory, or why the model cannot have it (the summary hover).
    modes: Mapping[str, MemoryReport | str] = field(default_factory=dict)
    selection: GPUSelection | None = None
    fit: FitVerdict | None = None
    problems: tuple[Problem, ...] = ()
    # Why memory is not shown, when it is not.
    unavailable: str | None = None


def rules_for(path: str, config: BudgetConfig | None, config_error: BudgetError | None,
              client: ClientSettings) -> Rules:
    problems: list[Problem] = []
    file_budget = budget_for(config, path) if config is not None else None
    if config_error is not None:
        source = "the budget file"
        problems.extend(Problem("warning", p.code, f"{source}: {p.message}" if not p.message.startswith(os.sep) else p.message)
                        for p in config_error.problems)
    settings: dict[str, object] = dict(file_budget.settings) if file_budget is not None else {}
    settings.update({canonical_key(k): v for k, v in client.overrides().items()})
    gpu = client.gpu or (file_budget.gpu if file_budget is not None else None)
    if client.gpu:
        try:
            parse_gpu_spec(client.gpu)
        except (UnknownGPU, ValueError) as exc:
            problems.append(Problem("warning", "LC204", f"setting lsp-count.gpu: {exc}"))
            gpu = file_budget.gpu if file_budget is not None else None
    # Imported when first needed, as the budget module does: the estimator is the heavy part of the core.
    from lsp_count.core.memory import SettingsError, settings_from_mapping

    try:
        settings_from_mapping(settings)
    except SettingsError as exc:
        problems.append(Problem("warning", "LC204", f"lsp-count settings: {exc}; using the budget file's settings"))
        settings = dict(file_budget.settings) if file_budget is not None else {}
    budget = None
    if file_budget is not None or gpu is not None:
        budget = replace(file_budget or Budget(), gpu=gpu, settings=settings)
    return Rules(budget, settings, gpu, tuple(problems), config.source if config is not None else None)


def verdicts(model: ModelReport, rules: Rules) -> tuple[Problem, ...]:
    """The budget's findings for one model: all diagnostics need, and cheaper than a full view."""
    if rules.budget is None or not rules.budget.has_limits:
        return ()
    return judge(model, rules.budget)


def workload(settings: "Settings", mode: str) -> "Settings":
    """The settings of the summary's row for ``mode``: the document's, but for the weights' dtype
    where it is the other side's: a quantized one (a QLoRA plan's nf4-dq) is the QLoRA row's, not
    the LoRA or full fine-tune row's (their base is 16-bit), and a 16-bit one is not the QLoRA row's
    (its base is quantized)."""
    from lsp_count.core.precision import DTYPES, UnknownDType, normalize_dtype

    if settings.dtype is None or mode == "inference":
        return replace(settings, mode=mode)
    try:
        quantized = DTYPES[normalize_dtype(settings.dtype)].quantized
    except (UnknownDType, KeyError):
        return replace(settings, mode=mode)
    mismatched = (mode == "qlora") != quantized
    return replace(settings, mode=mode, dtype=None if mismatched else settings.dtype)


def view_model(model: ModelReport, rules: Rules, detailed: bool = False,
               problems: tuple[Problem, ...] | None = None) -> ModelView:
    """Memory, fit and verdicts for one model. ``detailed`` adds every training mode (for the summary hover).

    ``problems``: the model's verdicts when already judged (the fit search is the costly part).
    """
    from lsp_count.core.fit import judge_fit
    from lsp_count.core.memory import SettingsError, estimate_memory, settings_from_mapping

    found = verdicts(model, rules) if problems is None else problems
    try:
        settings = settings_from_mapping(plan_under(model.plan, rules.settings))
    except SettingsError:
        settings = settings_from_mapping(rules.settings)
    try:
        memory = estimate_memory(model, settings)
    except (ValueError, KeyError, NotImplementedError) as exc:
        # The estimator does not model this layout; parameters are still exact and shown.
        return ModelView(model, settings, None, problems=found, unavailable=str(exc) or type(exc).__name__)
    modes: dict[str, MemoryReport | str] = {}
    if detailed:
        for mode in MODES:
            try:
                modes[mode] = memory if mode == settings.mode else estimate_memory(model, workload(settings, mode))
            except SettingsError as exc:  # a workload this model or its dtype cannot have (LoRA with no linear layer)
                modes[mode] = exc.message
            except (ValueError, KeyError, NotImplementedError) as exc:
                modes[mode] = str(exc) or type(exc).__name__
    selection = parse_gpu_spec(rules.gpu) if rules.gpu else None
    fit = judge_fit(model, settings, selection) if selection is not None else None
    return ModelView(model, settings, memory, modes, selection, fit, found)
