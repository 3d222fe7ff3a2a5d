import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, DTYPES, MODES, OVERRIDE_KEYS, SECTION, TRACE_LEVELS, UNSET_DEFAULTS, toServerSettings } from '../../src/settings';

const root = path.resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const properties: Record<string, Record<string, unknown>> = manifest.contributes.configuration.properties;

describe('toServerSettings', () => {
    it('sends no budget override and the other keys at their defaults when nothing is set', () => {
        assert.deepEqual(toServerSettings(undefined, { trusted: true }), DEFAULT_SETTINGS);
        assert.deepEqual(toServerSettings({}, { trusted: true }), DEFAULT_SETTINGS);
        assert.deepEqual(toServerSettings(null, { trusted: false }), DEFAULT_SETTINGS);
        for (const key of OVERRIDE_KEYS) {
            assert.ok(!(key in DEFAULT_SETTINGS), key);
        }
    });

    it('omits the budget keys VS Code reports at their manifest defaults (unset)', () => {
        // What `getConfiguration().get('lsp-count')` returns when the user set nothing.
        const raw = {
            ...UNSET_DEFAULTS,
            inlayHints: { enabled: true },
            codeLens: { enabled: true },
            execute: false,
            server: { path: '', python: '' },
            trace: { server: 'off' },
        };
        const s = toServerSettings(raw, { trusted: true });
        assert.deepEqual(s, DEFAULT_SETTINGS);
        for (const key of OVERRIDE_KEYS) {
            assert.ok(!Object.prototype.hasOwnProperty.call(s, key), `${key} must be omitted, got ${JSON.stringify(s)}`);
        }
        // Nor do they appear in the JSON the server receives.
        assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(s))).sort(), ['codeLens', 'execute', 'inlayHints', 'server', 'trace']);
        // Whitespace-only strings and undefined count as unset too.
        assert.deepEqual(toServerSettings({ gpu: '  ', mode: ' ', dtype: '\t', context: undefined, batch: undefined }, { trusted: true }), DEFAULT_SETTINGS);
    });

    it('passes each set budget key on its own, leaving the others unset', () => {
        const cases: [string, unknown, unknown][] = [
            ['gpu', ' H100-80GB ', 'H100-80GB'],
            ['mode', 'inference', 'inference'],
            ['mode', 'train', 'train'],
            ['dtype', 'bfloat16', 'bfloat16'],
            ['context', 4096, 4096],
            ['context', 1, 1],
            ['batch', 1, 1],
            ['batch', 16, 16],
        ];
        for (const [key, value, sent] of cases) {
            const s = toServerSettings({ ...UNSET_DEFAULTS, [key]: value }, { trusted: true });
            assert.deepEqual(s, { ...DEFAULT_SETTINGS, [key]: sent }, `${key}=${JSON.stringify(value)}`);
        }
    });

    it('passes the installed packages to read and where from, as lists, only when set', () => {
        const set = toServerSettings({ ...UNSET_DEFAULTS, readPackages: [' transformers ', 'timm', 'my_lib'], sitePackages: ['/venv/lib/site-packages'] }, { trusted: true });
        assert.deepEqual(set, { ...DEFAULT_SETTINGS, readPackages: ['transformers', 'timm', 'my_lib'], sitePackages: ['/venv/lib/site-packages'] });
        // `[]` reads no package: it is a value, not "unset".
        assert.deepEqual(toServerSettings({ readPackages: [] }, { trusted: false }), { ...DEFAULT_SETTINGS, readPackages: [] });
        // A wrong list is left out whole (the budget file's, else the default, applies).
        for (const bad of ['transformers', ['transformers.models'], ['timm', 3], [''], [' ']]) {
            assert.ok(!('readPackages' in toServerSettings({ readPackages: bad }, { trusted: true })), JSON.stringify(bad));
        }
        assert.ok(!('sitePackages' in toServerSettings({ sitePackages: '/venv' }, { trusted: true })));
        assert.ok(!('sitePackages' in toServerSettings({ sitePackages: [null] }, { trusted: true })));
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

    it('omits invalid budget values (no override) and replaces the other invalid values by their defaults', () => {
        const s = toServerSettings(
            { mode: 'pretrain', dtype: 'int3', context: -5, batch: 2.7, gpu: 42, trace: { server: 'loud' }, codeLens: { enabled: 'no' } },
            { trusted: true },
        );
        assert.deepEqual(s, DEFAULT_SETTINGS);
        assert.equal(s.trace.server, 'off');
        assert.equal(s.codeLens.enabled, true);
    });

    it('omits invalid context and batch values without throwing', () => {
        const invalid: unknown[] = [0, -1, -4096, 1.5, 4096.25, NaN, Infinity, -Infinity, 2 ** 60, '0', '-3', '2.5', 'lots', '', true, [], {}, [4096]];
        for (const value of invalid) {
            for (const key of ['context', 'batch'] as const) {
                let s;
                assert.doesNotThrow(() => {
                    s = toServerSettings({ [key]: value }, { trusted: true });
                }, `${key}=${String(value)}`);
                assert.deepEqual(s, DEFAULT_SETTINGS, `${key}=${String(value)} must be omitted`);
            }
        }
        // One invalid key does not drop the valid ones next to it.
        assert.deepEqual(toServerSettings({ context: 0, batch: 2, mode: 'lora' }, { trusted: true }), { ...DEFAULT_SETTINGS, batch: 2, mode: 'lora' });
    });

    it('accepts integer numeric strings', () => {
        const s = toServerSettings({ context: '32768', batch: ' 8 ' }, { trusted: true });
        assert.equal(s.context, 32768);
        assert.equal(s.batch, 8);
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

    it('declares exactly the settings the server object can have, with the same defaults', () => {
        const defaults = { ...flatten(DEFAULT_SETTINGS as unknown as Record<string, unknown>), ...UNSET_DEFAULTS };
        const declared = Object.keys(properties).map((k) => k.slice(SECTION.length + 1)).sort();
        assert.deepEqual(declared, Object.keys(defaults).sort());
        for (const [key, value] of Object.entries(defaults)) {
            assert.deepEqual(properties[`${SECTION}.${key}`].default, value, key);
        }
    });

    it('defaults every budget override to "not set", which the client omits', () => {
        for (const key of OVERRIDE_KEYS) {
            const def = properties[`${SECTION}.${key}`].default;
            assert.ok(def === '' || def === null, `${key} default ${JSON.stringify(def)}`);
            assert.ok(!(key in toServerSettings({ [key]: def }, { trusted: true })), key);
        }
    });

    it('gives every setting a description and a type', () => {
        for (const [key, prop] of Object.entries(properties)) {
            assert.ok(typeof prop.description === 'string' || typeof prop.markdownDescription === 'string', `${key} has no description`);
            assert.ok(typeof prop.type === 'string' || Array.isArray(prop.type), `${key} has no type`);
            if (Array.isArray(prop.enum)) {
                assert.equal((prop.enumDescriptions as unknown[]).length, prop.enum.length, `${key} enumDescriptions`);
                assert.ok(prop.enum.includes(prop.default), `${key} default not in enum`);
            }
        }
    });

    it('uses the same enums as the code', () => {
        assert.deepEqual(properties['lsp-count.mode'].enum, ['', ...MODES]);
        assert.deepEqual(properties['lsp-count.dtype'].enum, ['', ...DTYPES]);
        assert.deepEqual(properties['lsp-count.trace.server'].enum, [...TRACE_LEVELS]);
        assert.deepEqual(properties['lsp-count.context'].type, ['integer', 'null']);
        assert.deepEqual(properties['lsp-count.batch'].type, ['integer', 'null']);
        assert.equal(properties['lsp-count.context'].minimum, 1);
        assert.equal(properties['lsp-count.batch'].minimum, 1);
    });

    it('restricts execution and the server command in untrusted workspaces', () => {
        const untrusted = manifest.capabilities.untrustedWorkspaces;
        assert.equal(untrusted.supported, 'limited');
        for (const key of ['lsp-count.execute', 'lsp-count.server.path', 'lsp-count.server.python']) {
            assert.ok(untrusted.restrictedConfigurations.includes(key), key);
        }
    });
});
