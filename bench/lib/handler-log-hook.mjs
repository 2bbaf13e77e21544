// Loader hook (bench only): wraps the built doc-sync handler so every execution first appends
// its run id to the file named by BENCH_HANDLER_LOG (O_APPEND, one short line in one write,
// atomic). The bench counts executions from this file, not from the service's own records.
const TARGET = '/dist/src/lanes/doc-sync/handler.js';
const MARKER = 'export const docSync = ';

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const LOG = process.env.BENCH_HANDLER_LOG;
  // Optional: BENCH_HANDLER_SPANS names a file that gets `<runId> <start ms> <end ms>` once each
  // execution ends (the caps check counts overlaps from it); BENCH_HANDLER_DELAY_MS makes each
  // execution last that much longer, so runs overlap as real work would.
  const SPANS = process.env.BENCH_HANDLER_SPANS;
  const DELAY_MS = Number(process.env.BENCH_HANDLER_DELAY_MS ?? 0) || 0;
  if (!LOG || !url.endsWith(TARGET)) return result;
  const source = String(result.source);
  if (!source.includes(MARKER)) throw new Error(`bench handler log: "${MARKER}" not found in ${url}`);
  const wrapped =
    source.replace(MARKER, 'const benchDocSync = ') +
    // One descriptor opened in append mode for the process's life: each execution costs one
    // write(2) instead of an open, a write and a close (the peers count in memory).
    `\nimport { openSync as benchOpenSync, writeSync as benchWriteSync } from 'node:fs';\n` +
    `const benchLogFd = benchOpenSync(${JSON.stringify(LOG)}, 'a');\n` +
    `export const docSync = async (state, config, input) => {\n` +
    `  benchWriteSync(benchLogFd, input.runId + '\\n');\n` +
    (SPANS || DELAY_MS > 0 ? `  const benchStart = performance.timeOrigin + performance.now();\n` : '') +
    (DELAY_MS > 0 ? `  await new Promise((resolve) => setTimeout(resolve, ${DELAY_MS}));\n` : '') +
    `  const benchOutcome = await benchDocSync(state, config, input);\n` +
    (SPANS ? `  benchWriteSync(benchSpansFd, input.runId + ' ' + benchStart + ' ' + (performance.timeOrigin + performance.now()) + '\\n');\n` : '') +
    `  return benchOutcome;\n};\n` +
    (SPANS ? `const benchSpansFd = benchOpenSync(${JSON.stringify(SPANS)}, 'a');\n` : '');
  return { ...result, source: wrapped, shortCircuit: true };
}
