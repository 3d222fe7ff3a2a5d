"""``lsp-count serve``: the language server (pygls 2.x, stdio).

All state lives on the ``LspCountServer`` object: analyses cached per document
version, views cached per (version, settings generation), the client's
settings and the budget files read. Analysis runs in a worker thread so the
event loop keeps answering while a big document is read.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Sequence

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from lsp_count import __version__
from lsp_count.core.analyze import FORMATS, AnalysisProgress, AnalyzeOptions, format_for
from lsp_count.core.budget import BudgetConfig, BudgetError, find_budget_file, load_budget_config
from lsp_count.core.source import Problem

from lsp_count.lsp import actions, diagnostics, hints, hover, lens
from lsp_count.lsp.analysis import (Analysis, FunctionCount, analyze_document, class_at, count_function_of,
                                    function_at, hub_at, is_summary_line, key_at, model_at, warm_up_python_analysis)
from lsp_count.lsp.collector import QuietCollector
from lsp_count.lsp.positions import encoding_of, from_lsp
from lsp_count.lsp.progress import client_shows_progress, progress_delay, show_progress
from lsp_count.lsp.settings import SECTION, ClientSettings, parse_client_settings
from lsp_count.lsp.view import ModelView, Rules, rules_for, verdicts, view_model

if TYPE_CHECKING:
    from lsp_count.pymodel.reuse import PythonMemo

log = logging.getLogger("lsp_count.lsp")

# Edits closer together than this are analysed once; short enough that
# diagnostics still follow typing within a tenth of a second.
DEBOUNCE_S = 0.025
# Seconds without a new analysis before the one full garbage collection (collector.py).
IDLE_COLLECT_S = 30.0
BUDGET_FILES = ("pyproject.toml", ".lsp-count.toml")
CLIENT_REQUEST_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Verdicts:
    """What diagnostics need: the rules that apply and each model's budget findings."""

    analysis: Analysis
    rules: Rules
    problems: tuple[tuple[Problem, ...], ...]


@dataclass(frozen=True)
class Views:
    analysis: Analysis
    rules: Rules
    models: tuple[ModelView, ...]


class LspCountServer(LanguageServer):
    def __init__(self) -> None:
        # Full sync: the server never re-applies ranges to its copy of the text, so a
        # client/server disagreement on line breaks (U+2028, form feed) cannot corrupt it.
        super().__init__("lsp-count", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lsp-count")
        self.client_settings = ClientSettings()
        self.settings_generation = 0
        self.analyses: dict[str, Analysis] = {}
        # uri -> what the last analysis of a Python document lends the next (the classes an edit left alone).
        self.memos: dict[str, PythonMemo] = {}
        # Project files' parse trees, shared by the open Python documents (a package's files import
        # the same modules): opening a second model of a package does not parse them again.
        self.project_trees: dict[str, Any] = {}
        self.analysing: dict[tuple[str, int | None, AnalyzeOptions], asyncio.Future[Analysis]] = {}
        # uri -> (cache key, value); the key is the settings generation and the analysis (see _key).
        self.verdicts: dict[str, tuple[tuple[int, Analysis], Verdicts]] = {}
        self.views: dict[str, tuple[tuple[int, Analysis], Views]] = {}
        self.summaries: dict[tuple[str, int], tuple[tuple[int, Analysis], ModelView]] = {}
        self.key_hovers: dict[tuple[str, int, str], tuple[tuple[int, Analysis], str]] = {}
        # (uri, function name) -> what calling that module-level function builds, counted on hover.
        self.function_views: dict[tuple[str, str], tuple[tuple[int, Analysis], FunctionCount | ModelView]] = {}
        self.debounced: dict[str, asyncio.Task[None]] = {}
        # budget file -> (mtime_ns, size, config or None, error or None)
        self.budget_files: dict[str, tuple[int, int, BudgetConfig | None, BudgetError | None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.collector = QuietCollector()
        # How long an analysis runs before the editor shows a progress bar for it (None: never).
        self.progress_after_s = progress_delay(os.environ)
        self.idle_collect: asyncio.TimerHandle | None = None

    # --- client capabilities --------------------------------------------------------------

    @property
    def encoding(self) -> str:
        return encoding_of(self.workspace.position_encoding)

    @property
    def pull_diagnostics(self) -> bool:
        """Pull when the client can ask (textDocument/diagnostic); push otherwise. Never both."""
        td = self.client_capabilities.text_document
        return td is not None and td.diagnostic is not None

    def shows_progress(self) -> bool:
        """A progress bar for slow analyses: on unless turned off, for clients that can show one."""
        if self.progress_after_s is None:
            return False
        try:
            capabilities = self.client_capabilities
        except AttributeError:  # not initialized yet
            return False
        return client_shows_progress(capabilities)

    def _workspace_cap(self, name: str) -> Any:
        ws = self.client_capabilities.workspace
        return getattr(ws, name, None) if ws is not None else None

    def markdown(self) -> bool:
        td = self.client_capabilities.text_document
        formats = td.hover.content_format if td is not None and td.hover is not None else None
        return not formats or types.MarkupKind.Markdown in formats

    async def warm_up(self) -> None:
        """Analyse a built-in Python model in a worker, so the first Python file opened does not wait
        for the analyser's import; the client's log says when it is ready (or why not)."""
        start = time.perf_counter()
        try:
            total = await asyncio.get_running_loop().run_in_executor(self.executor, warm_up_python_analysis)
        except Exception as exc:  # noqa: BLE001 - the first real file reports what is wrong, in place
            message = f"lsp-count: the Python analyser's warm-up failed: {type(exc).__name__}: {exc}"
        else:
            ms = (time.perf_counter() - start) * 1000
            message = (f"lsp-count: Python analyser ready in {ms:.0f} ms (its built-in model: {total:,} parameters)"
                       if total is not None else "lsp-count: the Python analyser's warm-up model was not counted")
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=message))

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- analysis -------------------------------------------------------------------------

    def options_for(self, path: str) -> AnalyzeOptions:
        options = AnalyzeOptions(execute=self.client_settings.execute, base_dir=os.path.dirname(path) or None)
        if not path.endswith(".py"):
            return options
        # The installed packages a model file reads: the budget file's, under the editor's settings.
        config = self.budget_config(path)[0]
        if config is not None:
            options = config.reading_options(options, path)
        settings = self.client_settings
        if settings.read_packages is not None:
            options = replace(options, read_packages=settings.read_packages)
        if settings.site_packages is not None:
            options = replace(options, site_packages=settings.site_packages)
        return options

    async def analysis(self, uri: str) -> Analysis:
        doc = self.workspace.get_text_document(uri)
        path = doc.path or uri
        options = self.options_for(path)
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == doc.version and cached.options == options and cached.text is doc.source:
            return cached
        key = (uri, doc.version, options)
        future = self.analysing.get(key)
        if future is None:
            loop = asyncio.get_running_loop()
            memo = None
            if format_for(path) == FORMATS[".py"]:
                from lsp_count.pymodel.reuse import PythonMemo

                # A file on disk starts from the results an earlier session or run stored (memo_store.py).
                memo = self.memos.setdefault(uri, PythonMemo(self.project_trees, from_disk=bool(doc.path)))
            progress = AnalysisProgress() if self.shows_progress() else None
            future = asyncio.ensure_future(loop.run_in_executor(
                self.executor, self.collector.run, analyze_document, uri, doc.version, doc.source, path, options, memo,
                progress))
            if progress is not None and self.progress_after_s is not None:
                self.spawn(show_progress(self, future, os.path.basename(path), progress, self.progress_after_s,
                                         measured=memo is not None))
            self.analysing[key] = future
            future.add_done_callback(lambda _f: self.analysing.pop(key, None))
            future.add_done_callback(lambda _f: self.collect_when_idle())
        result = await future
        # Only the newest version is cached: an older result finishing late must not replace it.
        current = self.analyses.get(uri)
        if current is None or current.version is None or (result.version or 0) >= current.version:
            self.analyses[uri] = result
        return result

    def collect_when_idle(self) -> None:
        """The full garbage collection, IDLE_COLLECT_S after the last analysis (collector.py)."""
        if self.idle_collect is not None:
            self.idle_collect.cancel()

        def collect() -> None:
            self.idle_collect = None
            if not self.collector.collect():  # an analysis is running: after it, then
                self.collect_when_idle()
        self.idle_collect = asyncio.get_running_loop().call_later(IDLE_COLLECT_S, collect)

    def budget_config(self, path: str) -> tuple[BudgetConfig | None, BudgetError | None]:
        found = find_budget_file(os.path.dirname(os.path.abspath(path)))
        if found is None:
            return None, None
        try:
            st = os.stat(found)
        except OSError:
            return None, None
        cached = self.budget_files.get(found)
        if cached is not None and cached[:2] == (st.st_mtime_ns, st.st_size):
            return cached[2], cached[3]
        try:
            config, error = load_budget_config(found), None
        except BudgetError as exc:
            config, error = None, exc
        self.budget_files[found] = (st.st_mtime_ns, st.st_size, config, error)
        return config, error

    def _compute_verdicts(self, analysis: Analysis, client: ClientSettings) -> Verdicts:
        config, error = self.budget_config(analysis.path) if analysis.models else (None, None)
        rules = rules_for(analysis.path, config, error, client)
        # A model the analysis took unchanged from the last one (a Python class the edit did not
        # reach) is the same object: its findings under the same rules are the ones judged then.
        known = self._previous(self.verdicts, analysis.uri, rules, lambda v: v.problems)
        found = []
        for m in analysis.models:
            problems = known(m)
            found.append(verdicts(m, rules) if problems is None else problems)
        return Verdicts(analysis, rules, tuple(found))

    @staticmethod
    def _previous(cache: dict, uri: str, rules: Rules, per_model: Callable[[Any], tuple]) -> Callable[[Any], Any]:
        """For the document's last cached value under the same rules: model -> what it held for
        that very model object (None for a model it did not have)."""
        held = cache.get(uri)
        if held is None or held[1].rules != rules:
            return lambda model: None
        by_id = {id(m): (m, value) for m, value in zip(held[1].analysis.models, per_model(held[1]))}

        def lookup(model: Any) -> Any:
            found = by_id.get(id(model))
            return found[1] if found is not None and found[0] is model else None
        return lookup

    def _key(self, analysis: Analysis) -> tuple[int, Analysis]:
        """What a cached value was computed from: the settings and the analysis itself, held with the
        value and compared by identity (its version and options are its own; a re-analysis of the same
        version, after a file it imports changed, is another object, and a freed one's id could be it)."""
        return (self.settings_generation, analysis)

    async def _cached(self, cache: dict, slot: object, key: tuple[int, Analysis], fn: Callable[..., Any], *args: Any) -> Any:
        cached = cache.get(slot)
        if cached is not None and cached[0][0] == key[0] and cached[0][1] is key[1]:
            return cached[1]
        value = await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
        cache[slot] = (key, value)
        return value

    async def verdicts_for(self, uri: str) -> Verdicts:
        analysis = await self.analysis(uri)
        return await self._cached(self.verdicts, uri, self._key(analysis), self._compute_verdicts, analysis,
                                  self.client_settings)

    async def views_for(self, uri: str) -> Views:
        found = await self.verdicts_for(uri)
        analysis, rules = found.analysis, found.rules

        def compute() -> Views:
            known = self._previous(self.views, uri, rules, lambda v: v.models)
            views = []
            for m, p in zip(analysis.models, found.problems):
                view = known(m)
                views.append(view_model(m, rules, False, p) if view is None or view.problems != p else view)
            return Views(analysis, rules, tuple(views))

        return await self._cached(self.views, uri, self._key(analysis), compute)

    async def summary_for(self, uri: str, model: object) -> ModelView:
        found = await self.verdicts_for(uri)
        index = found.analysis.models.index(model)  # type: ignore[arg-type]
        return await self._cached(self.summaries, (uri, index), self._key(found.analysis), view_model,
                                  model, found.rules, True, found.problems[index])

    async def function_view(self, uri: str, analysis: Analysis, name: str, line: int) -> FunctionCount | ModelView:
        """The model a module-level function builds, counted when first hovered (a file may register
        hundreds: timm's vision_transformer.py, 163), judged like the file's classes; else why not."""
        found = await self.verdicts_for(uri)

        def compute() -> FunctionCount | ModelView:
            from lsp_count.pymodel.reuse import PythonMemo

            counted = self.collector.run(count_function_of, analysis, name, PythonMemo(self.project_trees, reuse=False),
                                         line)
            return counted if counted.model is None else view_model(counted.model, found.rules, True)

        return await self._cached(self.function_views, (uri, name), self._key(analysis), compute)

    # --- diagnostics ----------------------------------------------------------------------

    async def diagnostics_for(self, uri: str) -> list[types.Diagnostic]:
        try:
            found = await self.verdicts_for(uri)
            return diagnostics.diagnostics(found.analysis, found.rules, found.problems, self.encoding)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - say so in the editor instead of failing silently
            log.exception("diagnostics failed for %s", uri)
            analysis = self.analyses.get(uri)
            if analysis is None:
                return []
            return [diagnostics.to_diagnostic(analysis, Problem(
                "error", "LC001", f"lsp-count failed on this document: {type(exc).__name__}: {exc}"), self.encoding)]

    async def publish(self, uri: str) -> None:
        if self.pull_diagnostics:
            return
        version = self.workspace.get_text_document(uri).version
        items = await self.diagnostics_for(uri)
        # A newer edit arrived meanwhile: its own publish follows; do not show stale ranges.
        if self.workspace.get_text_document(uri).version != version:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version))

    def schedule(self, uri: str) -> None:
        previous = self.debounced.pop(uri, None)
        if previous is not None:
            previous.cancel()

        async def later() -> None:
            await asyncio.sleep(DEBOUNCE_S)
            self.debounced.pop(uri, None)
            await self.publish(uri)

        task = asyncio.ensure_future(later())
        self.debounced[uri] = task

    # --- settings and budget changes ------------------------------------------------------

    def apply_settings(self, raw: object) -> bool:
        settings, warnings = parse_client_settings(raw)
        for warning in warnings:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=warning))
        if settings == self.client_settings:
            return False
        self.client_settings = settings
        self.settings_generation += 1
        return True

    async def pull_settings(self) -> bool:
        if not self._workspace_cap("configuration"):
            return False
        try:
            result = await asyncio.wait_for(self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])), CLIENT_REQUEST_TIMEOUT_S)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - a client that cannot answer keeps the old settings
            log.warning("workspace/configuration failed", exc_info=True)
            return False
        if not result or not isinstance(result[0], dict):
            return False
        return self.apply_settings(result[0])

    async def refresh_all(self) -> None:
        """Settings or budget changed: every open document's hints, lenses and diagnostics."""
        self.verdicts.clear()
        self.views.clear()
        self.summaries.clear()
        await self.refresh(list(self.workspace.text_documents))

    def project_files_changed(self, paths: list[str]) -> None:
        """Python files were saved or changed on disk: the open Python documents whose last
        analysis read one of them (a class imported from it) are analysed again; their own text
        has not changed, so nothing else would."""
        changed = set()
        for path in paths:
            try:
                changed.add(os.path.realpath(path))
            except (OSError, ValueError):  # a client's odd uri (a NUL byte): no project file of ours
                continue
        stale = [uri for uri, memo in self.memos.items() if changed & memo.files.keys()]
        for uri in stale:
            self.forget_results(uri)
        if stale:
            self.spawn(self.refresh(stale))

    def store_memo(self, uri: str) -> None:
        """The document's per-class results kept on disk for the next session (memo_store.py), on
        a worker thread: when it is saved or closed, not at each keystroke."""
        memo = self.memos.get(uri)
        if memo is not None and memo.disk_key is not None and memo.classes:
            from lsp_count.pymodel import memo_store

            self.executor.submit(memo_store.store, *memo.disk_key, memo.classes, memo.files)

    def forget_results(self, uri: str) -> None:
        """The document's analysis and everything made from it (not its PythonMemo)."""
        self.analyses.pop(uri, None)
        self.verdicts.pop(uri, None)
        self.views.pop(uri, None)
        for cache in (self.summaries, self.key_hovers, self.function_views):
            for slot in [k for k in cache if k[0] == uri]:
                cache.pop(slot, None)

    async def refresh(self, uris: list[str]) -> None:
        """The documents' diagnostics pushed again; clients that pull (diagnostics, hints, lenses)
        are asked to pull again."""
        for uri in uris:
            await self.publish(uri)
        refreshes = (
            ("diagnostics", self.workspace_diagnostic_refresh_async, self.pull_diagnostics),
            ("inlay_hint", self.workspace_inlay_hint_refresh_async, True),
            ("code_lens", self.workspace_code_lens_refresh_async, True),
        )
        for name, send, wanted in refreshes:
            cap = self._workspace_cap(name)
            if wanted and cap is not None and getattr(cap, "refresh_support", False):
                self.spawn(self._quiet(send(None)))

    async def _quiet(self, request: Awaitable[Any]) -> None:
        try:
            await asyncio.wait_for(request, CLIENT_REQUEST_TIMEOUT_S)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - a refresh the client ignores costs nothing
            log.debug("client request failed", exc_info=True)

    def budget_changed(self) -> None:
        self.budget_files.clear()
        self.settings_generation += 1
        self.spawn(self.refresh_all())


def safe(default: Any) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]:
    """A request handler that answers ``default`` instead of an error when the document is hostile."""

    def wrap(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(fn)
        async def run(ls: LspCountServer, params: Any) -> Any:
            try:
                return await fn(ls, params)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001
                log.exception("%s failed", fn.__name__)
                return default() if callable(default) else default

        return run

    return wrap


def create_server() -> LspCountServer:
    server = LspCountServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: LspCountServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: LspCountServer, params: types.InitializedParams) -> None:
        ls.spawn(ls.warm_up())
        watch = ls._workspace_cap("did_change_watched_files")
        if watch is not None and watch.dynamic_registration:
            registration = types.Registration(
                id="lsp-count-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in BUDGET_FILES] +
                    # project files a Python model imports (changed outside the editor: git, another tool)
                    [types.FileSystemWatcher(glob_pattern="**/*.py")]))
            ls.spawn(ls._quiet(ls.client_register_capability_async(types.RegistrationParams([registration]))))
        if await ls.pull_settings():
            await ls.refresh_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: LspCountServer, params: types.DidChangeConfigurationParams) -> None:
        changed = ls.apply_settings(params.settings) if params.settings else False
        changed = await ls.pull_settings() or changed
        if changed:
            await ls.refresh_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: LspCountServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [to_fs_path(c.uri) or c.uri for c in params.changes]
        if any(os.path.basename(path) in BUDGET_FILES for path in paths):
            ls.budget_changed()
        ls.project_files_changed([path for path in paths if path.endswith(".py")])

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LspCountServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LspCountServer, params: types.DidChangeTextDocumentParams) -> None:
        if not ls.pull_diagnostics:
            ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LspCountServer, params: types.DidSaveTextDocumentParams) -> None:
        path = to_fs_path(params.text_document.uri) or ""
        if os.path.basename(path) in BUDGET_FILES:
            ls.budget_changed()
        if path.endswith(".py"):
            ls.project_files_changed([path])
            ls.store_memo(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LspCountServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.debounced.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.forget_results(uri)
        ls.store_memo(uri)
        ls.memos.pop(uri, None)
        if not ls.pull_diagnostics:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(identifier="lsp-count", inter_file_dependencies=False,
                                            workspace_diagnostics=False))
    async def pull(ls: LspCountServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        items = await ls.diagnostics_for(params.text_document.uri)
        return types.RelatedFullDocumentDiagnosticReport(items=items)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe(None)
    async def on_hover(ls: LspCountServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        analysis = await ls.analysis(uri)
        pos = from_lsp(analysis.lines, params.position, ls.encoding)
        hub = hub_at(analysis, pos)
        if analysis.is_python:
            # A model file's summary is on each counted class's name; a base model's on its from_pretrained.
            model = class_at(analysis, pos)
        else:
            model = model_at(analysis, pos)
        index_line = analysis.is_weights_index and (
            pos.line == 0 or "total_size" in analysis.lines.line_text(min(pos.line, analysis.lines.line_count - 1)))
        if hub is not None:
            text = hover.hub_hover(hub)
        elif index_line:
            text = hover.weights_hover(analysis)
            if model is not None:
                text += "\n\n" + hover.summary_hover(await ls.summary_for(uri, model))
        elif model is None:
            name = function_at(analysis, pos) if analysis.is_python else None
            if name is None:
                return None
            found = await ls.function_view(uri, analysis, name, pos.line)
            if isinstance(found, ModelView):
                text = hover.summary_hover(found)
            elif found.problem is not None and found.problem.code in ("LC101", "LC001"):
                text = hover.function_not_counted(name, found.problem)
            else:
                return None  # a helper that needs arguments, or returns no module: not a model function
        elif analysis.is_python or is_summary_line(analysis, model, pos.line):
            text = hover.summary_hover(await ls.summary_for(uri, model))
        else:
            ref = key_at(analysis, pos)
            if ref is None:
                return None
            # A sub-config's key shares its field with others (a vision tower's and a text model's num_layers).
            slot = (params.text_document.uri, analysis.models.index(ref.model), ref.field, ref.span.start.line)
            text = await ls._cached(ls.key_hovers, slot, ls._key(analysis), hover.key_hover, analysis, ref)
        kind = types.MarkupKind.Markdown if ls.markdown() else types.MarkupKind.PlainText
        return types.Hover(contents=types.MarkupContent(kind=kind, value=text))

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @safe(list)
    async def on_inlay_hint(ls: LspCountServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        if not ls.client_settings.inlay_hints:
            return []
        analysis = await ls.analysis(params.text_document.uri)
        return hints.inlay_hints(analysis, params.range.start.line, params.range.end.line, ls.encoding)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @safe(list)
    async def on_code_lens(ls: LspCountServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        if not ls.client_settings.code_lens:
            return []
        views = await ls.views_for(params.text_document.uri)
        return lens.code_lenses(views.analysis, views.models, ls.encoding)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @safe(list)
    async def on_code_action(ls: LspCountServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        views = await ls.views_for(params.text_document.uri)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(ls.executor, actions.quick_fixes, views.analysis, views.rules,
                                          views.models, list(params.context.diagnostics), ls.encoding)

    return server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lsp-count serve", description="Start the lsp-count language server.")
    # vscode-languageclient appends --stdio; stdio is the only transport, so it is accepted and ignored.
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (DEBUG, INFO, WARNING)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    # stdout is the protocol stream: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
                        format="lsp-count %(levelname)s %(name)s: %(message)s")
    server = create_server()
    server.start_io()
    return 0
