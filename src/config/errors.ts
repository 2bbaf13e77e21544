/** A start-up configuration problem. main.ts prints `fatal: <message>` and exits 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A required secret is absent; the message is exactly `<NAME> is required`. */
export class MissingSecretError extends ConfigError {
  constructor(readonly secretName: string) {
    super(`${secretName} is required`);
  }
}
