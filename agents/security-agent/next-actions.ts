import type { RankableFinding, RuleFamily } from './finding.js';
import type { RankedFinding } from './rank.js';

/** What the audit could not read, as the result reports it. */
export interface UnreadFiles {
  unreadable: number;
  beyondLimit: number;
}

/** How many places an action names before it says "and N more". */
const PLACES_NAMED = 3;

const placeOf = (f: RankableFinding) => (f.line ? `${f.file}:${f.line}` : f.file);

function listed(items: string[]): string {
  const unique = [...new Set(items)];
  const named = unique.slice(0, PLACES_NAMED).join(', ');
  return unique.length > PLACES_NAMED ? `${named} and ${unique.length - PLACES_NAMED} more` : named;
}

/** "rule-a, rule-b in file:1, file:2" for the findings of one group. */
function found(findings: RankableFinding[]): string {
  return `${listed(findings.map((f) => f.rule))} in ${listed(findings.map(placeOf))}`;
}

const SECRET_FAMILIES: ReadonlySet<RuleFamily> = new Set(['secret-patterns', 'secret-entropy']);

/** One remedy per kind of finding; a kind with no finding says nothing. */
function remedies(findings: RankableFinding[]): string[] {
  const of = (test: (f: RankableFinding) => boolean) => findings.filter(test);
  const secrets = of((f) => SECRET_FAMILIES.has(f.family));
  const modes = of((f) => f.family === 'file-permissions');
  const tls = of((f) => f.rule === 'tls-verification-disabled');
  const code = of((f) => f.family === 'dangerous-code' && f.rule !== 'tls-verification-disabled');
  const deps = of((f) => f.family === 'dependency-declarations');
  const actions: string[] = [];
  if (secrets.length > 0) {
    actions.push(
      `Rotate the ${secrets.length === 1 ? 'credential' : `${secrets.length} credentials`} found (${found(secrets)}) first: a committed secret stays in git history; then move ${secrets.length === 1 ? 'it' : 'them'} to the environment or a secret store and purge ${secrets.length === 1 ? 'it' : 'them'} from the repository.`,
    );
  }
  if (modes.length > 0) actions.push(`Tighten the file modes found (${found(modes)}): chmod 600 for keys and env files, no world-write bits.`);
  if (code.length > 0) {
    actions.push(`Replace the string-built code found (${found(code)}) with parameterized calls: execFile with an argument array, bound query parameters, textContent.`);
  }
  if (tls.length > 0) actions.push(`Re-enable TLS certificate verification (${found(tls)}); trust a private CA with NODE_EXTRA_CA_CERTS instead.`);
  if (deps.length > 0) {
    actions.push(`Pin the dependency declarations found (${found(deps)}) to registry versions and review install scripts; install with --ignore-scripts where they are not needed.`);
  }
  return actions;
}

/**
 * The security audit's recommended next actions. Each names what this audit found: the rules and
 * places of one kind of finding, the top of the exploitability ranking, or the files it could not
 * read. Nothing found is nothing to do (an empty list): advice to audit again is no advice, and
 * the audit that just ran is never what it recommends.
 */
export function securityNextActions(findings: RankableFinding[], ranked: RankedFinding[], unread: UnreadFiles, scope: string): string[] {
  const actions = remedies(findings);
  const top = ranked[0];
  if (top && findings.length > 1) {
    actions.push(`Work through exploitabilityRanking from the top: #1 is ${top.rule} in ${top.line ? `${top.file}:${top.line}` : top.file} (score ${top.score}).`);
  }
  if (unread.beyondLimit > 0) {
    actions.push(`Audit the folders of ${scope} one at a time: ${unread.beyondLimit} files beyond the file limit were not read.`);
  }
  if (unread.unreadable > 0) actions.push(`Check why ${unread.unreadable} file${unread.unreadable === 1 ? '' : 's'} of ${scope} could not be read; the audit says nothing about ${unread.unreadable === 1 ? 'it' : 'them'}.`);
  return actions;
}
