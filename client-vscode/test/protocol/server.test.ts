/**
 * Protocol-level test: drives the real `lsp-count serve --stdio` through
 * vscode-languageserver-protocol (the JSON-RPC stack VS Code's client uses),
 * with the capabilities VS Code sends.
 *
 * Server lookup: $LSP_COUNT_SERVER (path of the `lsp-count` executable), else
 * ../.venv/bin/lsp-count (relative to client-vscode), else `lsp-count` on PATH.
 * The test is skipped ONLY when none of these exists; a server that exists but
 * misbehaves fails it.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
    type ClientCapabilities,
    CodeLensRefreshRequest,
    ConfigurationRequest,
    DiagnosticRefreshRequest,
    InlayHintRefreshRequest,
    RegistrationRequest,
    SemanticTokensRefreshRequest,
    ShowMessageRequest,
    UnregistrationRequest,
    WorkDoneProgressCreateRequest,
    createProtocolConnection,
    DidOpenTextDocumentNotification,
    ExitNotification,
    HoverRequest,
    InitializedNotification,
    InitializeRequest,
    type MarkupContent,
    type MarkedString,
    type ProtocolConnection,
    ShutdownRequest,
    StreamMessageReader,
    StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { DEFAULT_SETTINGS } from '../../src/settings';

const CLIENT_DIR = path.resolve(__dirname, '..', '..', '..');
const FIXTURE = path.join(CLIENT_DIR, 'test', 'fixtures', 'config.json');
const TIMEOUT_MS = 60_000;
const isWindows = process.platform === 'win32';

function isExecutable(file: string): boolean {
    try {
        accessSync(file, isWindows ? constants.F_OK : constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/** Where the server executable is, and how it was found; undefined when there is none. */
export function findServer(env: NodeJS.ProcessEnv = process.env): { command: string; how: string } | undefined {
    const fromEnv = env.LSP_COUNT_SERVER?.trim();
    if (fromEnv) {
        // An explicit path that does not exist is an error, not a reason to skip.
        return { command: path.resolve(fromEnv), how: '$LSP_COUNT_SERVER' };
    }
    const venv = isWindows
        ? path.resolve(CLIENT_DIR, '..', '.venv', 'Scripts', 'lsp-count.exe')
        : path.resolve(CLIENT_DIR, '..', '.venv', 'bin', 'lsp-count');
    if (isExecutable(venv)) {
        return { command: venv, how: '../.venv' };
    }
    const names = isWindows ? ['lsp-count.exe', 'lsp-count.cmd'] : ['lsp-count'];
    for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
        for (const name of names) {
            const candidate = path.join(dir, name);
            if (isExecutable(candidate)) {
                return { command: candidate, how: 'PATH' };
            }
        }
    }
    return undefined;
}

/** What VS Code (1.91+, vscode-languageclient 11) announces for the features this test touches. */
const VSCODE_CAPABILITIES: ClientCapabilities = {
    general: {
        staleRequestSupport: { cancel: true, retryOnContentModified: ['textDocument/semanticTokens/full'] },
        regularExpressions: { engine: 'ECMAScript', version: 'ES2020' },
        markdown: { parser: 'marked', version: '1.1.0' },
        // positionEncodings absent: UTF-16.
    },
    window: {
        workDoneProgress: true,
        showMessage: { messageActionItem: { additionalPropertiesSupport: true } },
        showDocument: { support: true },
    },
    workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], failureHandling: 'textOnlyTransactional' },
        didChangeConfiguration: { dynamicRegistration: true },
        didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
        symbol: { dynamicRegistration: true },
        executeCommand: { dynamicRegistration: true },
        configuration: true,
        workspaceFolders: true,
        semanticTokens: { refreshSupport: true },
        codeLens: { refreshSupport: true },
        inlayHint: { refreshSupport: true },
        inlineValue: { refreshSupport: true },
        diagnostics: { refreshSupport: true },
        fileOperations: { dynamicRegistration: true },
    },
    textDocument: {
        synchronization: { dynamicRegistration: true, willSave: true, willSaveWaitUntil: true, didSave: true },
        publishDiagnostics: {
            relatedInformation: true,
            versionSupport: false,
            tagSupport: { valueSet: [1, 2] },
            codeDescriptionSupport: true,
            dataSupport: true,
        },
        hover: { dynamicRegistration: true, contentFormat: ['markdown', 'plaintext'] },
        codeAction: {
            dynamicRegistration: true,
            isPreferredSupport: true,
            disabledSupport: true,
            dataSupport: true,
            resolveSupport: { properties: ['edit'] },
            codeActionLiteralSupport: {
                codeActionKind: {
                    valueSet: ['', 'quickfix', 'refactor', 'refactor.extract', 'refactor.inline', 'refactor.rewrite', 'source', 'source.organizeImports'],
                },
            },
            honorsChangeAnnotations: true,
        },
        codeLens: { dynamicRegistration: true },
        inlayHint: {
            dynamicRegistration: true,
            resolveSupport: { properties: ['tooltip', 'textEdits', 'label.tooltip', 'label.location', 'label.command'] },
        },
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
        documentSymbol: { dynamicRegistration: true, hierarchicalDocumentSymbolSupport: true, labelSupport: true },
    },
};

function hoverText(contents: MarkupContent | MarkedString | MarkedString[]): { text: string; kind: string } {
    if (typeof contents === 'string') {
        return { text: contents, kind: 'markedstring' };
    }
    if (Array.isArray(contents)) {
        return { text: contents.map((c) => (typeof c === 'string' ? c : c.value)).join('\n'), kind: 'markedstring' };
    }
    if ('kind' in contents) {
        return { text: contents.value, kind: contents.kind };
    }
    return { text: contents.value, kind: 'markedstring' };
}

/** Rejects when the server process dies before we asked it to exit. */
let serverDied: Promise<never> = new Promise(() => undefined);

function withTimeout<T>(promise: Thenable<T> | Promise<T>, what: string, ms = TIMEOUT_MS, orDeath = true): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const racers: Promise<T>[] = [
        Promise.resolve(promise).finally(() => clearTimeout(timer)),
        new Promise<T>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
        }),
    ];
    if (orDeath) {
        racers.push(serverDied.finally(() => clearTimeout(timer)));
    }
    return Promise.race(racers);
}

/** UTF-16 position (LSP default) of the first occurrence of `needle`, plus `offset` code units. */
function positionOf(text: string, needle: string, offset = 0): { line: number; character: number } {
    const index = text.indexOf(needle);
    assert.ok(index >= 0, `${needle} not in the fixture`);
    const before = text.slice(0, index + offset);
    const line = before.split('\n').length - 1;
    return { line, character: before.length - (before.lastIndexOf('\n') + 1) };
}

const server = findServer();
const skip = server === undefined
    ? 'no lsp-count server executable found: set LSP_COUNT_SERVER to the `lsp-count` executable, ' +
      'or install the server into ../.venv (`python -m venv .venv && .venv/bin/pip install -e .` at the repository root), ' +
      'or put `lsp-count` on PATH'
    : false;

if (skip) {
    // A skipped test (not just a skipped suite) so that the summary counts it.
    it('lsp-count serve --stdio (protocol)', { skip }, () => undefined);
    console.warn(`protocol test skipped: ${skip}`);
}

describe('lsp-count serve --stdio (protocol)', { skip }, () => {
    let child: ChildProcessWithoutNullStreams;
    let connection: ProtocolConnection;
    let stderr = '';
    let exited: Promise<number | null>;
    const configurationRequests: unknown[] = [];
    const notifications: { method: string; params: unknown }[] = [];

    const context = (): string => `\n--- server: ${server?.command} (${server?.how})\n--- server stderr (tail):\n${stderr.slice(-4000)}`;

    before(async () => {
        assert.ok(server !== undefined);
        child = spawn(server.command, ['serve', '--stdio'], { cwd: CLIENT_DIR, env: process.env, stdio: 'pipe' });
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
            stderr += chunk;
        });
        const spawned = new Promise<void>((resolve, reject) => {
            child.once('spawn', () => resolve());
            child.once('error', (error) => reject(new Error(`cannot start ${server.command}: ${error.message}`)));
        });
        exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
        serverDied = exited.then((code) => {
            throw new Error(`the server exited (code ${code}) before it was asked to`);
        });
        serverDied.catch(() => undefined);
        await spawned;
        connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
        connection.onRequest(ConfigurationRequest.type, (params) => {
            configurationRequests.push(params);
            return params.items.map((item) => (item.section === 'lsp-count' ? DEFAULT_SETTINGS : null));
        });
        // What VS Code answers with null / void.
        for (const type of [
            RegistrationRequest.type,
            UnregistrationRequest.type,
            WorkDoneProgressCreateRequest.type,
            InlayHintRefreshRequest.type,
            CodeLensRefreshRequest.type,
            DiagnosticRefreshRequest.type,
            SemanticTokensRefreshRequest.type,
            ShowMessageRequest.type,
        ] as const) {
            connection.onRequest(type.method, () => null);
        }
        connection.onUnhandledNotification((message) => {
            notifications.push({ method: message.method, params: message.params });
        });
        connection.onError(([error]) => {
            stderr += `\n[client] connection error: ${error.message}`;
        });
        connection.listen();

        const rootUri = pathToFileURL(path.dirname(FIXTURE)).href;
        const result = await withTimeout(
            connection.sendRequest(InitializeRequest.type, {
                processId: process.pid,
                clientInfo: { name: 'Visual Studio Code', version: '1.91.0' },
                locale: 'en',
                rootPath: path.dirname(FIXTURE),
                rootUri,
                capabilities: VSCODE_CAPABILITIES,
                initializationOptions: DEFAULT_SETTINGS,
                trace: 'off',
                workspaceFolders: [{ uri: rootUri, name: 'fixtures' }],
            }),
            'initialize',
        ).catch((error: Error) => assert.fail(`initialize failed: ${error.message}${context()}`));
        assert.ok(result.capabilities.hoverProvider, `the server does not announce hoverProvider${context()}`);
        const encoding = result.capabilities.positionEncoding;
        assert.ok(encoding === undefined || encoding === 'utf-16', `server chose ${encoding}, but VS Code only speaks utf-16`);
        await connection.sendNotification(InitializedNotification.type, {});
    });

    after(async () => {
        if (connection !== undefined) {
            connection.dispose();
        }
        if (child !== undefined && child.exitCode === null) {
            child.kill();
        }
    });

    it('hovers the exact parameter count of Meta-Llama-3-8B on "model_type"', async () => {
        const text = readFileSync(FIXTURE, 'utf8');
        const uri = pathToFileURL(FIXTURE).href;
        await connection.sendNotification(DidOpenTextDocumentNotification.type, {
            textDocument: { uri, languageId: 'json', version: 1, text },
        });
        const position = positionOf(text, '"model_type"', 1);
        const hover = await withTimeout(
            connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position }),
            'textDocument/hover',
        ).catch((error: Error) => assert.fail(`hover failed: ${error.message}${context()}`));
        assert.ok(hover !== null, `no hover at ${JSON.stringify(position)} ("model_type")${context()}`);
        const { text: markdown, kind } = hoverText(hover.contents);
        assert.equal(kind, 'markdown', `hover is ${kind}, expected markdown (the client accepts markdown first)`);
        assert.ok(markdown.includes('8,030,261,248'), `hover does not contain 8,030,261,248:\n${markdown}${context()}`);
    });

    it('shuts down and exits cleanly', async () => {
        await withTimeout(connection.sendRequest(ShutdownRequest.type), 'shutdown').catch((error: Error) =>
            assert.fail(`shutdown failed: ${error.message}${context()}`),
        );
        await connection.sendNotification(ExitNotification.type);
        const code = await withTimeout(exited, 'exit', 10_000, false).catch((error: Error) => assert.fail(`${error.message}${context()}`));
        assert.equal(code, 0, `exit code ${code}${context()}`);
    });
});
