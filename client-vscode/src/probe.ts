/**
 * Runs a candidate's probe command (`<cmd> serve --help`,
 * `<python> -m lsp_count serve --help`) with a timeout. Node only, no `vscode`.
 */
import { spawn } from 'node:child_process';
import type { Probe, ProbeResult, ServerCommand } from './serverCommand';

export const DEFAULT_PROBE_TIMEOUT_MS = 20_000;
const MAX_REASON = 240;

/** The last non-empty line of a process's output, shortened: usually the error itself. */
export function lastLine(text: string): string {
    const lines = text
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== '');
    const line = lines.length > 0 ? lines[lines.length - 1] : '';
    return line.length > MAX_REASON ? line.slice(0, MAX_REASON - 1) + '…' : line;
}

export interface ProbeOptions {
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
}

export function runProbe(cmd: ServerCommand, options: ProbeOptions = {}): Promise<ProbeResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    return new Promise<ProbeResult>((resolve) => {
        let settled = false;
        const done = (result: ProbeResult): void => {
            if (!settled) {
                settled = true;
                clearTimeout(timer);
                resolve(result);
            }
        };
        let output = '';
        let child;
        try {
            child = spawn(cmd.command, cmd.args, {
                env: options.env ?? process.env,
                cwd: options.cwd,
                stdio: ['ignore', 'pipe', 'pipe'],
                windowsHide: true,
            });
        } catch (error) {
            resolve({ ok: false, reason: describeSpawnError(error, cmd) });
            return;
        }
        const timer = setTimeout(() => {
            child.kill();
            done({ ok: false, reason: `no answer within ${Math.round(timeoutMs / 1000)} s` });
        }, timeoutMs);
        const collect = (chunk: Buffer): void => {
            if (output.length < 64_000) {
                output += chunk.toString('utf8');
            }
        };
        child.stdout?.on('data', collect);
        child.stderr?.on('data', collect);
        child.on('error', (error) => done({ ok: false, reason: describeSpawnError(error, cmd) }));
        child.on('close', (code, signal) => {
            if (code === 0) {
                done({ ok: true });
            } else {
                const status = signal !== null ? `killed by ${signal}` : `exit code ${code}`;
                const line = lastLine(output);
                done({ ok: false, reason: line !== '' ? `${status}: ${line}` : status });
            }
        });
    });
}

function describeSpawnError(error: unknown, cmd: ServerCommand): string {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') {
        return `\`${cmd.command}\` not found`;
    }
    if (code === 'EACCES') {
        return `\`${cmd.command}\` is not executable`;
    }
    return error instanceof Error ? error.message : String(error);
}

export function makeProbe(options: ProbeOptions = {}): Probe {
    return (cmd) => runProbe(cmd, options);
}
