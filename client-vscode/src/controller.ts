/**
 * The server's lifecycle: pick a command, start it, and on failure show one
 * notification (with Retry). Everything editor-specific is injected through
 * {@link Host}, so this runs, and is tested, without `vscode`.
 */
import type { ServerLaunchSettings } from './settings';
import {
    type Candidate,
    type Probe,
    type ServerEnvironment,
    chooseServer,
    failureMessage,
    formatCommand,
    serverCandidates,
} from './serverCommand';

export interface RunningServer {
    stop(): Promise<void>;
}

export interface Logger {
    info(message: string): void;
    warn(message: string): void;
    error(message: string): void;
}

export interface Host {
    log: Logger;
    /** Current `lsp-count.server.*` settings. */
    launchSettings(): ServerLaunchSettings;
    /** Python extension state, home, workspace folder, env: read at every (re)start. */
    environment(): Promise<ServerEnvironment>;
    probe: Probe;
    /** Starts the language client on the chosen command; rejects when the server does not come up. */
    startServer(candidate: Candidate): Promise<RunningServer>;
    /** An error notification; resolves to the clicked action, or undefined when dismissed. */
    showError(message: string, ...actions: string[]): PromiseLike<string | undefined>;
    openSettings(): unknown;
    showOutput(): unknown;
}

export const RETRY = 'Retry';
export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_OUTPUT = 'Show Output';

export class ServerController {
    private running: RunningServer | undefined;
    private chosen: Candidate | undefined;
    private queue: Promise<unknown> = Promise.resolve();
    private notificationOpen = false;
    private disposed = false;

    constructor(private readonly host: Host) {}

    /** The candidate the running server was started with. */
    get current(): Candidate | undefined {
        return this.running !== undefined ? this.chosen : undefined;
    }

    /** (Re)starts the server. Calls are serialized; resolves to the started candidate or undefined. */
    restart(): Promise<Candidate | undefined> {
        const next = this.queue.then(() => this.doRestart());
        this.queue = next.catch(() => undefined);
        return next;
    }

    /** Same as {@link restart}; reads better at activation. */
    start(): Promise<Candidate | undefined> {
        return this.restart();
    }

    stop(): Promise<void> {
        const next = this.queue.then(() => this.doStop());
        this.queue = next.catch(() => undefined);
        return next;
    }

    async dispose(): Promise<void> {
        this.disposed = true;
        await this.stop();
    }

    private async doStop(): Promise<void> {
        const running = this.running;
        this.running = undefined;
        if (running !== undefined) {
            try {
                await running.stop();
            } catch (error) {
                this.host.log.warn(`Stopping the server failed: ${describe(error)}`);
            }
        }
    }

    private async doRestart(): Promise<Candidate | undefined> {
        await this.doStop();
        if (this.disposed) {
            return undefined;
        }
        const { log } = this.host;
        const env = await this.host.environment();
        const candidates = serverCandidates(this.host.launchSettings(), env);
        log.info(`Looking for the lsp-count server: ${candidates.map((c) => `${formatCommand(c.run)} (${c.origin})`).join(', ')}`);
        const choice = await chooseServer(candidates, async (cmd) => {
            const result = await this.host.probe(cmd);
            log.info(`  ${formatCommand(cmd)} → ${result.ok ? 'ok' : result.reason}`);
            return result;
        });
        if (choice.chosen === undefined) {
            const message = failureMessage(choice.attempts, env);
            log.error(message.detail);
            this.notify(message.summary, [RETRY, OPEN_SETTINGS, SHOW_OUTPUT]);
            return undefined;
        }
        const chosen = choice.chosen;
        log.info(`Starting ${formatCommand(chosen.run)} --stdio (${chosen.origin})`);
        try {
            this.running = await this.host.startServer(chosen);
            this.chosen = chosen;
            return chosen;
        } catch (error) {
            const reason = describe(error);
            log.error(`The server ${formatCommand(chosen.run)} failed to start: ${reason}`);
            this.notify(
                `lsp-count: the language server \`${formatCommand(chosen.run)}\` (${chosen.origin}) failed to start: ${reason}. See the lsp-count output for its log.`,
                [RETRY, SHOW_OUTPUT, OPEN_SETTINGS],
            );
            return undefined;
        }
    }

    /** At most one notification on screen: a failure while one is open only goes to the log. */
    private notify(message: string, actions: string[]): void {
        if (this.notificationOpen || this.disposed) {
            return;
        }
        this.notificationOpen = true;
        Promise.resolve(this.host.showError(message, ...actions))
            .then(
                (action) => {
                    this.notificationOpen = false;
                    if (action === RETRY) {
                        void this.restart();
                    } else if (action === OPEN_SETTINGS) {
                        this.host.openSettings();
                    } else if (action === SHOW_OUTPUT) {
                        this.host.showOutput();
                    }
                },
                () => {
                    this.notificationOpen = false;
                },
            );
    }
}

function describe(error: unknown): string {
    if (error instanceof Error) {
        return error.message;
    }
    return typeof error === 'string' ? error : JSON.stringify(error);
}
