import { DomainError, invalidRequest, pointer } from '../../domain/errors.js';
import type { Identity } from '../../domain/identity.js';
import type { StateStore } from '../../store/types.js';
import { WORK_CHAIN_ID_PATTERN } from '../../lanes/payload-schemas.js';

/**
 * Who a work chain belongs to. A chain (a work cycle and the runs that continue it) keeps its
 * checkpoint and evidence in a folder named by its id, and its recorded approvals count for its
 * continuations: a payload naming another actor's chain could overwrite both. So a chain
 * belongs to the actor who started it, recorded in the store (one document per chain, created
 * once: of two instances creating it at once, one wins), and only that actor, or an admin who is
 * then recorded beside them, continues it.
 */

/** The store collection of chain owners, one document per chain id. */
export const WORK_CHAINS_COLLECTION = 'work-chains';

const CHAIN_NAME = new RegExp(WORK_CHAIN_ID_PATTERN);

/** Whether `value` may name a chain (and so its evidence folder): WORK_CHAIN_ID_PATTERN. */
export function isChainName(value: unknown): value is string {
  return typeof value === 'string' && CHAIN_NAME.test(value);
}

interface ChainOwner {
  chainId: string;
  /** The actor who started the chain. */
  owner: string;
  /** Who may continue it: the owner, and admins who continued it. */
  actors: string[];
  startedAt: string;
}

function ownerOf(doc: Record<string, unknown> | null): ChainOwner | null {
  if (!doc || typeof doc.owner !== 'string' || !Array.isArray(doc.actors)) return null;
  return doc as unknown as ChainOwner;
}

const CHAIN_FIELD = pointer('body', 'payload', 'workChainId');

/**
 * The chain a run works on: `workChainId` when the payload names one (a continuation), else the
 * run's own id when it is a name (an idempotency key such as `w-1`), else its task id, which
 * always is one (a run id may hold any printable character). Null when `workChainId` is given
 * but is no name: nothing is then written.
 */
export function chainIdOf(run: { runId: string; taskId: string; payload: Record<string, unknown> }): string | null {
  const named = run.payload.workChainId;
  if (named !== undefined) return isChainName(named) ? named : null;
  return isChainName(run.runId) ? run.runId : run.taskId;
}

/**
 * A client's request naming `workChainId`, before it is admitted: the chain must exist, and be
 * the requester's, unless the requester is an admin (recorded as one who may continue it).
 * Throws `invalid_request` (400) or `forbidden` (403) naming the field.
 */
export async function checkChainAdmission(store: StateStore, payload: Record<string, unknown>, identity: Identity): Promise<void> {
  const chainId = payload.workChainId;
  if (chainId === undefined) return;
  if (!isChainName(chainId)) {
    throw invalidRequest('workChainId is not a name', [{ path: CHAIN_FIELD, message: `must match ${WORK_CHAIN_ID_PATTERN}` }]);
  }
  const chain = ownerOf(await store.getDoc(WORK_CHAINS_COLLECTION, chainId));
  if (!chain) {
    const message = `names no work chain: a chain starts with a run that names none, and is continued under that run's id`;
    throw invalidRequest(`workChainId '${chainId}' ${message}`, [{ path: CHAIN_FIELD, message }]);
  }
  if (chain.actors.includes(identity.actor)) return;
  if (identity.role === 'admin') {
    await store.putDoc(WORK_CHAINS_COLLECTION, chainId, { ...chain, actors: [...chain.actors, identity.actor] });
    return;
  }
  const message = 'names a work chain another actor started; only its owner or an admin may continue it';
  throw new DomainError('forbidden', `workChainId '${chainId}' ${message}`, [{ path: CHAIN_FIELD, message }]);
}

/**
 * At execution: whether `actor` may write the chain's evidence. A run that names no chain starts
 * its own, recorded for `actor` when it is new; a run that names one continues it only when it
 * exists and `actor` may continue it. Answers the problem, or null.
 */
export async function claimChain(store: StateStore, chainId: string, actor: string, startsChain: boolean, now: string): Promise<string | null> {
  let chain = ownerOf(await store.getDoc(WORK_CHAINS_COLLECTION, chainId));
  if (!chain && startsChain) {
    const started: ChainOwner = { chainId, owner: actor, actors: [actor], startedAt: now };
    const created = await store.insertDoc(WORK_CHAINS_COLLECTION, chainId, { ...started });
    chain = created ? started : ownerOf(await store.getDoc(WORK_CHAINS_COLLECTION, chainId));
  }
  if (!chain) return `workChainId '${chainId}' names no work chain; nothing was written`;
  if (!chain.actors.includes(actor)) return `work chain '${chainId}' was started by another actor; only its owner or an admin may continue it`;
  return null;
}
