import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StderrClassifier } from '../../src/serverLog';

describe('StderrClassifier', () => {
    it('uses the level in the head of a log line, info otherwise', () => {
        const c = new StderrClassifier();
        assert.equal(c.level('2026-01-01 10:00:00 INFO lsp_count.lsp: started'), 'info');
        assert.equal(c.level('WARNING:pygls.protocol:Ignoring notification'), 'warn');
        assert.equal(c.level('DEBUG:lsp_count: parsed config.json in 3 ms'), 'debug');
        assert.equal(c.level('ERROR:lsp_count.lsp: hover failed'), 'error');
        assert.equal(c.level('serving on stdio'), 'info');
        assert.equal(c.level(`INFO ${'x'.repeat(60)} ERROR in a quoted message`), 'info');
    });

    it('keeps a whole Python traceback at error level', () => {
        const c = new StderrClassifier();
        const lines = [
            'Traceback (most recent call last):',
            '  File "/x/lsp_count/lsp/server.py", line 3, in <module>',
            '    import pygls',
            "ModuleNotFoundError: No module named 'pygls'",
            'INFO:next line',
        ];
        assert.deepEqual(lines.map((l) => c.level(l)), ['error', 'error', 'error', 'error', 'info']);
    });
});
