import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastLine, runProbe } from '../../src/probe';

const node = process.execPath;

describe('runProbe', () => {
    it('succeeds on exit code 0', async () => {
        assert.deepEqual(await runProbe({ command: node, args: ['-e', 'process.stdout.write("usage: lsp-count serve")'] }), { ok: true });
    });

    it('reports the exit code and the last line of output', async () => {
        const result = await runProbe({
            command: node,
            args: ['-e', 'console.error("Traceback...\\nModuleNotFoundError: No module named \'lsp_count\'\\n"); process.exit(1)'],
        });
        assert.deepEqual(result, { ok: false, reason: "exit code 1: ModuleNotFoundError: No module named 'lsp_count'" });
    });

    it('reports a missing executable', async () => {
        const result = await runProbe({ command: '/nonexistent/lsp-count', args: ['serve', '--help'] });
        assert.deepEqual(result, { ok: false, reason: '`/nonexistent/lsp-count` not found' });
    });

    it('gives up after the timeout', async () => {
        const result = await runProbe({ command: node, args: ['-e', 'setTimeout(() => {}, 60000)'] }, { timeoutMs: 300 });
        assert.equal(result.ok, false);
        assert.match((result as { reason: string }).reason, /no answer within/);
    });
});

describe('lastLine', () => {
    it('skips blank lines and shortens long ones', () => {
        assert.equal(lastLine('a\nb\n\n  \n'), 'b');
        assert.equal(lastLine(''), '');
        assert.equal(lastLine('x'.repeat(1000)).length, 240);
    });
});
