/**
 * Reads the active interpreter from the ms-python extension's exported API.
 * Duck-typed (no dependency on `@vscode/python-extension`, no `vscode` import)
 * so that it survives API versions and can be unit-tested with a fake.
 */

export const PYTHON_EXTENSION_ID = 'ms-python.python';

type Fn = (...args: unknown[]) => unknown;

function get(obj: unknown, key: string): unknown {
    return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

function fsPathOf(uri: unknown): string | undefined {
    const p = get(uri, 'fsPath');
    return typeof p === 'string' && p !== '' ? p : undefined;
}

/**
 * The interpreter as an argv prefix, or undefined when the API exposes none.
 * Tries the `environments` API first (extension ≥ 2021.12), then the older
 * `settings.getExecutionDetails`.
 */
export async function interpreterFromPythonApi(api: unknown, resource?: unknown): Promise<string[] | undefined> {
    const environments = get(api, 'environments');
    const getActive = get(environments, 'getActiveEnvironmentPath');
    if (typeof getActive === 'function') {
        try {
            const envPath = (getActive as Fn).call(environments, resource);
            const resolve = get(environments, 'resolveEnvironment');
            if (typeof resolve === 'function') {
                const resolved = await (resolve as Fn).call(environments, envPath);
                const exe = fsPathOf(get(get(resolved, 'executable'), 'uri'));
                if (exe !== undefined) {
                    return [exe];
                }
            }
            const raw = get(envPath, 'path');
            if (typeof raw === 'string' && raw !== '' && raw !== 'python') {
                return [raw];
            }
        } catch {
            // fall through to the older API
        }
    }
    const settings = get(api, 'settings');
    const getDetails = get(settings, 'getExecutionDetails');
    if (typeof getDetails === 'function') {
        try {
            const details = (getDetails as Fn).call(settings, resource);
            const execCommand = get(details, 'execCommand');
            if (Array.isArray(execCommand) && execCommand.length > 0 && execCommand.every((p) => typeof p === 'string')) {
                return execCommand as string[];
            }
        } catch {
            // no interpreter
        }
    }
    return undefined;
}

/** Subscribes to interpreter changes when the API offers it; returns a disposer or undefined. */
export function onInterpreterChange(api: unknown, listener: () => void): { dispose(): unknown } | undefined {
    const environments = get(api, 'environments');
    const event = get(environments, 'onDidChangeActiveEnvironmentPath');
    if (typeof event === 'function') {
        const disposable = (event as Fn).call(environments, listener);
        if (typeof get(disposable, 'dispose') === 'function') {
            return disposable as { dispose(): unknown };
        }
    }
    const settings = get(api, 'settings');
    const legacy = get(settings, 'onDidChangeExecutionDetails');
    if (typeof legacy === 'function') {
        const disposable = (legacy as Fn).call(settings, listener);
        if (typeof get(disposable, 'dispose') === 'function') {
            return disposable as { dispose(): unknown };
        }
    }
    return undefined;
}
