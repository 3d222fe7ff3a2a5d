/**
 * A minimal stand-in for the `vscode` module, installed into Node's module
 * resolution so that src/extension.ts (and vscode-languageclient, which it
 * imports) can be loaded outside VS Code. Unknown members resolve to inert
 * classes/functions; the members extension.ts uses record what it does.
 */
import Module = require('node:module');

export interface Recorder {
    commands: Map<string, (...args: unknown[]) => unknown>;
    executed: unknown[][];
    outputChannels: { name: string; options: unknown; lines: string[]; shown: number }[];
    errors: { message: string; actions: string[]; answer: (value: string | undefined) => void }[];
    configuration: Record<string, unknown>;
    extensions: Map<string, unknown>;
    isTrusted: boolean;
    workspaceFolders: { uri: { scheme: string; fsPath: string } }[] | undefined;
}

const disposable = () => ({ dispose() {} });

/** Any property: an inert class that is also callable. */
function inert(name: string): unknown {
    const fn = function (this: unknown) {} as unknown as Record<string, unknown>;
    Object.defineProperty(fn, 'name', { value: name });
    return new Proxy(fn, {
        get(target, prop) {
            if (prop in target) {
                return target[prop as string];
            }
            return typeof prop === 'string' ? inert(`${name}.${prop}`) : undefined;
        },
    });
}

export function createVscodeStub(rec: Recorder): unknown {
    const event = () => disposable();
    const api = {
        version: '1.91.0',
        Disposable: class {
            constructor(private readonly fn: () => void) {}
            dispose() {
                this.fn();
            }
            static from() {
                return disposable();
            }
        },
        EventEmitter: class {
            event = event;
            fire() {}
            dispose() {}
        },
        Uri: { parse: (s: string) => ({ toString: () => s, fsPath: s.replace(/^file:\/\//, ''), scheme: 'file' }) },
        window: {
            createOutputChannel(name: string, options: unknown) {
                const channel = { name, options, lines: [] as string[], shown: 0 };
                rec.outputChannels.push(channel);
                const log = (level: string) => (m: string) => channel.lines.push(`[${level}] ${m}`);
                return {
                    name,
                    logLevel: 2,
                    onDidChangeLogLevel: () => disposable(),
                    replace: () => undefined,
                    clear: () => undefined,
                    hide: () => undefined,
                    info: log('info'),
                    warn: log('warn'),
                    error: log('error'),
                    debug: log('debug'),
                    trace: log('trace'),
                    append: (m: string) => channel.lines.push(m),
                    appendLine: (m: string) => channel.lines.push(m),
                    show: () => channel.shown++,
                    dispose() {},
                };
            },
            visibleTextEditors: [],
            activeTextEditor: undefined,
            showErrorMessage(message: string, ...actions: string[]) {
                return new Promise<string | undefined>((answer) => rec.errors.push({ message, actions, answer }));
            },
        },
        commands: {
            registerCommand(id: string, fn: (...args: unknown[]) => unknown) {
                rec.commands.set(id, fn);
                return disposable();
            },
            executeCommand: async (...args: unknown[]) => {
                rec.executed.push(args);
            },
        },
        workspace: {
            get isTrusted() {
                return rec.isTrusted;
            },
            get workspaceFolders() {
                return rec.workspaceFolders;
            },
            getConfiguration(section?: string) {
                const root = section === undefined ? rec.configuration : rec.configuration[section];
                return {
                    get: (key: string, fallback?: unknown) => (root as Record<string, unknown> | undefined)?.[key] ?? fallback,
                    has: (key: string) => (root as Record<string, unknown> | undefined)?.[key] !== undefined,
                };
            },
            onDidChangeConfiguration: event,
            onDidGrantWorkspaceTrust: event,
            textDocuments: [],
            notebookDocuments: [],
        },
        extensions: {
            getExtension: (id: string) => rec.extensions.get(id),
        },
    };
    // Namespaces: unknown `onDid…` members are events, `register…` return disposables.
    const namespace = (name: string, members: Record<string, unknown>) =>
        new Proxy(members, {
            get(target, prop) {
                if (typeof prop !== 'string') {
                    return undefined;
                }
                if (prop in target) {
                    return target[prop];
                }
                if (/^on[A-Z]/.test(prop) || /^(register|create)[A-Z]/.test(prop)) {
                    return () => disposable();
                }
                return inert(`${name}.${prop}`);
            },
        });
    for (const key of ['window', 'workspace', 'commands', 'extensions', 'languages', 'env']) {
        (api as Record<string, unknown>)[key] = namespace(key, ((api as Record<string, unknown>)[key] ?? {}) as Record<string, unknown>);
    }
    return new Proxy(api as Record<string, unknown>, {
        get(target, prop) {
            if (typeof prop !== 'string') {
                return undefined;
            }
            return prop in target ? target[prop] : inert(prop);
        },
    });
}

type Resolve = (request: string, ...rest: unknown[]) => string;
const M = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const STUB_ID = '\0vscode-stub';

/** Makes `require('vscode')` return the stub; returns the function that undoes it. */
export function installVscodeStub(stub: unknown): () => void {
    const original = M._resolveFilename;
    M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
        return request === 'vscode' ? STUB_ID : original.call(this, request, ...rest);
    };
    const mod = new Module(STUB_ID);
    mod.exports = stub;
    mod.loaded = true;
    M._cache[STUB_ID] = mod;
    return () => {
        M._resolveFilename = original;
        delete M._cache[STUB_ID];
    };
}

export function newRecorder(): Recorder {
    return {
        commands: new Map(),
        executed: [],
        outputChannels: [],
        errors: [],
        configuration: { 'lsp-count': {} },
        extensions: new Map(),
        isTrusted: true,
        workspaceFolders: undefined,
    };
}
