/** Answers longer than this are cut: a lane never receives more text than it can check. */
export const MAX_ANSWER_CHARS = 24_000;

/**
 * Checks a provider's answer before any lane sees it: it must not carry a secret the service
 * holds (the provider key above all; a prompt-injected or misconfigured provider could echo it).
 * Returns the problem, or null when the answer may be used.
 */
export function answerProblem(text: string, secrets: readonly string[]): string | null {
  for (const secret of secrets) {
    if (secret.length >= 6 && text.includes(secret)) return 'answer withheld: it contained secret text held by the service';
  }
  return null;
}
