import type { Identity } from '../../src/domain/identity.js';

/** An operator identity whose actor and key label are `actor`. */
export const operator = (actor: string): Identity => ({ actor, role: 'operator', apiKeyLabel: actor, apiKeyExpiresAt: null });

/** The operator `ops`. */
export const OPERATOR: Identity = operator('ops');
