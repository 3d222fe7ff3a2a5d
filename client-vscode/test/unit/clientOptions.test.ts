import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { answerConfiguration, DOCUMENT_SELECTOR, needsRestart } from '../../src/clientOptions';

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8'));

describe('DOCUMENT_SELECTOR', () => {
    it('is narrow: config JSON, YAML and Python files on disk', () => {
        assert.deepEqual(
            DOCUMENT_SELECTOR.map((f) => f.pattern ?? `language:${f.language}`),
            ['**/config.json', '**/*config*.json', '**/*.{yaml,yml}', 'language:python', '**/*.py'],
        );
        for (const f of DOCUMENT_SELECTOR) {
            assert.equal(f.scheme, 'file');
        }
    });

    it('matches the activation events', () => {
        for (const lang of ['json', 'yaml', 'python']) {
            assert.ok(manifest.activationEvents.includes(`onLanguage:${lang}`), lang);
        }
    });
});

describe('answerConfiguration', () => {
    it('answers section lsp-count with our object, keeps other items', () => {
        const items = [{ section: 'lsp-count', scopeUri: 'file:///ws/config.json' }, { section: 'lsp-count.gpu' }, { section: 'editor' }, {}];
        const scopes: (string | undefined)[] = [];
        const result = answerConfiguration(items, [{ raw: true }, 'RTX-4090', { tabSize: 4 }, undefined], (scope) => {
            scopes.push(scope);
            return { normalized: true };
        });
        assert.deepEqual(result, [{ normalized: true }, 'RTX-4090', { tabSize: 4 }, null]);
        assert.deepEqual(scopes, ['file:///ws/config.json']);
    });
});

describe('needsRestart', () => {
    it('restarts only for lsp-count.server.*', () => {
        assert.equal(needsRestart((s) => s === 'lsp-count.server'), true);
        assert.equal(needsRestart((s) => s === 'lsp-count.gpu' || s === 'lsp-count'), false);
    });
});
