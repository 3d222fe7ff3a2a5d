/**
 * Routes the server's stderr lines to log levels of the `lsp-count` output
 * channel. vscode-languageclient logs every stderr line as an error by
 * default; a Python server writes its whole log there. Pure, no `vscode`.
 */

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const LEVEL_WORDS: [RegExp, Level][] = [
    [/\b(CRITICAL|FATAL|ERROR|EXCEPTION)\b/, 'error'],
    [/\bWARN(ING)?\b/, 'warn'],
    [/\bINFO\b/, 'info'],
    [/\bDEBUG\b/, 'debug'],
    [/\bTRACE\b/, 'trace'],
];

/**
 * Classifies lines one at a time. A Python traceback (the `Traceback` line,
 * its indented frames and the final `SomeError: message`) is all `error`.
 */
export class StderrClassifier {
    private inTraceback = false;

    level(line: string): Level {
        if (/^Traceback \(most recent call last\):/.test(line)) {
            this.inTraceback = true;
            return 'error';
        }
        if (this.inTraceback) {
            if (/^\s/.test(line) || line.trim() === '' || /^During handling|^The above exception/.test(line)) {
                return 'error';
            }
            // The exception line closes the traceback.
            this.inTraceback = false;
            return 'error';
        }
        // Only look at the head of the line: a message may quote other levels.
        const head = line.slice(0, 48);
        for (const [pattern, level] of LEVEL_WORDS) {
            if (pattern.test(head)) {
                return level;
            }
        }
        return 'info';
    }
}
