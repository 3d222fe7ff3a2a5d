/**
 * VS Code entry point: wires the editor to the pure modules. Logic lives in
 * controller.ts, serverCommand.ts, settings.ts and clientOptions.ts.
 */
import * as os from 'node:os';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
    DidChangeConfigurationNotification,
    LanguageClient,
    type LanguageClientOptions,
    ResponseError,
    type ServerOptions,
    TransportKind,
} from 'vscode-languageclient/node';
import { answerConfiguration, CLIENT_ID, CLIENT_NAME, DOCUMENT_SELECTOR, needsRestart, OUTPUT_CHANNEL } from './clientOptions';
import { type Host, ServerController } from './controller';
import { makeProbe } from './probe';
import { StderrClassifier } from './serverLog';
import { interpreterFromPythonApi, onInterpreterChange, PYTHON_EXTENSION_ID } from './pythonExtension';
import type { Candidate, ServerEnvironment } from './serverCommand';
import { SECTION, type ServerSettings, toServerSettings } from './settings';

let controller: ServerController | undefined;

/**
 * A LanguageClient that stays quiet while starting: the controller shows the
 * single start-failure notification (with Retry). Once running, the client's
 * own notifications (crashes, restarts) are shown as usual.
 */
class Client extends LanguageClient {
    starting = true;

    override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
        super.error(message, data, this.starting ? false : showNotification);
    }
}

function settingsFor(scope?: vscode.Uri): ServerSettings {
    const raw = vscode.workspace.getConfiguration(undefined, scope).get(SECTION);
    return toServerSettings(raw, { trusted: vscode.workspace.isTrusted });
}

function workspaceFolderPath(): string | undefined {
    return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

async function pythonApi(): Promise<unknown> {
    const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
    if (ext === undefined) {
        return undefined;
    }
    return ext.isActive ? ext.exports : await ext.activate();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const output = vscode.window.createOutputChannel(OUTPUT_CHANNEL, { log: true });
    context.subscriptions.push(output);
    let client: LanguageClient | undefined;

    const pushSettings = async (to: LanguageClient | undefined = client): Promise<void> => {
        await to?.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settingsFor() } });
    };

    // `self` yields the client these options belong to: the middleware runs
    // during start(), before that client becomes the current one.
    const clientOptions = (self: () => LanguageClient | undefined): LanguageClientOptions => ({
        documentSelector: DOCUMENT_SELECTOR.map((f) => ({ ...f })) as LanguageClientOptions['documentSelector'],
        outputChannel: output,
        traceOutputChannel: output,
        stdioOptions: {
            stdout: () => undefined, // unused: with stdio transport stdout is the protocol stream
            stderr: (input, channel) => {
                const classifier = new StderrClassifier();
                readline
                    .createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 })
                    .on('line', (line) => channel[classifier.level(line)](line));
            },
        },
        synchronize: { configurationSection: SECTION },
        initializationOptions: () => settingsFor(),
        markdown: { isTrusted: false, supportHtml: false },
        // Log initialization errors; the controller shows the one notification.
        initializationFailedHandler: (error) => {
            output.error(`Server initialization failed: ${error instanceof Error ? error.message : String(error)}`);
            return false;
        },
        middleware: {
            workspace: {
                configuration: async (params, token, next) => {
                    const defaults = await next(params, token);
                    if (defaults instanceof ResponseError) {
                        return defaults;
                    }
                    return answerConfiguration(params.items, defaults, (scopeUri) =>
                        settingsFor(scopeUri !== undefined ? vscode.Uri.parse(scopeUri) : undefined),
                    );
                },
                // Push the same normalized object the pull answers with.
                didChangeConfiguration: async (sections, next) =>
                    sections !== undefined && sections.length === 1 && sections[0] === SECTION ? pushSettings(self()) : next(sections),
            },
        },
    });

    const host: Host = {
        log: output,
        launchSettings: () => settingsFor().server,
        environment: async (): Promise<ServerEnvironment> => {
            let api: unknown;
            try {
                api = await pythonApi();
            } catch (error) {
                output.warn(`The Python extension did not activate: ${String(error)}`);
            }
            const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
            return {
                pythonExtensionInstalled: vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined,
                pythonExtensionInterpreter: api !== undefined ? await interpreterFromPythonApi(api, folder) : undefined,
                home: os.homedir(),
                workspaceFolder: workspaceFolderPath(),
                platform: process.platform,
                processEnv: process.env,
            };
        },
        probe: makeProbe({ cwd: workspaceFolderPath() }),
        startServer: async (candidate: Candidate) => {
            const serverOptions: ServerOptions = {
                command: candidate.run.command,
                args: candidate.run.args,
                transport: TransportKind.stdio,
                options: { cwd: workspaceFolderPath(), env: process.env },
            };
            let created: LanguageClient | undefined;
            const c = new Client(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions(() => created));
            created = c;
            try {
                await c.start();
            } catch (error) {
                await c.dispose().catch(() => undefined);
                throw error;
            }
            c.starting = false;
            client = c;
            return {
                stop: async () => {
                    if (client === c) {
                        client = undefined;
                    }
                    await c.dispose();
                },
            };
        },
        showError: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions),
        openSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', `@ext:lsp-count.lsp-count`),
        showOutput: () => output.show(true),
    };

    const ctl = new ServerController(host);
    controller = ctl;
    context.subscriptions.push(
        vscode.commands.registerCommand('lsp-count.restartServer', () => ctl.restart()),
        vscode.commands.registerCommand('lsp-count.showOutput', () => output.show(true)),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (needsRestart((section) => event.affectsConfiguration(section))) {
                output.info('lsp-count.server.* changed: restarting the server.');
                void ctl.restart();
            }
        }),
        vscode.workspace.onDidGrantWorkspaceTrust(() => void pushSettings()),
        { dispose: () => void ctl.dispose() },
    );

    // Follow the Python extension's interpreter when we are searching automatically.
    void pythonApi()
        .then((api) => {
            const sub = api !== undefined ? onInterpreterChange(api, () => {
                const source = ctl.current?.source;
                if (source === undefined || source === 'python-extension' || source === 'path') {
                    const launch = settingsFor().server;
                    if (launch.path === '' && launch.python === '') {
                        output.info('The Python interpreter changed: restarting the server.');
                        void ctl.restart();
                    }
                }
            }) : undefined;
            if (sub !== undefined) {
                context.subscriptions.push(sub);
            }
        })
        .catch(() => undefined);

    await ctl.start();
}

export async function deactivate(): Promise<void> {
    await controller?.dispose();
    controller = undefined;
}
