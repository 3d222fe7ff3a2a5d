/**
 * Loads the real src/extension.ts (with vscode-languageclient) against a
 * stubbed `vscode` module and checks activation when no server can be found.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVscodeStub, installVscodeStub, newRecorder, type Recorder } from './vscodeStub';

type ExtensionModule = typeof import('../../src/extension');

describe('extension activation (stubbed vscode)', () => {
    let rec: Recorder;
    let uninstall: () => void;
    let ext: ExtensionModule;
    let emptyDir: string;
    const savedPath = process.env.PATH;
    const subscriptions: { dispose(): unknown }[] = [];

    before(() => {
        rec = newRecorder();
        uninstall = installVscodeStub(createVscodeStub(rec));
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        ext = require('../../src/extension') as ExtensionModule;
        emptyDir = mkdtempSync(path.join(tmpdir(), 'lsp-count-nopath-'));
        process.env.PATH = emptyDir; // no `lsp-count` anywhere
    });

    after(async () => {
        await ext.deactivate();
        for (const s of subscriptions) {
            s.dispose();
        }
        process.env.PATH = savedPath;
        rmSync(emptyDir, { recursive: true, force: true });
        uninstall();
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

    it("uses the Python extension's interpreter and the settings", async () => {
        rec.extensions.set('ms-python.python', {
            isActive: true,
            exports: { settings: { getExecutionDetails: () => ({ execCommand: ['/nonexistent/python3'] }) } },
        });
        rec.errors[0].answer('Open Settings');
        await new Promise((r) => setImmediate(r));
        assert.deepEqual(rec.executed.at(-1), ['workbench.action.openSettings', '@ext:lsp-count.lsp-count']);
        await rec.commands.get('lsp-count.restartServer')!();
        assert.equal(rec.errors.length, 2);
        assert.ok(rec.errors[1].message.includes('/nonexistent/python3 -m lsp_count serve'), rec.errors[1].message);
        assert.ok(!rec.errors[1].message.includes('not installed'));
        rec.errors[1].answer(undefined);
    });
});
