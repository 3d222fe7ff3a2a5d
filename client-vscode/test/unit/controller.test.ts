import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Host, OPEN_SETTINGS, RETRY, ServerController, SHOW_OUTPUT } from '../../src/controller';
import type { Candidate, ProbeResult, ServerCommand } from '../../src/serverCommand';

interface Deferred<T> {
    promise: Promise<T>;
    resolve(value: T): void;
}
function deferred<T>(): Deferred<T> {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
}
const tick = () => new Promise((r) => setImmediate(r));

class FakeHost implements Host {
    logs: string[] = [];
    log = {
        info: (m: string) => this.logs.push(`info ${m}`),
        warn: (m: string) => this.logs.push(`warn ${m}`),
        error: (m: string) => this.logs.push(`error ${m}`),
    };
    settings = { path: '', python: '' };
    interpreter: string[] | undefined = ['/venv/bin/python'];
    working = new Set<string>();
    startFails: string | undefined;
    probed: ServerCommand[] = [];
    started: Candidate[] = [];
    stopped = 0;
    errors: { message: string; actions: string[]; answer: Deferred<string | undefined> }[] = [];
    settingsOpened = 0;
    outputShown = 0;

    launchSettings = () => this.settings;
    environment = async () => ({ pythonExtensionInstalled: this.interpreter !== undefined, pythonExtensionInterpreter: this.interpreter });
    probe = async (cmd: ServerCommand): Promise<ProbeResult> => {
        this.probed.push(cmd);
        return this.working.has(cmd.command) ? { ok: true } : { ok: false, reason: `${cmd.command} missing` };
    };
    startServer = async (candidate: Candidate) => {
        if (this.startFails !== undefined) {
            throw new Error(this.startFails);
        }
        this.started.push(candidate);
        return { stop: async () => void this.stopped++ };
    };
    showError = (message: string, ...actions: string[]) => {
        const answer = deferred<string | undefined>();
        this.errors.push({ message, actions, answer });
        return answer.promise;
    };
    openSettings = () => this.settingsOpened++;
    showOutput = () => this.outputShown++;
}

describe('ServerController', () => {
    it('starts the first working candidate', async () => {
        const host = new FakeHost();
        host.working.add('lsp-count');
        const ctl = new ServerController(host);
        const chosen = await ctl.start();
        assert.equal(chosen?.source, 'path');
        assert.equal(host.started.length, 1);
        assert.deepEqual(host.started[0].run, { command: 'lsp-count', args: ['serve'] });
        assert.equal(host.errors.length, 0);
        assert.equal(ctl.current, chosen);
    });

    it('shows ONE error listing what was tried, with Retry, when nothing works', async () => {
        const host = new FakeHost();
        const ctl = new ServerController(host);
        assert.equal(await ctl.start(), undefined);
        assert.equal(host.errors.length, 1);
        const [err] = host.errors;
        assert.deepEqual(err.actions, [RETRY, OPEN_SETTINGS, SHOW_OUTPUT]);
        assert.ok(err.message.includes('/venv/bin/python -m lsp_count serve'));
        assert.ok(err.message.includes('lsp-count serve'));
        assert.ok(err.message.includes('pip install lsp-count'));
        assert.ok(err.message.includes('lsp-count.server.path'));
        assert.ok(host.logs.some((l) => l.startsWith('error Could not start')));
        // A second failure while the notification is open does not stack another one.
        await ctl.restart();
        assert.equal(host.errors.length, 1);
        assert.equal(ctl.current, undefined);
    });

    it('Retry starts again and succeeds once the server is installed', async () => {
        const host = new FakeHost();
        const ctl = new ServerController(host);
        await ctl.start();
        host.working.add('/venv/bin/python');
        host.errors[0].answer.resolve(RETRY);
        await tick();
        await ctl.restart(); // waits for the queued retry, then restarts once more
        assert.ok(host.started.length >= 1);
        assert.equal(host.started[0].source, 'python-extension');
        assert.equal(host.errors.length, 1);
    });

    it('Open Settings and Show Output do what they say', async () => {
        const host = new FakeHost();
        const ctl = new ServerController(host);
        await ctl.start();
        host.errors[0].answer.resolve(OPEN_SETTINGS);
        await tick();
        assert.equal(host.settingsOpened, 1);
        await ctl.restart();
        assert.equal(host.errors.length, 2);
        host.errors[1].answer.resolve(SHOW_OUTPUT);
        await tick();
        assert.equal(host.outputShown, 1);
    });

    it('reports a server that is found but fails to start', async () => {
        const host = new FakeHost();
        host.working.add('lsp-count');
        host.startFails = 'Server initialization failed.';
        const ctl = new ServerController(host);
        assert.equal(await ctl.start(), undefined);
        assert.equal(host.errors.length, 1);
        assert.match(host.errors[0].message, /lsp-count serve.*failed to start: Server initialization failed/);
        assert.equal(host.errors[0].actions[0], RETRY);
    });

    it('restart stops the running server first; an explicit setting is the only candidate', async () => {
        const host = new FakeHost();
        host.working.add('lsp-count');
        host.working.add('/opt/lsp-count');
        const ctl = new ServerController(host);
        await ctl.start();
        host.settings = { path: '/opt/lsp-count', python: '' };
        const chosen = await ctl.restart();
        assert.equal(host.stopped, 1);
        assert.equal(chosen?.source, 'server.path');
        host.settings = { path: '/missing/lsp-count', python: '' };
        assert.equal(await ctl.restart(), undefined);
        assert.equal(host.stopped, 2);
        assert.deepEqual(host.probed.at(-1), { command: '/missing/lsp-count', args: ['serve', '--help'] });
        assert.match(host.errors[0].message, /Fix `lsp-count\.server\.path`/);
    });

    it('serializes concurrent restarts', async () => {
        const host = new FakeHost();
        host.working.add('lsp-count');
        const ctl = new ServerController(host);
        await Promise.all([ctl.restart(), ctl.restart(), ctl.restart()]);
        assert.equal(host.started.length, 3);
        assert.equal(host.stopped, 2);
        await ctl.dispose();
        assert.equal(host.stopped, 3);
        assert.equal(await ctl.restart(), undefined);
        assert.equal(host.started.length, 3);
    });
});
