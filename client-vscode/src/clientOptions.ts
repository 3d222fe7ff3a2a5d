/**
 * Plain data and pure helpers for the language client's options.
 * No `vscode` import.
 */
import { SECTION } from './settings';

export const CLIENT_ID = 'lsp-count';
export const CLIENT_NAME = 'lsp-count';
export const OUTPUT_CHANNEL = 'lsp-count';

/** A `vscode.DocumentFilter` as plain data. */
export interface DocumentFilterData {
    scheme?: string;
    language?: string;
    pattern?: string;
}

/**
 * Narrow selectors: model configs, YAML (training recipes) and Python files.
 * The server ignores files that turn out not to describe a model.
 */
export const DOCUMENT_SELECTOR: readonly DocumentFilterData[] = Object.freeze([
    { scheme: 'file', pattern: '**/config.json' },
    { scheme: 'file', pattern: '**/*config*.json' },
    { scheme: 'file', pattern: '**/*.{yaml,yml}' },
    { scheme: 'file', language: 'python' },
    { scheme: 'file', pattern: '**/*.py' },
]);

export interface ConfigurationItemData {
    scopeUri?: string | null;
    section?: string | null;
}

/**
 * Answers a `workspace/configuration` request: items asking for section
 * `lsp-count` get our normalized object (so pulled, pushed and
 * `initializationOptions` settings are the same shape); every other item
 * keeps what the default handler produced.
 */
export function answerConfiguration<T>(
    items: readonly ConfigurationItemData[],
    defaults: readonly unknown[],
    settingsFor: (scopeUri: string | undefined) => T,
): unknown[] {
    return items.map((item, i) =>
        item.section === SECTION ? settingsFor(item.scopeUri ?? undefined) : defaults[i] ?? null,
    );
}

/** Whether a configuration change needs a new server process (rather than a settings push). */
export function needsRestart(affects: (section: string) => boolean): boolean {
    return affects(`${SECTION}.server`);
}
