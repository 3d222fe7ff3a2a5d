import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    type Candidate,
    chooseServer,
    expandPath,
    failureMessage,
    formatCommand,
    type ProbeResult,
    type ServerCommand,
    type ServerEnvironment,
    serverCandidates,
} from '../../src/serverCommand';

const noPython: ServerEnvironment = { pythonExtensionInstalled: false };
const withPython: ServerEnvironment = { pythonExtensionInstalled: true, pythonExtensionInterpreter: ['/venv/bin/python'] };
const unset = { path: '', python: '' };

const runs = (cs: Candidate[]) => cs.map((c) => formatCommand(c.run));

describe('serverCandidates', () => {
    it('uses lsp-count.server.path alone when set', () => {
        const cs = serverCandidates({ path: '/opt/bin/lsp-count', python: '/usr/bin/python3' }, withPython);
        assert.deepEqual(runs(cs), ['/opt/bin/lsp-count serve']);
        assert.deepEqual(cs[0].probe, { command: '/opt/bin/lsp-count', args: ['serve', '--help'] });
        assert.equal(cs[0].source, 'server.path');
    });

    it('uses lsp-count.server.python alone when set', () => {
        const cs = serverCandidates({ path: ' ', python: '/usr/bin/python3' }, withPython);
        assert.deepEqual(runs(cs), ['/usr/bin/python3 -m lsp_count serve']);
        assert.deepEqual(cs[0].probe, { command: '/usr/bin/python3', args: ['-m', 'lsp_count', 'serve', '--help'] });
    });

    it("tries the Python extension's interpreter, then PATH", () => {
        const cs = serverCandidates(unset, withPython);
        assert.deepEqual(runs(cs), ['/venv/bin/python -m lsp_count serve', 'lsp-count serve']);
        assert.deepEqual(cs.map((c) => c.source), ['python-extension', 'path']);
    });

    it('keeps a multi-word interpreter command (conda run) as a prefix', () => {
        const cs = serverCandidates(unset, { pythonExtensionInstalled: true, pythonExtensionInterpreter: ['conda', 'run', '-n', 'ml', 'python'] });
        assert.deepEqual(cs[0].run, { command: 'conda', args: ['run', '-n', 'ml', 'python', '-m', 'lsp_count', 'serve'] });
    });

    it('falls back to PATH only without the Python extension or interpreter', () => {
        assert.deepEqual(runs(serverCandidates(unset, noPython)), ['lsp-count serve']);
        assert.deepEqual(runs(serverCandidates(unset, { pythonExtensionInstalled: true, pythonExtensionInterpreter: [] })), ['lsp-count serve']);
    });

    it('never adds --stdio (vscode-languageclient appends it)', () => {
        for (const c of serverCandidates(unset, withPython)) {
            assert.ok(!c.run.args.includes('--stdio'));
        }
    });
});

describe('expandPath', () => {
    const env: ServerEnvironment = { pythonExtensionInstalled: false, home: '/home/me', workspaceFolder: '/ws', processEnv: { VENV: '/v' } };
    it('expands ~, ${userHome}, ${workspaceFolder} and ${env:X}', () => {
        assert.equal(expandPath('~/.local/bin/lsp-count', env), '/home/me/.local/bin/lsp-count');
        assert.equal(expandPath('${userHome}/x', env), '/home/me/x');
        assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', env), '/ws/.venv/bin/python');
        assert.equal(expandPath('${env:VENV}/bin/python', env), '/v/bin/python');
    });
    it('resolves relative paths against the workspace, leaves bare names for PATH', () => {
        assert.equal(expandPath('.venv/bin/python', env), '/ws/.venv/bin/python');
        assert.equal(expandPath('./.venv/bin/python', env), '/ws/.venv/bin/python');
        assert.equal(expandPath('python3', env), 'python3');
        assert.equal(expandPath('C:\\Python\\python.exe', env), 'C:\\Python\\python.exe');
    });
    it('applies to settings', () => {
        const cs = serverCandidates({ path: '', python: '.venv/bin/python' }, env);
        assert.equal(cs[0].run.command, '/ws/.venv/bin/python');
    });
});

describe('chooseServer', () => {
    const cands = serverCandidates(unset, withPython);

    it('stops at the first candidate that works', async () => {
        const probed: ServerCommand[] = [];
        const choice = await chooseServer(cands, async (cmd) => {
            probed.push(cmd);
            return { ok: true };
        });
        assert.equal(choice.chosen, cands[0]);
        assert.equal(probed.length, 1);
        assert.equal(choice.attempts.length, 1);
    });

    it('records every failure and a probe that throws', async () => {
        const results: ProbeResult[] = [{ ok: false, reason: "No module named 'lsp_count'" }];
        const choice = await chooseServer(cands, async () => {
            const r = results.shift();
            if (r === undefined) {
                throw new Error('spawn lsp-count ENOENT');
            }
            return r;
        });
        assert.equal(choice.chosen, undefined);
        assert.deepEqual(
            choice.attempts.map((a) => a.result),
            [
                { ok: false, reason: "No module named 'lsp_count'" },
                { ok: false, reason: 'spawn lsp-count ENOENT' },
            ],
        );
    });
});

describe('failureMessage', () => {
    it('lists what was tried and how to fix it', async () => {
        const cands = serverCandidates(unset, withPython);
        const { attempts } = await chooseServer(cands, async (cmd) => ({ ok: false, reason: `${cmd.command}: nope` }));
        const msg = failureMessage(attempts, withPython);
        assert.match(msg.summary, /could not start the language server/);
        assert.ok(msg.summary.includes('/venv/bin/python -m lsp_count serve'));
        assert.ok(msg.summary.includes("the Python extension's active interpreter"));
        assert.ok(msg.summary.includes('lsp-count serve'));
        assert.ok(msg.summary.includes('/venv/bin/python: nope'));
        assert.ok(msg.summary.includes('pip install lsp-count'));
        assert.ok(msg.summary.includes('lsp-count.server.path'));
        assert.ok(!msg.summary.includes('not installed'));
        assert.equal(msg.detail.split('\n').filter((l) => /^\s+\d\. /.test(l)).length, 2);
    });

    it('says the Python extension was not consulted when it is missing', async () => {
        const { attempts } = await chooseServer(serverCandidates(unset, noPython), async () => ({ ok: false, reason: 'not found' }));
        assert.ok(failureMessage(attempts, noPython).summary.includes('The Python extension is not installed'));
    });

    it('points at the setting the user set', async () => {
        const p = await chooseServer(serverCandidates({ path: '/x/lsp-count', python: '' }, noPython), async () => ({ ok: false, reason: 'not found' }));
        assert.match(failureMessage(p.attempts, noPython).summary, /Fix `lsp-count\.server\.path`/);
        const py = await chooseServer(serverCandidates({ path: '', python: '/usr/bin/python3' }, noPython), async () => ({ ok: false, reason: 'x' }));
        const s = failureMessage(py.attempts, noPython).summary;
        assert.match(s, /pip install lsp-count/);
        assert.match(s, /lsp-count\.server\.python/);
    });
});

describe('formatCommand', () => {
    it('quotes arguments with spaces', () => {
        assert.equal(formatCommand({ command: '/My Tools/python', args: ['-m', 'lsp_count'] }), '"/My Tools/python" -m lsp_count');
    });
});
