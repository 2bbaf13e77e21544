/** A command line the user got wrong: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
