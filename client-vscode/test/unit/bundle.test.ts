/**
 * Builds the production bundle exactly as `npm run package` does (into a temp
 * dir) and loads it against the stubbed `vscode` module: catches bundling
 * mistakes (a missing external, a wrong exports condition) that type-checking
 * and the source-level tests cannot see.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVscodeStub, installVscodeStub, newRecorder, type Recorder } from './vscodeStub';

const CLIENT_DIR = path.resolve(__dirname, '..', '..', '..');

describe('production bundle (dist/extension.js)', () => {
    let dir: string;
    let bundle: string;
    let rec: Recorder;
    let uninstall: () => void;
    const savedPath = process.env.PATH;

    before(() => {
        dir = mkdtempSync(path.join(tmpdir(), 'lsp-count-bundle-'));
        bundle = path.join(dir, 'extension.js');
        const result = spawnSync(process.execPath, ['esbuild.mjs', '--production', `--outfile=${bundle}`], {
            cwd: CLIENT_DIR,
            encoding: 'utf8',
            env: { ...process.env, ESBUILD_QUIET: '1' },
        });
        assert.equal(result.status, 0, `esbuild failed:\n${result.stderr}`);
        rec = newRecorder();
        uninstall = installVscodeStub(createVscodeStub(rec));
        process.env.PATH = dir; // no lsp-count
    });

    after(() => {
        process.env.PATH = savedPath;
        uninstall();
        rmSync(dir, { recursive: true, force: true });
    });

    it('bundles vscode-languageclient and leaves only vscode and node built-ins external', () => {
        const code = readFileSync(bundle, 'utf8');
        const requires = new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
        for (const r of requires) {
            assert.ok(r === 'vscode' || builtinModules.includes(r.replace(/^node:/, '')), `unexpected external ${r}`);
        }
        assert.ok(requires.has('vscode'));
    });

    it('loads and activates', async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const ext = require(bundle) as { activate: (ctx: unknown) => Promise<void>; deactivate: () => Promise<void> };
        assert.equal(typeof ext.activate, 'function');
        assert.equal(typeof ext.deactivate, 'function');
        const subscriptions: { dispose(): unknown }[] = [];
        await ext.activate({ subscriptions });
        assert.ok(rec.commands.has('lsp-count.restartServer'));
        assert.ok(rec.commands.has('lsp-count.showOutput'));
        assert.equal(rec.errors.length, 1);
        assert.match(rec.errors[0].message, /could not start the language server/);
        await ext.deactivate();
        subscriptions.forEach((s) => s.dispose());
    });
});
