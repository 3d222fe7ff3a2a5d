// Bundles the extension into dist/extension.js (CommonJS, `vscode` external).
// Usage: node esbuild.mjs [--production] [--watch] [--outfile=path]
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outfileArg = process.argv.find((a) => a.startsWith('--outfile='));

const options = {
    entryPoints: ['src/extension.ts'],
    bundle: true,
    outfile: outfileArg ? outfileArg.slice('--outfile='.length) : 'dist/extension.js',
    format: 'cjs',
    platform: 'node',
    // VS Code 1.91 ships Electron 29 / Node 20.
    target: 'node20',
    external: ['vscode'],
    // vscode-languageclient's exports map has only "node" conditions for ./node.
    conditions: ['node'],
    mainFields: ['module', 'main'],
    sourcemap: production ? false : 'linked',
    sourcesContent: false,
    minify: production,
    legalComments: 'none',
    logLevel: process.env.ESBUILD_QUIET ? 'warning' : 'info',
};

if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
} else {
    await esbuild.build(options);
}
