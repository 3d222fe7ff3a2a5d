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

/** Weight precisions the server understands. The setting's `''` means "not set" (workspace budget, else the config's own dtype). */
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

/**
 * Exactly what the server receives for section `lsp-count`.
 *
 * The budget keys (`gpu`, `mode`, `dtype`, `context`, `batch`) are optional:
 * a key the user has not set (VS Code reports its manifest default, `""` or
 * `null`) or has set to an invalid value is left out, and the server treats a
 * missing key as "not overridden", i.e. it uses the workspace budget
 * (`[tool.lsp-count]` in `pyproject.toml`), else its own default.
 */
export interface ServerSettings {
    gpu?: string;
    mode?: Mode;
    dtype?: Dtype;
    context?: number;
    batch?: number;
    /** Python model files: the installed packages read where a file imports them (`[]`: none). */
    readPackages?: string[];
    /** Python model files: the site-packages directories those packages are read from. */
    sitePackages?: string[];
    inlayHints: { enabled: boolean };
    codeLens: { enabled: boolean };
    execute: boolean;
    server: ServerLaunchSettings;
    trace: { server: TraceLevel };
}

/**
 * The keys the user may override (the budget's, and the installed packages Python model files
 * read, which default to the budget file's `read-packages` / `site-packages`); omitted from
 * {@link ServerSettings} when unset.
 */
export const OVERRIDE_KEYS = ['gpu', 'mode', 'dtype', 'context', 'batch', 'readPackages', 'sitePackages'] as const;
export type OverrideKey = (typeof OVERRIDE_KEYS)[number];

/** What the server receives when nothing is set: no overrides, the rest at their defaults. */
export const DEFAULT_SETTINGS: Readonly<ServerSettings> = Object.freeze<ServerSettings>({
    inlayHints: { enabled: true },
    codeLens: { enabled: true },
    execute: false,
    server: { path: '', python: '' },
    trace: { server: 'off' },
});

/**
 * The manifest defaults of the override keys: what VS Code reports for a
 * setting the user never set. Each means "not set".
 */
export const UNSET_DEFAULTS: Readonly<Record<OverrideKey, string | null>> = Object.freeze({
    gpu: '',
    mode: '',
    dtype: '',
    context: null,
    batch: null,
    readPackages: null,
    sitePackages: null,
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
    return optionalOneOf(value, allowed) ?? fallback;
}

/** A non-empty string (trimmed); anything else (unset, `""`, not a string) is undefined. */
function optionalStr(value: unknown): string | undefined {
    const v = typeof value === 'string' ? value.trim() : '';
    return v === '' ? undefined : v;
}

/** One of `allowed`; anything else (unset, `""`, unknown) is undefined. */
function optionalOneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
    const v = optionalStr(value);
    return v !== undefined && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
}

/**
 * A positive integer (numeric strings such as `"8192"` are accepted); anything
 * else (unset, `null`, `""`, 0, negative, fractional, not a number) is undefined.
 */
function optionalPositiveInt(value: unknown): number | undefined {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/**
 * A list of non-empty strings (trimmed), each a top-level package name where `names`; anything
 * else (unset, `null`, not a list, a wrong entry) is undefined. `[]` is kept: it reads none.
 */
function optionalList(value: unknown, names: boolean): string[] | undefined {
    if (!Array.isArray(value)) {
        return undefined;
    }
    const items = value.map((v) => (typeof v === 'string' ? v.trim() : ''));
    const valid = items.every((v) => v !== '' && (!names || /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)));
    return valid ? items : undefined;
}

/**
 * Maps the raw `lsp-count` configuration object (as VS Code's
 * `workspace.getConfiguration().get('lsp-count')` returns it) to the
 * object the server receives. The budget overrides (`gpu`, `mode`, `dtype`,
 * `context`, `batch`) are present only when set to a valid value, so that an
 * unset setting never overrides the workspace budget; the other keys are
 * always present, invalid values replaced by their defaults, and `execute`
 * forced off in an untrusted workspace.
 */
export function toServerSettings(raw: unknown, context: SettingsContext): ServerSettings {
    const r: Dict = isDict(raw) ? raw : {};
    const d = DEFAULT_SETTINGS;
    const overrides: Partial<Pick<ServerSettings, OverrideKey>> = {
        gpu: optionalStr(lookup(r, 'gpu')),
        mode: optionalOneOf(lookup(r, 'mode'), MODES),
        dtype: optionalOneOf(lookup(r, 'dtype'), DTYPES),
        context: optionalPositiveInt(lookup(r, 'context')),
        batch: optionalPositiveInt(lookup(r, 'batch')),
        readPackages: optionalList(lookup(r, 'readPackages'), true),
        sitePackages: optionalList(lookup(r, 'sitePackages'), false),
    };
    const settings: Record<string, unknown> = {};
    for (const key of OVERRIDE_KEYS) {
        if (overrides[key] !== undefined) {
            settings[key] = overrides[key];
        }
    }
    return {
        ...settings,
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
