/**
 * Choosing how to start the lsp-count language server, and explaining why
 * nothing worked. Pure: no `vscode` import, the environment is passed in.
 *
 * Order:
 *  1. `lsp-count.server.path`   → `<path> serve`            (exclusive when set)
 *  2. `lsp-count.server.python` → `<python> -m lsp_count serve` (exclusive when set)
 *  3. the Python extension's active interpreter → `<python> -m lsp_count serve`
 *  4. `lsp-count` on PATH       → `lsp-count serve`
 *
 * An explicit setting is exclusive: when the user names a server we start that
 * one or report why it failed, never silently something else.
 *
 * The arguments never include `--stdio`: vscode-languageclient appends it
 * for `TransportKind.stdio`.
 */
import type { ServerLaunchSettings } from './settings';

export interface ServerCommand {
    command: string;
    args: string[];
}

export type CandidateSource = 'server.path' | 'server.python' | 'python-extension' | 'path';

export interface Candidate {
    source: CandidateSource;
    /** Human-readable origin, e.g. "setting lsp-count.server.path". */
    origin: string;
    /** The command that starts the server (without `--stdio`). */
    run: ServerCommand;
    /** A quick command that exits 0 when `run` will work. */
    probe: ServerCommand;
}

export interface ServerEnvironment {
    /** Whether the ms-python extension is installed. */
    pythonExtensionInstalled: boolean;
    /**
     * The Python extension's active interpreter as an argv prefix
     * (usually `[path]`, sometimes `['conda', 'run', '-n', 'env', 'python']`).
     * Undefined when the extension is absent or has no interpreter selected.
     */
    pythonExtensionInterpreter?: readonly string[];
    /** Used to expand `~` and `${userHome}` in settings. */
    home?: string;
    /** Used to expand `${workspaceFolder}` and to resolve relative paths. */
    workspaceFolder?: string;
    platform?: NodeJS.Platform;
    /** Used to expand `${env:NAME}` in settings. */
    processEnv?: Record<string, string | undefined>;
}

export const EXECUTABLE_NAME = 'lsp-count';
export const PYTHON_MODULE = 'lsp_count';
/** The server's subcommand; the probe is `serve --help` so it also proves `serve` exists. */
export const SERVE_ARGS: readonly string[] = ['serve'];
const PROBE_ARGS: readonly string[] = ['serve', '--help'];

function isAbsolute(p: string): boolean {
    return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(p);
}

/**
 * Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path
 * setting, and resolves a relative path containing a separator against the
 * workspace folder. A bare name (`python3`) is left for a PATH lookup.
 */
export function expandPath(value: string, env: ServerEnvironment): string {
    let p = value.trim();
    if (env.home !== undefined) {
        if (p === '~') {
            p = env.home;
        } else if (p.startsWith('~/') || p.startsWith('~\\')) {
            p = env.home + p.slice(1);
        }
        p = p.replace(/\$\{userHome\}/g, env.home);
    }
    if (env.workspaceFolder !== undefined) {
        p = p.replace(/\$\{workspaceFolder\}/g, env.workspaceFolder);
    }
    p = p.replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => env.processEnv?.[name] ?? '');
    if (env.workspaceFolder !== undefined && !isAbsolute(p) && /[\\/]/.test(p)) {
        const sep = env.platform === 'win32' ? '\\' : '/';
        p = env.workspaceFolder.replace(/[\\/]+$/, '') + sep + p.replace(/^\.[\\/]/, '');
    }
    return p;
}

function pythonCandidate(source: CandidateSource, origin: string, interpreter: readonly string[]): Candidate {
    const [command, ...prefix] = interpreter;
    return {
        source,
        origin,
        run: { command, args: [...prefix, '-m', PYTHON_MODULE, ...SERVE_ARGS] },
        probe: { command, args: [...prefix, '-m', PYTHON_MODULE, ...PROBE_ARGS] },
    };
}

/** The commands to try, in order. */
export function serverCandidates(settings: ServerLaunchSettings, env: ServerEnvironment): Candidate[] {
    const path = settings.path.trim();
    if (path !== '') {
        const command = expandPath(path, env);
        return [
            {
                source: 'server.path',
                origin: 'setting lsp-count.server.path',
                run: { command, args: [...SERVE_ARGS] },
                probe: { command, args: [...PROBE_ARGS] },
            },
        ];
    }
    const python = settings.python.trim();
    if (python !== '') {
        return [pythonCandidate('server.python', 'setting lsp-count.server.python', [expandPath(python, env)])];
    }
    const candidates: Candidate[] = [];
    const interp = env.pythonExtensionInterpreter?.filter((part) => part !== '');
    if (interp !== undefined && interp.length > 0) {
        candidates.push(pythonCandidate('python-extension', "the Python extension's active interpreter", interp));
    }
    candidates.push({
        source: 'path',
        origin: `\`${EXECUTABLE_NAME}\` on PATH`,
        run: { command: EXECUTABLE_NAME, args: [...SERVE_ARGS] },
        probe: { command: EXECUTABLE_NAME, args: [...PROBE_ARGS] },
    });
    return candidates;
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };
export type Probe = (command: ServerCommand) => Promise<ProbeResult>;

export interface Attempt {
    candidate: Candidate;
    result: ProbeResult;
}

export interface Choice {
    /** The first candidate whose probe succeeded; undefined when none did. */
    chosen?: Candidate;
    /** Every candidate tried, in order, with its result. */
    attempts: Attempt[];
}

/** Probes the candidates in order and stops at the first that works. */
export async function chooseServer(candidates: readonly Candidate[], probe: Probe): Promise<Choice> {
    const attempts: Attempt[] = [];
    for (const candidate of candidates) {
        let result: ProbeResult;
        try {
            result = await probe(candidate.probe);
        } catch (error) {
            result = { ok: false, reason: error instanceof Error ? error.message : String(error) };
        }
        attempts.push({ candidate, result });
        if (result.ok) {
            return { chosen: candidate, attempts };
        }
    }
    return { attempts };
}

/** Shell-like rendering of a command for messages and logs. */
export function formatCommand(cmd: ServerCommand): string {
    return [cmd.command, ...cmd.args].map((part) => (part === '' || /[\s"'$`\\]/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

export interface FailureMessage {
    /** One-line-ish text for the notification. */
    summary: string;
    /** Multi-line detail for the output channel. */
    detail: string;
}

/** The single error shown when no candidate works: what was tried and how to fix it. */
export function failureMessage(attempts: readonly Attempt[], env: Pick<ServerEnvironment, 'pythonExtensionInstalled'>): FailureMessage {
    const tried = attempts.map(({ candidate, result }) => {
        const why = result.ok ? 'ok' : result.reason;
        return { short: `${formatCommand(candidate.run)} (${candidate.origin}): ${why}`, candidate };
    });
    const explicit = attempts.find((a) => a.candidate.source === 'server.path' || a.candidate.source === 'server.python');
    let fix: string;
    if (explicit?.candidate.source === 'server.path') {
        fix = 'Fix `lsp-count.server.path` (it must point at the `lsp-count` executable), or clear it to search automatically.';
    } else if (explicit?.candidate.source === 'server.python') {
        fix = 'Run `<python> -m pip install lsp-count` with that interpreter, fix `lsp-count.server.python`, or clear it to search automatically.';
    } else {
        fix =
            'Install the server with `pip install lsp-count` (into the interpreter selected in the Python extension, or so that `lsp-count` is on PATH), ' +
            'or set `lsp-count.server.path` to the `lsp-count` executable (or `lsp-count.server.python` to an interpreter that has it).';
        if (!env.pythonExtensionInstalled) {
            fix += ' (The Python extension is not installed, so its interpreter was not tried.)';
        }
    }
    const summary = `lsp-count: could not start the language server. Tried: ${tried.map((t) => t.short).join('; ')}. ${fix}`;
    const detail = [
        'Could not start the lsp-count language server. Tried, in order:',
        ...tried.map((t, i) => `  ${i + 1}. ${t.short}`),
        fix,
    ].join('\n');
    return { summary, detail };
}
