import { DomainError } from '../domain/errors.js';
import { guardedFetch, type GuardedFetchOptions } from './guarded-fetch.js';

/**
 * A destination the guarded fetch refused, thrown where a client library expects fetch to throw
 * (`forbidden`: the operator's setting does not allow it). Its message is the refusal's reason,
 * naming the address kind and the setting.
 */
export class OutboundRefusal extends DomainError {
  constructor(reason: string) {
    super('forbidden', reason);
    this.name = 'OutboundRefusal';
  }
}

async function bodyBytes(body: RequestInit['body']): Promise<Uint8Array | null> {
  if (body === null || body === undefined) return null;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/**
 * The guarded fetch in fetch's own shape, for a client library that takes a `fetch` (the model
 * provider's): the same checks, pinning, redirects, deadline and body cap. A refusal throws an
 * `OutboundRefusal`; a network failure throws its error, as fetch would.
 */
export function guardedFetchFunction(options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = request ? request.url : input instanceof URL ? input.href : String(input);
    const headers = new Headers(init?.headers ?? request?.headers);
    const outcome = await guardedFetch(
      url,
      {
        method: init?.method ?? request?.method ?? 'GET',
        headers: Object.fromEntries(headers),
        body: init?.body !== undefined ? await bodyBytes(init.body) : request?.body ? new Uint8Array(await request.arrayBuffer()) : null,
        ...(init?.signal ?? request?.signal ? { signal: (init?.signal ?? request?.signal)! } : {}),
      },
      options,
    );
    if (outcome.kind === 'response') return outcome.response;
    if (outcome.kind === 'refused') throw new OutboundRefusal(outcome.reason);
    throw outcome.error;
  };
}
