"""Shared by the language-server end-to-end tests: client capability sets, documents, waiting."""

from __future__ import annotations

import asyncio
import pathlib
import sys
import time

from lsprotocol import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
LLAMA = ROOT / "examples" / "llama-3-8b" / "config.json"
LLAMA_TOTAL = "8,030,261,248"
SERVER = [sys.executable, "-m", "lsp_count", "serve", "--stdio"]


def vscode_like() -> types.ClientCapabilities:
    """UTF-16 (no positionEncodings), pull diagnostics, markdown hovers, configuration pull, refreshes."""
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(dynamic_registration=True),
            inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
        ),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
            inlay_hint=types.InlayHintClientCapabilities(),
            code_lens=types.CodeLensClientCapabilities(),
            diagnostic=types.DiagnosticClientCapabilities(),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix]))),
        ),
    )


def utf8_push() -> types.ClientCapabilities:
    """UTF-8 positions, push diagnostics only, no workspace/configuration (settings are pushed)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8]),
        workspace=types.WorkspaceClientCapabilities(configuration=False),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
        ),
    )


def position_of(text: str, needle: str, after: int = 0, encoding: str = "utf-16") -> types.Position:
    """LSP position of ``needle`` (+ ``after`` code points) in the given encoding."""
    index = text.index(needle) + after
    line = text.count("\n", 0, index)
    prefix = text[text.rfind("\n", 0, index) + 1:index]
    if encoding == "utf-8":
        units = len(prefix.encode("utf-8"))
    else:
        units = len(prefix.encode("utf-16-le")) // 2
    return types.Position(line=line, character=units)


def open_doc(client, uri: str, text: str, version: int = 1, language: str = "json") -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))


def change_doc(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def wait_for_diagnostics(client, uri: str, predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        items = client.diagnostics.get(uri)
        if items is not None and predicate(items):
            return items
        await asyncio.sleep(0.01)
    raise AssertionError(f"no matching diagnostics for {uri} within {timeout}s; last: {client.diagnostics.get(uri)}")


async def wait_for_log(client, needle: str, timeout: float = 30.0) -> str:
    """The first window/logMessage the server sent that contains ``needle``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = next((m.message for m in client.log_messages if needle in m.message), None)
        if found is not None:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"no log message with {needle!r} within {timeout}s; got {[m.message for m in client.log_messages]}")


# --- the tests -------------------------------------------------------------------------------

import pytest  # noqa: E402
import pytest_lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

LLAMA_TEXT = LLAMA.read_text()

# Non-ASCII (2-, 3- and 4-byte UTF-8; a surrogate pair in UTF-16) before hinted keys on the same line.
UNICODE_TEXT = (
    '{"_name_or_path": "ünï/模型-😀", "num_hidden_layers": 32, "model_type": "llama",\n'
    '  "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,\n'
    '  "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": false}\n'
)

# Half-typed: a key being written in the middle of the file.
HALF_TYPED = LLAMA_TEXT.replace('"rope_theta": 500000.0,', '"rope_th')


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / ".git").mkdir()  # the budget lookup stops at the repository root
    (root / "pyproject.toml").write_text('[tool.lsp-count]\ngpu = "RTX-4090"\nmode = "inference"\ncontext = 4096\n')
    (root / "free").mkdir()
    return root


def uri_of(path) -> str:
    return pathlib.Path(path).as_uri()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def pull_client(lsp_client: LanguageClient, workspace):
    # VS Code answers these refresh requests; the test client only answers what it is given.
    for method in (types.WORKSPACE_INLAY_HINT_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH):
        lsp_client.feature(method)(lambda *_args: None)
    lsp_client.set_configuration({"gpu": "", "mode": "inference", "dtype": "", "context": 4096, "batch": 1,
                                  "inlayHints": {"enabled": True}, "codeLens": {"enabled": True}},
                                 section="lsp-count")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=vscode_like(), root_uri=uri_of(workspace),
        workspace_folders=[types.WorkspaceFolder(uri=uri_of(workspace), name="ws")]))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def push_client(lsp_client: LanguageClient, workspace):
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=utf8_push(), root_uri=uri_of(workspace)))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


async def pulled_diagnostics(client, uri: str) -> list[types.Diagnostic]:
    """The document's diagnostics, pulled."""
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    return list(report.items)


async def the_one_fix(client, uri: str, diagnostic: types.Diagnostic) -> tuple[types.CodeAction, types.TextEdit]:
    """The single code action offered for ``diagnostic``, and its single edit."""
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    (fix,) = actions
    (edit,) = fix.edit.changes[uri]
    return fix, edit


def hover_text(hover) -> str:
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


# --- pull client (UTF-16, pull diagnostics) ----------------------------------------------------

async def test_pull_hover_model_type_has_exact_total(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "config.json")
    open_doc(pull_client, uri, LLAMA_TEXT)
    hover = await pull_client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position_of(LLAMA_TEXT, '"model_type"', 1)))
    text = hover_text(hover)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert LLAMA_TOTAL in text and "8.03B" in text
    # the breakdown table, with the layers' exact count
    assert "| layers ×32 | 6.98B | 6,979,584,000 | 86.9% |" in text


async def test_pull_hover_on_key_gives_share_and_what_ifs(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "key" / "config.json")
    open_doc(pull_client, uri, LLAMA_TEXT)
    hover = await pull_client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position_of(LLAMA_TEXT, '"num_hidden_layers"', 3)))
    text = hover_text(hover)
    assert "decoder layers" in text  # what the key means
    assert "layers (86.9% of the model)" in text and "6,979,584,000" in text
    # one more layer adds exactly one layer's parameters: 218,112,000
    assert "| +1 → `33` | +218M → 8.25B |" in text
    assert "| ×2 → `64` | +6.98B → 15.0B |" in text
    assert LLAMA_TOTAL in text


async def test_pull_hover_what_if_that_breaks_the_config(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "whatif" / "config.json")
    open_doc(pull_client, uri, LLAMA_TEXT)
    hover = await pull_client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position_of(LLAMA_TEXT, '"hidden_size"', 3)))
    text = hover_text(hover)
    # 4097 is not divisible by 32 heads: the recount says why instead of inventing a number
    assert "+1 → `4097` | not countable" in text


async def test_pull_diagnostics_clean_config_has_none(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "clean" / "config.json")
    open_doc(pull_client, uri, LLAMA_TEXT)
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert list(report.items) == []
    assert uri not in pull_client.diagnostics  # pull client: nothing pushed


async def test_pull_unicode_hints_in_utf16(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "unicode.json")
    open_doc(pull_client, uri, UNICODE_TEXT)
    hints = await pull_client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=3, character=0))))
    by_label = {h.label: h.position for h in hints}
    assert by_label["▸ 6.98B in layers"] == position_of(UNICODE_TEXT, '"num_hidden_layers": 32', 23, "utf-16")
    assert by_label["▸ 8.03B params"] == position_of(UNICODE_TEXT, '"model_type": "llama"', 21, "utf-16")
    assert by_label["▸ 525M embed + 525M head"] == position_of(UNICODE_TEXT, '"vocab_size": 128256', 20, "utf-16")


async def test_pull_half_typed_file_gets_hints_and_a_syntax_error(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "half" / "config.json")
    open_doc(pull_client, uri, HALF_TYPED)
    hints = await pull_client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=40, character=0))))
    labels = [h.label for h in hints]
    assert "▸ 6.98B in layers" in labels and "▸ 8.03B params" in labels
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    syntax = [d for d in report.items if d.code == "LC001"]
    assert syntax and syntax[0].severity == types.DiagnosticSeverity.Error
    assert syntax[0].range.start.line == HALF_TYPED[:HALF_TYPED.index('"rope_th')].count("\n")


async def test_pull_settings_turn_hints_off_and_on(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "settings" / "config.json")
    open_doc(pull_client, uri, LLAMA_TEXT)
    params = types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri),
                                   range=types.Range(start=types.Position(line=0, character=0),
                                                     end=types.Position(line=40, character=0)))
    base = {"gpu": "", "mode": "inference", "dtype": "", "context": 4096, "batch": 1,
            "codeLens": {"enabled": True}}
    pull_client.set_configuration({**base, "inlayHints": {"enabled": False}}, section="lsp-count")
    pull_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(200):
        if not await pull_client.text_document_inlay_hint_async(params):
            break
        await asyncio.sleep(0.01)
    assert not await pull_client.text_document_inlay_hint_async(params)
    pull_client.set_configuration({**base, "inlayHints": {"enabled": True}}, section="lsp-count")
    pull_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(200):
        if await pull_client.text_document_inlay_hint_async(params):
            break
        await asyncio.sleep(0.01)
    assert await pull_client.text_document_inlay_hint_async(params)


async def test_pull_unknown_model_type_is_info(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "unknown.json")
    open_doc(pull_client, uri, '{"model_type": "no-such-model", "hidden_size": 64}')
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in report.items] == ["LC101"]
    assert report.items[0].severity == types.DiagnosticSeverity.Information


async def test_pull_hostile_documents_never_fail_a_request(pull_client: LanguageClient, workspace):
    docs = {
        "deep.json": "[" * 100_000,
        "nul.json": '{"model_type": "llama", "x": "\x00\x00"}',
        "huge-number.json": '{"model_type": "llama", "hidden_size": 1' + "0" * 5000 + "}",
        "surrogate.json": '{"model_type": "llama", "_c": "\\ud800", "num_hidden_layers": -1}',
        "not-object.json": '"just a string"',
        "empty.json": "",
    }
    for name, text in docs.items():
        uri = uri_of(workspace / "free" / name)
        open_doc(pull_client, uri, text)
        ident = types.TextDocumentIdentifier(uri=uri)
        await pull_client.text_document_hover_async(types.HoverParams(
            text_document=ident, position=types.Position(line=0, character=3)))
        await pull_client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=ident, range=types.Range(start=types.Position(line=0, character=0),
                                                   end=types.Position(line=5, character=0))))
        await pull_client.text_document_code_lens_async(types.CodeLensParams(text_document=ident))
        report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=ident))
        assert isinstance(report.items, (list, tuple))


async def test_pull_file_over_5_mb_gets_one_info_diagnostic(pull_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "big.json")
    text = '{"model_type": "llama", "pad": "' + "x" * (5 * 1024 * 1024) + '"}'
    open_doc(pull_client, uri, text)
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert len(report.items) == 1
    assert report.items[0].severity == types.DiagnosticSeverity.Information and report.items[0].code == "LC003"


# --- push client (UTF-8, push diagnostics, pushed settings) -----------------------------------

async def test_push_hover_and_unicode_hints_in_utf8(push_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "unicode8.json")
    open_doc(push_client, uri, UNICODE_TEXT)
    hints = await push_client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=3, character=0))))
    by_label = {h.label: h.position for h in hints}
    expected = position_of(UNICODE_TEXT, '"num_hidden_layers": 32', 23, "utf-8")
    assert by_label["▸ 6.98B in layers"] == expected
    assert expected != position_of(UNICODE_TEXT, '"num_hidden_layers": 32', 23, "utf-16")  # the test can tell them apart
    # hover addressed in UTF-8 units lands on the key after the non-ASCII text
    hover = await push_client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position_of(UNICODE_TEXT, '"intermediate_size"', 2, "utf-8")))
    assert "`intermediate_size`" in hover_text(hover)


async def test_push_syntax_error_pushed_with_range_then_cleared(push_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "edit.json")
    open_doc(push_client, uri, LLAMA_TEXT)
    await wait_for_diagnostics(push_client, uri, lambda items: list(items) == [])
    change_doc(push_client, uri, HALF_TYPED, 2)
    items = await wait_for_diagnostics(push_client, uri, lambda items: any(d.code == "LC001" for d in items))
    line = HALF_TYPED[:HALF_TYPED.index('"rope_th')].count("\n")
    assert any(d.code == "LC001" and d.range.start.line == line for d in items)
    change_doc(push_client, uri, LLAMA_TEXT, 3)
    await wait_for_diagnostics(push_client, uri, lambda items: list(items) == [])


async def test_push_inconsistent_config_is_an_error_on_its_key(push_client: LanguageClient, workspace):
    """24 heads do not divide Llama's 4,096 width, with no head_dim: LlamaConfig refuses it."""
    uri = uri_of(workspace / "free" / "bad-heads.json")
    text = LLAMA_TEXT.replace('"num_attention_heads": 32', '"num_attention_heads": 24')
    open_doc(push_client, uri, text)
    items = await wait_for_diagnostics(push_client, uri, lambda items: any(d.code == "LC103" for d in items))
    bad = next(d for d in items if d.code == "LC103")
    assert bad.severity == types.DiagnosticSeverity.Error and "does not divide hidden_size" in bad.message
    assert bad.range.start == position_of(text, '"num_attention_heads"', 0, "utf-8")


async def test_push_settings_pushed_turn_code_lens_off(push_client: LanguageClient, workspace):
    uri = uri_of(workspace / "free" / "lens.json")
    open_doc(push_client, uri, LLAMA_TEXT)
    ident = types.TextDocumentIdentifier(uri=uri)
    push_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"lsp-count": {"codeLens": {"enabled": False}}}))
    for _ in range(200):
        if not await push_client.text_document_code_lens_async(types.CodeLensParams(text_document=ident)):
            break
        await asyncio.sleep(0.01)
    assert not await push_client.text_document_code_lens_async(types.CodeLensParams(text_document=ident))
    push_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"lsp-count": {"codeLens": {"enabled": True}}}))
    for _ in range(200):
        if await push_client.text_document_code_lens_async(types.CodeLensParams(text_document=ident)):
            break
        await asyncio.sleep(0.01)
    lenses = await push_client.text_document_code_lens_async(types.CodeLensParams(text_document=ident))
    assert lenses[0].command.title.startswith("8.03B params")
    assert lenses[0].range.start.line == 0


async def test_push_budget_error_names_gpu_and_quick_fix_fits(push_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("budget")
    (root / ".git").mkdir()
    budget = root / "pyproject.toml"
    budget.write_text('[tool.lsp-count]\ngpu = "T4"\nmode = "inference"\ncontext = 4096\n')
    uri = uri_of(root / "llama" / "config.json")
    (root / "llama").mkdir()
    open_doc(push_client, uri, LLAMA_TEXT)
    items = await wait_for_diagnostics(push_client, uri, lambda items: any(d.code == "LC201" for d in items))
    over = next(d for d in items if d.code == "LC201")
    assert over.severity == types.DiagnosticSeverity.Error and "T4" in over.message
    # on the key that drives the model's size
    assert over.range.start == position_of(LLAMA_TEXT, '"num_hidden_layers"', 0, "utf-8")
    actions = await push_client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=over.range,
        context=types.CodeActionContext(diagnostics=[over])))
    layer_fix = next(a for a in actions if "num_hidden_layers" in a.title)
    edit = layer_fix.edit.changes[uri][0]
    fixed_layers = int(edit.new_text)
    assert 1 <= fixed_layers < 32
    # Applying the fix clears the error; one more layer than offered would not have.
    line = LLAMA_TEXT.splitlines()[edit.range.start.line]
    fixed = LLAMA_TEXT.replace(line, line[:edit.range.start.character] + str(fixed_layers)
                               + line[edit.range.end.character:])
    change_doc(push_client, uri, fixed, 2)
    await wait_for_diagnostics(push_client, uri, lambda items: not any(d.code == "LC201" for d in items))
    change_doc(push_client, uri, fixed.replace(f'"num_hidden_layers": {fixed_layers}',
                                               f'"num_hidden_layers": {fixed_layers + 1}'), 3)
    await wait_for_diagnostics(push_client, uri, lambda items: any(d.code == "LC201" for d in items))
    # The team moves to a bigger GPU: the budget file changes and the error goes without an edit.
    budget.write_text('[tool.lsp-count]\ngpu = "H100-80GB-SXM"\nmode = "inference"\ncontext = 4096\n')
    push_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri_of(budget), type=types.FileChangeType.Changed)]))
    await wait_for_diagnostics(push_client, uri, lambda items: list(items) == [])
    lenses = await push_client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert "fits H100-80GB-SXM ✓" in lenses[0].command.title


async def test_pull_a_size_written_as_a_float_is_an_error_with_a_fix_that_writes_the_whole_number(
        pull_client: LanguageClient, workspace):
    """transformers 5 refuses "hidden_size": 4096.0; the quick fix writes 4096, after a UTF-16 surrogate pair."""
    uri = uri_of(workspace / "float" / "config.json")
    text = UNICODE_TEXT.replace('"hidden_size": 4096', '"hidden_size": 4096.0')
    open_doc(pull_client, uri, text)
    (error,) = [d for d in await pulled_diagnostics(pull_client, uri) if d.severity == types.DiagnosticSeverity.Error]
    assert error.code == "LC102" and "got 4096.0" in error.message and "(write 4096)" in error.message
    assert error.range.start == position_of(text, "4096.0") and error.range.end == position_of(text, "4096.0", 6)
    fix, edit = await the_one_fix(pull_client, uri, error)
    assert fix.title.startswith("Write 4096") and fix.is_preferred
    assert edit.range == error.range and edit.new_text == "4096"
    change_doc(pull_client, uri, text.replace("4096.0", "4096"), 2)
    assert not [d for d in await pulled_diagnostics(pull_client, uri) if d.severity == types.DiagnosticSeverity.Error]


async def test_pull_key_value_heads_that_do_not_divide_the_query_heads_are_a_warning_with_a_fix(
        pull_client: LanguageClient, workspace):
    """5 key/value heads for 32 query heads (after a UTF-16 surrogate pair): transformers builds the model, which is
    counted, with a warning on the key; the quick fix writes 4, the most that divide 32, over the value."""
    uri = uri_of(workspace / "kv" / "config.json")
    text = UNICODE_TEXT.replace('"num_key_value_heads": 8', '"num_key_value_heads": 5')
    open_doc(pull_client, uri, text)
    (warning,) = [d for d in await pulled_diagnostics(pull_client, uri) if d.code == "LC103"]
    assert warning.severity == types.DiagnosticSeverity.Warning and "transformers builds the model" in warning.message
    assert warning.range.start == position_of(text, '"num_key_value_heads"')
    fix, edit = await the_one_fix(pull_client, uri, warning)
    assert fix.title == "Write 4 (divides the 32 query heads)" and fix.is_preferred
    assert edit.range.start == position_of(text, '5, "vocab_size"') and edit.new_text == "4"
    assert edit.range.end == position_of(text, '5, "vocab_size"', 1)
    change_doc(pull_client, uri, text.replace('"num_key_value_heads": 5', '"num_key_value_heads": 4'), 2)
    assert not [d for d in await pulled_diagnostics(pull_client, uri) if d.code == "LC103"]


async def test_pull_a_misspelt_key_is_a_warning_with_a_fix_that_renames_it(pull_client: LanguageClient, workspace):
    """"num_hiden_layers" (after a UTF-16 surrogate pair) is a slip for the absent "num_hidden_layers":
    the warning says the depth used instead, the quick fix renames the key, and the slip is gone."""
    uri = uri_of(workspace / "misspelt" / "config.json")
    text = UNICODE_TEXT.replace('"num_hidden_layers": 32', '"num_hiden_layers": 16')
    open_doc(pull_client, uri, text)
    (slip,) = [d for d in await pulled_diagnostics(pull_client, uri) if d.code == "LC107"]
    assert slip.severity == types.DiagnosticSeverity.Warning
    assert slip.message == ('"num_hiden_layers" is not a key the llama config reads: did you mean '
                            '"num_hidden_layers"? (not written, so num_hidden_layers is 32)')
    assert slip.range.start == position_of(text, '"num_hiden_layers"')
    assert slip.range.end == position_of(text, '"num_hiden_layers"', 18)
    fix, edit = await the_one_fix(pull_client, uri, slip)
    assert fix.title == "Rename to num_hidden_layers" and fix.is_preferred
    assert edit.range == slip.range and edit.new_text == '"num_hidden_layers"'
    change_doc(pull_client, uri, text.replace('"num_hiden_layers"', '"num_hidden_layers"'), 2)
    assert not [d for d in await pulled_diagnostics(pull_client, uri) if d.code == "LC107"]
