import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpreterFromPythonApi, onInterpreterChange } from '../../src/pythonExtension';

describe('interpreterFromPythonApi', () => {
    it('uses environments.resolveEnvironment when available', async () => {
        const seen: unknown[] = [];
        const api = {
            environments: {
                getActiveEnvironmentPath(resource: unknown) {
                    seen.push(resource);
                    return { id: 'x', path: '/envs/ml' };
                },
                async resolveEnvironment(envPath: { path: string }) {
                    return { executable: { uri: { fsPath: `${envPath.path}/bin/python` } } };
                },
            },
        };
        assert.deepEqual(await interpreterFromPythonApi(api, 'folder'), ['/envs/ml/bin/python']);
        assert.deepEqual(seen, ['folder']);
    });

    it('falls back to the active path when resolving yields nothing', async () => {
        const api = {
            environments: {
                getActiveEnvironmentPath: () => ({ id: 'x', path: '/usr/bin/python3' }),
                resolveEnvironment: async () => undefined,
            },
        };
        assert.deepEqual(await interpreterFromPythonApi(api), ['/usr/bin/python3']);
    });

    it('uses the older settings.getExecutionDetails API', async () => {
        const api = { settings: { getExecutionDetails: () => ({ execCommand: ['conda', 'run', '-n', 'ml', 'python'] }) } };
        assert.deepEqual(await interpreterFromPythonApi(api), ['conda', 'run', '-n', 'ml', 'python']);
    });

    it('returns undefined for an API without an interpreter', async () => {
        assert.equal(await interpreterFromPythonApi(undefined), undefined);
        assert.equal(await interpreterFromPythonApi({}), undefined);
        assert.equal(await interpreterFromPythonApi({ settings: { getExecutionDetails: () => ({ execCommand: undefined }) } }), undefined);
        const throwing = { environments: { getActiveEnvironmentPath: () => { throw new Error('not ready'); } } };
        assert.equal(await interpreterFromPythonApi(throwing), undefined);
    });
});

describe('onInterpreterChange', () => {
    it('subscribes to the environments event', () => {
        let listener: (() => void) | undefined;
        let disposed = false;
        const api = { environments: { onDidChangeActiveEnvironmentPath: (l: () => void) => { listener = l; return { dispose: () => { disposed = true; } }; } } };
        let calls = 0;
        const sub = onInterpreterChange(api, () => calls++);
        listener?.();
        sub?.dispose();
        assert.equal(calls, 1);
        assert.ok(disposed);
    });

    it('returns undefined when there is nothing to subscribe to', () => {
        assert.equal(onInterpreterChange({}, () => undefined), undefined);
    });
});
