/**
 * Turns a source description into material: its sentences as facts, each filed under what it
 * talks about, and its clauses as key phrases. The lane writes only from this material; it never
 * adds a fact the description does not state.
 */

/** What a sentence of the description is about; decides which section it goes to. */
export type FactKind = 'action' | 'impact' | 'status' | 'usage' | 'change' | 'general';

export interface Fact {
  /** Position in the description. */
  index: number;
  /** The sentence, with a leading "It"/"This service" replaced by the source name, ending in a full stop. */
  text: string;
  kind: FactKind;
  /** Its clauses: the key phrases bullet lists are made of. */
  clauses: string[];
}

/**
 * The first matching kind wins, in this order: an instruction matters most to a reader, then
 * an effect on them, then where things stand, how to use it, and what changed.
 */
const KIND_PATTERNS: ReadonlyArray<readonly [FactKind, RegExp]> = [
  ['action', /\b(?:must|should|need(?:s)? to|required?|please|make sure|ensure|upgrade|migrate|rotate|re-?authenticate|restart|update your|switch to|action)\b/i],
  ['impact', /\b(?:affect(?:s|ed)?|impact(?:s|ed)?|unavailable|downtime|outage|interrupt\w*|degrad\w*|slow(?:er)?|delay(?:s|ed)?|latency|cannot|can't|unable|fail(?:s|ed|ures?)?|errors?|disrupt\w*)\b/i],
  ['status', /\b(?:stable|beta|alpha|preview|generally available|available|maintained|deprecated|planned|in progress|complete[sd]?|live|roll(?:ing|ed)? out|on track|blocked|scheduled|finished|pending)\b/i],
  ['usage', /\b(?:use[sd]?|using|install\w*|configur\w*|run(?:s|ning)?|call(?:s|ed)?|start(?:s|ed)?|command|endpoint|cli|api|import|deploy\w*|integrat\w*)\b/i],
  ['change', /\b(?:new|now|add(?:s|ed)?|introduc\w*|improv\w*|fix(?:es|ed)?|remov\w*|replac\w*|chang\w*|support(?:s|ed)?|release[sd]?|version|v\d[\w.]*)\b/i],
];

export function kindOf(sentence: string): FactKind {
  return KIND_PATTERNS.find(([, pattern]) => pattern.test(sentence))?.[0] ?? 'general';
}

/** Splits prose at sentence ends and treats each list item or line as a sentence of its own. */
export function splitDescription(description: string): string[] {
  return description
    .replace(/\r\n?/g, '\n')
    .split(/\n+/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d{1,2}[.)])\s+/, '').trim())
    .filter((line) => line !== '')
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=["'“(]?[\p{Lu}\d])/u))
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => /\p{L}/u.test(sentence));
}

const PRONOUN_SUBJECT = /^(?:it|this(?: (?:service|tool|project|product|app|application|system|release|change|update|component|feature|library))?)\b(?=\s+\p{Ll})/iu;

/** "It records invoices" → "Ledger API records invoices": every fact can stand on its own. */
export function withSubject(sentence: string, name: string): string {
  const named = sentence.replace(PRONOUN_SUBJECT, name);
  const capitalized = named.charAt(0).toUpperCase() + named.slice(1);
  return /[.!?]["'”)]?$/.test(capitalized) ? capitalized : `${capitalized}.`;
}

/** Clauses of a sentence: split at semicolons, dashes and ", and"/", but"/", while"/", so"/", which". */
export function clausesOf(sentence: string): string[] {
  return sentence
    .replace(/[.!?]+["'”)]?$/, '')
    .split(/\s*;\s*|\s+[—–]\s+|,\s+(?:and|but|while|so|which)\s+/)
    .map((clause) => clause.trim())
    .filter((clause) => clause.split(/\s+/).length >= 2)
    .map((clause) => clause.charAt(0).toUpperCase() + clause.slice(1));
}

export function factsOf(description: string, name: string): Fact[] {
  return splitDescription(description).map((sentence, index) => {
    const text = withSubject(sentence, name);
    // The name is left out of the classification: "Ledger API" is not a usage note by itself.
    return { index, text, kind: kindOf(text.split(name).join(' ')), clauses: clausesOf(text) };
  });
}
