/**
 * An agent's readiness and host service in plain words (docs/agents.md gives the rules the
 * service applies; these sentences say what each level means for an operator).
 */

const READINESS_WORDS: Record<string, string> = {
  declared: 'Declared only: no worker or service entrypoint resolves yet, so it cannot run.',
  foundation: 'Can run, not yet proven: none of its lanes has a successful run.',
  operational: 'Working: its lanes have succeeded, but not every capability it aims for has shown up in a result.',
  advanced: 'Proven: every lane has succeeded and every capability it aims for appears in recent results.',
};

/** The readiness level as a person reads it; an unknown level is named as it is. */
export function readinessInWords(level: string): string {
  return READINESS_WORDS[level] ?? `Readiness "${level}" (not a level this console knows).`;
}

const HOST_WORDS: Record<string, string> = {
  'not-applicable': 'No host service: it runs as a worker the service starts per run.',
  running: 'Host service running.',
  stopped: 'Host service installed but stopped.',
  failed: 'Host service failed.',
  'not-installed': 'Host service expected but not installed.',
  'probe-unavailable': 'Host service expected; its state cannot be read on this host.',
  'not-probed': 'Host service expected; not checked yet.',
};

export function hostServiceInWords(status: string): string {
  return HOST_WORDS[status] ?? `Host service ${status}.`;
}
