/**
 * Loads the real src/extension.ts (with the real vscode-languageclient)
 * against a stubbed `vscode` module: activation without a server, and a full
 * start/restart/stop against test/fixtures/fake-server.js.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVscodeStub, installVscodeStub, newRecorder, type Recorder } from './vscodeStub';

type ExtensionModule = typeof import('../../src/extension');

const CLIENT_DIR = path.resolve(__dirname, '..', '..', '..');
const FAKE_SERVER = path.join(CLIENT_DIR, 'test', 'fixtures', 'fake-server.js');

// One stub for the file: the extension module binds `vscode` once, when first loaded.
const rec: Recorder = newRecorder();
const uninstall = installVscodeStub(createVscodeStub(rec));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require('../../src/extension') as ExtensionModule;
after(() => uninstall());

const tick = () => new Promise((r) => setImmediate(r));

async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
        const value = probe();
        if (value !== undefined) {
            return value;
        }
        if (Date.now() > end) {
            throw new Error(`timed out waiting for ${what}`);
        }
        await new Promise((r) => setTimeout(r, 20));
    }
}

describe('extension activation without a server', () => {
    let emptyDir: string;
    const savedPath = process.env.PATH;
    const subscriptions: { dispose(): unknown }[] = [];

    before(() => {
        Object.assign(rec, newRecorder());
        emptyDir = mkdtempSync(path.join(tmpdir(), 'lsp-count-nopath-'));
        process.env.PATH = emptyDir; // no `lsp-count` anywhere
    });

    after(async () => {
        await ext.deactivate();
        subscriptions.forEach((s) => s.dispose());
        process.env.PATH = savedPath;
        rmSync(emptyDir, { recursive: true, force: true });
    });

    it('registers its commands and output channel, and shows one error with Retry', async () => {
        await ext.activate({ subscriptions } as never);
        assert.deepEqual([...rec.commands.keys()].sort(), ['lsp-count.restartServer', 'lsp-count.showOutput']);
        assert.equal(rec.outputChannels.length, 1);
        assert.equal(rec.outputChannels[0].name, 'lsp-count');
        assert.deepEqual(rec.outputChannels[0].options, { log: true });
        assert.equal(rec.errors.length, 1);
        const [err] = rec.errors;
        assert.equal(err.actions[0], 'Retry');
        assert.ok(err.message.includes('lsp-count serve'), err.message);
        assert.ok(err.message.includes('`lsp-count` not found'), err.message);
        assert.ok(err.message.includes('pip install lsp-count'), err.message);
        assert.ok(err.message.includes('lsp-count.server.path'), err.message);
        assert.ok(err.message.includes('The Python extension is not installed'), err.message);
        assert.ok(rec.outputChannels[0].lines.some((l) => l.startsWith('[error] Could not start')));
    });

    it('restart while the error is shown logs again but does not stack notifications', async () => {
        await rec.commands.get('lsp-count.restartServer')!();
        assert.equal(rec.errors.length, 1);
        rec.commands.get('lsp-count.showOutput')!();
        assert.equal(rec.outputChannels[0].shown, 1);
    });

    it("uses the Python extension's interpreter; Open Settings opens the extension's settings", async () => {
        rec.extensions.set('ms-python.python', {
            isActive: true,
            exports: { settings: { getExecutionDetails: () => ({ execCommand: ['/nonexistent/python3'] }) } },
        });
        rec.errors[0].answer('Open Settings');
        await tick();
        assert.deepEqual(rec.executed.at(-1), ['workbench.action.openSettings', '@ext:lsp-count.lsp-count']);
        await rec.commands.get('lsp-count.restartServer')!();
        assert.equal(rec.errors.length, 2);
        assert.ok(rec.errors[1].message.includes('/nonexistent/python3 -m lsp_count serve'), rec.errors[1].message);
        assert.ok(!rec.errors[1].message.includes('not installed'));
        rec.errors[1].answer(undefined);
    });
});

describe('extension with a (fake) server', { skip: process.platform === 'win32' ? 'needs a #! script' : false }, () => {
    let dir: string;
    let logFile: string;
    const subscriptions: { dispose(): unknown }[] = [];
    type Event = { pid: number; event: string; [key: string]: unknown };
    // The fake server may be mid-append while we read: only lines that end in a newline are whole.
    const events = (): Event[] =>
        existsSync(logFile)
            ? readFileSync(logFile, 'utf8')
                  .split('\n')
                  .slice(0, -1)
                  .filter(Boolean)
                  .map((l) => JSON.parse(l) as Event)
            : [];

    before(() => {
        Object.assign(rec, newRecorder());
        dir = mkdtempSync(path.join(tmpdir(), 'lsp-count-fake-'));
        logFile = path.join(dir, 'log.jsonl');
        process.env.FAKE_LSP_LOG = logFile;
        rec.isTrusted = false;
        rec.configuration = {
            'lsp-count': {
                gpu: 'RTX-4090',
                mode: 'qlora',
                dtype: '',
                context: 8192,
                batch: null,
                execute: true,
                inlayHints: { enabled: false },
                server: { path: FAKE_SERVER, python: '' },
            },
        };
    });

    after(async () => {
        await ext.deactivate();
        subscriptions.forEach((s) => s.dispose());
        delete process.env.FAKE_LSP_LOG;
        delete process.env.FAKE_LSP_FAIL_INIT;
        rmSync(dir, { recursive: true, force: true });
    });

    it('starts `<path> serve --stdio` and sends the normalized settings (unset dtype/batch omitted, execute off: untrusted)', async () => {
        await ext.activate({ subscriptions } as never);
        assert.deepEqual(rec.errors.map((e) => e.message), []);
        const argv = await until('argv', () => events().find((e) => e.event === 'argv'));
        assert.deepEqual(argv.args, ['serve', '--stdio']);
        const expected = {
            gpu: 'RTX-4090',
            mode: 'qlora',
            context: 8192,
            inlayHints: { enabled: false },
            codeLens: { enabled: true },
            execute: false,
            server: { path: FAKE_SERVER, python: '' },
            trace: { server: 'off' },
        };
        const init = events().find((e) => e.event === 'initialize')!;
        assert.deepEqual(init.initializationOptions, expected);
        const caps = init.capabilities as { textDocument: { hover: { contentFormat: string[] } }; general: { positionEncodings?: unknown } };
        assert.deepEqual(caps.textDocument.hover.contentFormat, ['markdown', 'plaintext']);
        const cfg = await until('workspace/configuration', () => events().find((e) => e.event === 'configuration'));
        assert.deepEqual(cfg.settings, [expected, 'RTX-4090']);
        const pushed = await until('didChangeConfiguration', () => events().find((e) => e.event === 'didChangeConfiguration'));
        assert.deepEqual(pushed.settings, { 'lsp-count': expected });
        // The server's stderr reaches the output channel at its own level.
        await until('stderr line', () => rec.outputChannels[0].lines.find((l) => l === '[info] INFO:fake: initialize'));
    });

    it('restarts on command: the old server is shut down, a new one starts', async () => {
        const first = events().find((e) => e.event === 'argv')!.pid;
        await rec.commands.get('lsp-count.restartServer')!();
        await until('old server exit', () => events().find((e) => e.event === 'exit' && e.pid === first));
        assert.ok(events().some((e) => e.event === 'shutdown' && e.pid === first));
        await until('new server', () => events().find((e) => e.event === 'initialize' && e.pid !== first));
        assert.equal(rec.errors.length, 0);
    });

    it('a server that fails to initialize gives exactly one notification, with Retry', async () => {
        process.env.FAKE_LSP_FAIL_INIT = '1';
        await rec.commands.get('lsp-count.restartServer')!();
        await tick();
        assert.equal(rec.errors.length, 1, rec.errors.map((e) => e.message).join('\n---\n'));
        assert.match(rec.errors[0].message, /fake-server\.js serve.*failed to start: fake server refuses to initialize/);
        assert.equal(rec.errors[0].actions[0], 'Retry');
        delete process.env.FAKE_LSP_FAIL_INIT;
        rec.errors[0].answer('Retry');
        const before = events().filter((e) => e.event === 'initialize').length;
        await until('retry', () => (events().filter((e) => e.event === 'initialize').length > before ? true : undefined));
        await until('configuration after retry', () => events().filter((e) => e.event === 'configuration').length >= 3 || undefined);
        assert.equal(rec.errors.length, 1);
    });

    it('deactivate shuts the server down', async () => {
        const last = events().filter((e) => e.event === 'initialize').at(-1)!.pid;
        await ext.deactivate();
        await until('exit', () => events().find((e) => e.event === 'exit' && e.pid === last));
    });
});
