import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { resolveScope } from '../../src/worker-sdk/scope-path.js';
import { buildIndex, type CodeIndex } from './build-index.js';
import { listSourceFiles, MAX_SOURCE_BYTES, MAX_SOURCE_FILES } from './source-files.js';

export type CodeIndexPosture = 'ready' | 'refresh' | 'blocked';

export type CodeIndexSuccess = LaneResult<
  CodeIndex & {
    success: true;
    scope: string;
    posture: Exclude<CodeIndexPosture, 'blocked'>;
    postureReasons: string[];
    /** When this index was taken; pass it back as payload.previousIndexAt to learn what changed. */
    indexedAt: string;
    /** Files modified after payload.previousIndexAt (empty when none was given). */
    changedSince: string[];
    stats: {
      files: number;
      typescript: number;
      javascript: number;
      symbols: number;
      edges: number;
      externalPackages: number;
      unresolvedImports: number;
      problems: number;
      skipped: { oversized: string[]; beyondLimit: number; symlinks: number; hardLinks: number };
    };
  }
>;

export type CodeIndexBlocked = LaneRefusal & { posture: 'blocked' };

const IDENTITY = { role: 'code-index-agent', workflowStage: 'code-index', deliverable: 'symbol and import index' };

function blocked(reason: string, actions: string[]): CodeIndexBlocked {
  return { ...refuseLane(IDENTITY, reason, actions), posture: 'blocked' };
}

/**
 * payload.previousIndexAt as epoch milliseconds; undefined when absent. The schema admits a
 * number or a string; whether the string reads as a date is the lane's to judge.
 */
function previousIndexTime(value: string | number | undefined): number | undefined | { problem: string } {
  if (value === undefined) return undefined;
  const time = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(time) ? time : { problem: `payload.previousIndexAt ${JSON.stringify(value)} is not a date (use an ISO timestamp such as a previous result's indexedAt)` };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The code-index lane: every JS/TS source file of `payload.scope` with its exported symbols
 * and imports, the import edges between files, and the external packages imported. Posture
 * `refresh` when files changed since `payload.previousIndexAt` or when the index has gaps
 * (files that do not parse, imports that do not resolve, files skipped by the bounds).
 */
export function codeIndex(payload: LanePayload<'code-index'>, context: LaneContext): CodeIndexSuccess | CodeIndexBlocked {
  const resend = ['Resend with payload.scope naming a folder (or file) of JS/TS sources inside the workspace.'];
  const { scope } = payload;
  const since = previousIndexTime(payload.previousIndexAt);
  if (typeof since === 'object') return blocked(since.problem, ['Resend without previousIndexAt, or with the indexedAt of a previous index.']);
  const resolved = resolveScope(context.workspaceRoot, scope);
  if ('problem' in resolved) return blocked(resolved.problem, resend);

  const indexedAt = new Date().toISOString();
  const listing = listSourceFiles(context.workspaceRoot, resolved.absolute);
  if (listing.files.length === 0) {
    const oversized = listing.oversizedCount ? ` (${plural(listing.oversizedCount, 'file')} over ${MAX_SOURCE_BYTES} bytes not read)` : '';
    return blocked(`scope ${JSON.stringify(scope)} holds no JS/TS source files (.js .mjs .cjs .ts .mts .cts .tsx .jsx; node_modules, .git and build output skipped)${oversized}`, resend);
  }

  const index = buildIndex(context.workspaceRoot, listing.files);
  const changedSince = since === undefined ? [] : listing.files.filter((f) => f.modifiedMs > since).map((f) => f.path);
  const unresolvedImports = index.files.reduce((sum, f) => sum + f.imports.filter((i) => i.resolved === null && i.package === null).length, 0);
  const reasons: string[] = [];
  if (changedSince.length) reasons.push(`${plural(changedSince.length, 'file')} changed since the previous index (${String(payload.previousIndexAt)})`);
  const parseProblems = index.problems.length - unresolvedImports;
  if (parseProblems > 0) reasons.push(`${plural(parseProblems, 'file')} did not parse cleanly`);
  if (unresolvedImports) reasons.push(`${plural(unresolvedImports, 'relative import')} do not resolve to a file`);
  if (listing.oversizedCount) reasons.push(`${plural(listing.oversizedCount, 'file')} over ${MAX_SOURCE_BYTES} bytes not indexed`);
  if (listing.beyondLimit) reasons.push(`${listing.beyondLimit} files beyond the ${MAX_SOURCE_FILES}-file bound not indexed`);
  const posture = reasons.length ? 'refresh' : 'ready';
  const symbols = index.files.reduce((sum, f) => sum + f.symbols.length, 0);
  const typescript = index.files.filter((f) => f.language === 'typescript').length;

  return {
    success: true,
    scope,
    posture,
    postureReasons: reasons.length ? reasons : ['every source file in scope indexed, parsed and its relative imports resolved'],
    indexedAt,
    changedSince,
    ...index,
    stats: {
      files: index.files.length,
      typescript,
      javascript: index.files.length - typescript,
      symbols,
      edges: index.edges.length,
      externalPackages: index.externalImports.length,
      unresolvedImports,
      problems: index.problems.length,
      skipped: { oversized: listing.oversized, beyondLimit: listing.beyondLimit, symlinks: listing.symlinks, hardLinks: listing.hardLinks },
    },
    operatorSummary:
      `Indexed ${plural(index.files.length, 'source file')} in ${scope}: ${plural(symbols, 'exported symbol')}, ${plural(index.edges.length, 'import edge')}, ` +
      `${plural(index.externalImports.length, 'external package')}. Posture ${posture}${reasons.length ? `: ${reasons.join('; ')}` : ''}.`,
    recommendedNextActions:
      posture === 'ready'
        ? [`Reuse this index until files change; pass previousIndexAt "${indexedAt}" next time to learn which did.`]
        : [
            ...(changedSince.length ? ['Re-read the changed files listed in changedSince before relying on older conclusions about them.'] : []),
            ...(index.problems.length ? ['Look at problems[]: fix or exclude files that do not parse and imports that do not resolve, then index again.'] : []),
            ...(listing.oversizedCount || listing.beyondLimit ? ['Narrow payload.scope so every file fits the bounds.'] : []),
          ],
    specialistContract: specialistContract({ ...IDENTITY, status: listing.beyondLimit || listing.oversizedCount ? 'partial' : 'completed' }),
  };
}
