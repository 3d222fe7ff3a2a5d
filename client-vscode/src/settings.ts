/**
 * The extension's settings, and the object the server receives.
 *
 * Pure: no `vscode` import. The server pulls `workspace/configuration` with
 * section `lsp-count` (and receives pushed `workspace/didChangeConfiguration`
 * and `initializationOptions`); in every case it gets the object built by
 * {@link toServerSettings}, so the three paths agree.
 */

export const SECTION = 'lsp-count';

export const MODES = ['inference', 'train', 'lora', 'qlora'] as const;
export type Mode = (typeof MODES)[number];

/** Weight precisions the server understands. `''` means "the config's own dtype". */
export const DTYPES = [
    'float32',
    'bfloat16',
    'float16',
    'float8',
    'int8',
    'nf4',
    'nf4-dq',
    'gptq-4bit',
    'awq-4bit',
    'gguf-q8_0',
    'gguf-q4_k_m',
] as const;
export type Dtype = (typeof DTYPES)[number];

export const TRACE_LEVELS = ['off', 'messages', 'verbose'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

export interface ServerLaunchSettings {
    /** Executable started as `<path> serve`. Empty: not set. */
    path: string;
    /** Interpreter started as `<python> -m lsp_count serve`. Empty: not set. */
    python: string;
}

/** Exactly what the server receives for section `lsp-count`. */
export interface ServerSettings {
    gpu: string;
    mode: Mode;
    dtype: Dtype | '';
    context: number;
    batch: number;
    inlayHints: { enabled: boolean };
    codeLens: { enabled: boolean };
    execute: boolean;
    server: ServerLaunchSettings;
    trace: { server: TraceLevel };
}

export const DEFAULT_SETTINGS: Readonly<ServerSettings> = Object.freeze<ServerSettings>({
    gpu: '',
    mode: 'inference',
    dtype: '',
    context: 4096,
    batch: 1,
    inlayHints: { enabled: true },
    codeLens: { enabled: true },
    execute: false,
    server: { path: '', python: '' },
    trace: { server: 'off' },
});

export interface SettingsContext {
    /** `vscode.workspace.isTrusted`. Executing workspace code needs a trusted workspace. */
    trusted: boolean;
}

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `a.b` either nested (`{a: {b}}`, what VS Code returns) or flat (`{"a.b": ...}`). */
function lookup(raw: Dict, dotted: string): unknown {
    if (Object.prototype.hasOwnProperty.call(raw, dotted)) {
        return raw[dotted];
    }
    let current: unknown = raw;
    for (const part of dotted.split('.')) {
        if (!isDict(current)) {
            return undefined;
        }
        current = current[part];
    }
    return current;
}

function str(value: unknown, fallback: string): string {
    return typeof value === 'string' ? value.trim() : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
    return typeof value === 'boolean' ? value : fallback;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
    if (typeof value !== 'string') {
        return fallback;
    }
    const v = value.trim();
    return (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

/** A positive integer; numeric strings are accepted, anything else falls back. */
function positiveInt(value: unknown, fallback: number): number {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) {
        return fallback;
    }
    const i = Math.floor(n);
    return i >= 1 ? i : fallback;
}

/**
 * Maps the raw `lsp-count` configuration object (as VS Code's
 * `workspace.getConfiguration().get('lsp-count')` returns it) to the
 * object the server receives: every key present, invalid values replaced by
 * their defaults, and `execute` forced off in an untrusted workspace.
 */
export function toServerSettings(raw: unknown, context: SettingsContext): ServerSettings {
    const r: Dict = isDict(raw) ? raw : {};
    const d = DEFAULT_SETTINGS;
    const dtype = lookup(r, 'dtype');
    return {
        gpu: str(lookup(r, 'gpu'), d.gpu),
        mode: oneOf(lookup(r, 'mode'), MODES, d.mode),
        dtype: typeof dtype === 'string' && dtype.trim() === '' ? '' : oneOf<Dtype | ''>(dtype, DTYPES, d.dtype),
        context: positiveInt(lookup(r, 'context'), d.context),
        batch: positiveInt(lookup(r, 'batch'), d.batch),
        inlayHints: { enabled: bool(lookup(r, 'inlayHints.enabled'), d.inlayHints.enabled) },
        codeLens: { enabled: bool(lookup(r, 'codeLens.enabled'), d.codeLens.enabled) },
        execute: context.trusted && bool(lookup(r, 'execute'), d.execute),
        server: {
            path: str(lookup(r, 'server.path'), d.server.path),
            python: str(lookup(r, 'server.python'), d.server.python),
        },
        trace: { server: oneOf(lookup(r, 'trace.server'), TRACE_LEVELS, d.trace.server) },
    };
}

/** Settings whose change needs a new server process (the rest are pushed live). */
export const RESTART_KEYS = ['server.path', 'server.python'] as const;
