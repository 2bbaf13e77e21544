export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The rule families a `type` can select; `scan` runs them all. */
export type RuleFamily = 'secret-patterns' | 'secret-entropy' | 'dangerous-code' | 'dependency-declarations' | 'file-permissions';

/** One finding as the lane reports it; `evidence` never carries a secret's value. */
export interface Finding {
  rule: string;
  severity: Severity;
  /** Workspace-relative path. */
  file: string;
  /** 1-based line, or null for findings about the file itself (its permissions). */
  line: number | null;
  evidence: string;
}

/** A finding plus what the exploitability ranking weighs; the extra fields stay internal. */
export interface RankableFinding extends Finding {
  family: RuleFamily;
  /** The dangerous call sits next to request, argv or message input. */
  nearInput?: boolean;
}
