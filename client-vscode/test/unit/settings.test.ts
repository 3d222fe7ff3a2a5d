import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, DTYPES, MODES, SECTION, TRACE_LEVELS, toServerSettings } from '../../src/settings';

const root = path.resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const properties: Record<string, Record<string, unknown>> = manifest.contributes.configuration.properties;

describe('toServerSettings', () => {
    it('fills every key with its default when nothing is set', () => {
        assert.deepEqual(toServerSettings(undefined, { trusted: true }), DEFAULT_SETTINGS);
        assert.deepEqual(toServerSettings({}, { trusted: true }), DEFAULT_SETTINGS);
        assert.deepEqual(toServerSettings(null, { trusted: false }), DEFAULT_SETTINGS);
    });

    it('passes through the nested object VS Code returns', () => {
        const raw = {
            gpu: ' 2xA100-80GB ',
            mode: 'qlora',
            dtype: 'nf4-dq',
            context: 8192,
            batch: 4,
            inlayHints: { enabled: false },
            codeLens: { enabled: false },
            execute: true,
            server: { path: '/opt/lsp-count', python: '' },
            trace: { server: 'verbose' },
        };
        assert.deepEqual(toServerSettings(raw, { trusted: true }), {
            gpu: '2xA100-80GB',
            mode: 'qlora',
            dtype: 'nf4-dq',
            context: 8192,
            batch: 4,
            inlayHints: { enabled: false },
            codeLens: { enabled: false },
            execute: true,
            server: { path: '/opt/lsp-count', python: '' },
            trace: { server: 'verbose' },
        });
    });

    it('also reads flat dotted keys', () => {
        const s = toServerSettings({ 'inlayHints.enabled': false, 'server.python': '/usr/bin/python3' }, { trusted: true });
        assert.equal(s.inlayHints.enabled, false);
        assert.equal(s.server.python, '/usr/bin/python3');
    });

    it('never allows execution in an untrusted workspace', () => {
        assert.equal(toServerSettings({ execute: true }, { trusted: false }).execute, false);
        assert.equal(toServerSettings({ execute: true }, { trusted: true }).execute, true);
        assert.equal(toServerSettings({ execute: 'yes' }, { trusted: true }).execute, false);
    });

    it('replaces invalid values by their defaults', () => {
        const s = toServerSettings(
            { mode: 'pretrain', dtype: 'int3', context: -5, batch: 2.7, gpu: 42, trace: { server: 'loud' }, codeLens: { enabled: 'no' } },
            { trusted: true },
        );
        assert.equal(s.mode, 'inference');
        assert.equal(s.dtype, '');
        assert.equal(s.context, 4096);
        assert.equal(s.batch, 2);
        assert.equal(s.gpu, '');
        assert.equal(s.trace.server, 'off');
        assert.equal(s.codeLens.enabled, true);
    });

    it('accepts numeric strings for integers and the empty dtype', () => {
        const s = toServerSettings({ context: '32768', batch: '8', dtype: '  ' }, { trusted: true });
        assert.equal(s.context, 32768);
        assert.equal(s.batch, 8);
        assert.equal(s.dtype, '');
        assert.equal(toServerSettings({ context: 'lots' }, { trusted: true }).context, 4096);
    });

    it('returns fresh objects (mutating one does not touch the defaults)', () => {
        const s = toServerSettings({}, { trusted: true });
        s.inlayHints.enabled = false;
        assert.equal(DEFAULT_SETTINGS.inlayHints.enabled, true);
    });
});

describe('package.json contributes.configuration', () => {
    const flatten = (obj: Record<string, unknown>, prefix = ''): Record<string, unknown> => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(obj)) {
            if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
                Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
            } else {
                out[`${prefix}${k}`] = v;
            }
        }
        return out;
    };

    it('has the section title lsp-count', () => {
        assert.equal(manifest.contributes.configuration.title, 'lsp-count');
    });

    it('declares exactly the settings the server object has, with the same defaults', () => {
        const defaults = flatten(DEFAULT_SETTINGS as unknown as Record<string, unknown>);
        const declared = Object.keys(properties).map((k) => k.slice(SECTION.length + 1)).sort();
        assert.deepEqual(declared, Object.keys(defaults).sort());
        for (const [key, value] of Object.entries(defaults)) {
            assert.deepEqual(properties[`${SECTION}.${key}`].default, value, key);
        }
    });

    it('gives every setting a description and a type', () => {
        for (const [key, prop] of Object.entries(properties)) {
            assert.ok(typeof prop.description === 'string' || typeof prop.markdownDescription === 'string', `${key} has no description`);
            assert.ok(typeof prop.type === 'string', `${key} has no type`);
            if (Array.isArray(prop.enum)) {
                assert.equal((prop.enumDescriptions as unknown[]).length, prop.enum.length, `${key} enumDescriptions`);
                assert.ok(prop.enum.includes(prop.default), `${key} default not in enum`);
            }
        }
    });

    it('uses the same enums as the code', () => {
        assert.deepEqual(properties['lsp-count.mode'].enum, [...MODES]);
        assert.deepEqual(properties['lsp-count.dtype'].enum, ['', ...DTYPES]);
        assert.deepEqual(properties['lsp-count.trace.server'].enum, [...TRACE_LEVELS]);
        assert.equal(properties['lsp-count.context'].type, 'integer');
        assert.equal(properties['lsp-count.batch'].type, 'integer');
    });

    it('restricts execution and the server command in untrusted workspaces', () => {
        const untrusted = manifest.capabilities.untrustedWorkspaces;
        assert.equal(untrusted.supported, 'limited');
        for (const key of ['lsp-count.execute', 'lsp-count.server.path', 'lsp-count.server.python']) {
            assert.ok(untrusted.restrictedConfigurations.includes(key), key);
        }
    });
});
