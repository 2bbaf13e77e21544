// Loader hook (bench only): wraps the built doc-sync handler so every execution first appends
// its run id to the file named by BENCH_HANDLER_LOG (O_APPEND, one short line, atomic). The
// bench counts executions from this file, not from the service's own records.
const TARGET = '/dist/src/tasks/handlers/doc-sync.js';
const MARKER = 'export const docSync = ';

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const LOG = process.env.BENCH_HANDLER_LOG;
  if (!LOG || !url.endsWith(TARGET)) return result;
  const source = String(result.source);
  if (!source.includes(MARKER)) throw new Error(`bench handler log: "${MARKER}" not found in ${url}`);
  const wrapped =
    source.replace(MARKER, 'const benchDocSync = ') +
    `\nimport { appendFileSync as benchAppendFileSync } from 'node:fs';\n` +
    `export const docSync = (state, config, input) => {\n` +
    `  benchAppendFileSync(${JSON.stringify(LOG)}, input.runId + '\\n');\n` +
    `  return benchDocSync(state, config, input);\n};\n`;
  return { ...result, source: wrapped, shortCircuit: true };
}
