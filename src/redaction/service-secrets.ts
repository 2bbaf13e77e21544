import type { AppConfig } from '../config/types.js';

/** The password of a connection URL (`postgres://user:password@host/db`), when it has one. */
function urlPassword(url: string | null): string[] {
  if (url === null) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [password];
  } catch {
    return [];
  }
}

/**
 * Every value the service holds secret that a worker could print or a caller could send: its API
 * keys (also inactive and expired ones), the webhook secret, the token signing secret, the code host token, the model
 * provider key and the passwords of its database and KV store URLs. Run logs, stored payloads,
 * results and the texts of run events replace each wherever it appears (known-secrets.ts).
 */
export function serviceSecrets(
  config: Pick<AppConfig, 'apiKeys' | 'webhookSecret' | 'tokenSigningSecret' | 'codeHostMonitor' | 'databaseUrl' | 'kvStoreUrl'> & { llm?: Pick<AppConfig['llm'], 'apiKey'> },
): string[] {
  return [
    ...config.apiKeys.map((key) => key.secret),
    config.webhookSecret,
    ...(config.tokenSigningSecret ? [config.tokenSigningSecret] : []),
    ...(config.codeHostMonitor.token ? [config.codeHostMonitor.token] : []),
    ...(config.llm?.apiKey ? [config.llm.apiKey] : []),
    ...urlPassword(config.databaseUrl),
    ...urlPassword(config.kvStoreUrl),
  ].filter((secret) => secret !== '');
}
