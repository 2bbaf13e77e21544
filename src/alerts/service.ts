import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AlertsConfig } from '../config/alerts.js';
import { freshShared } from '../domain/fresh-share.js';
import type { OutboundNetwork } from '../net/guarded-fetch.js';
import type { StateStore } from '../store/types.js';
import type { ApprovalLinkSource } from './approval-links.js';
import type { ConditionSources } from './conditions.js';
import { deliverDue, deliveryOf, readDeliveryState } from './delivery.js';
import { createEpisodeLedger } from './episode-ledger.js';
import { evaluateRules, type EvaluationOutcome } from './evaluator.js';
import { ALERT_COLLECTIONS, type AlertDelivery, type AlertNotice } from './types.js';

export interface AlertServiceDeps {
  config: AlertsConfig;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  ownerId: string;
  sources: ConditionSources;
  /** Tests substitute the network edges of the guarded fetch. */
  network?: OutboundNetwork;
  /** Makes approval links for approval notices (src/tokens/approval-links.ts); absent, or config approvalLinks false: none. */
  approvalLinks?: ApprovalLinkSource;
}

/** Settled notices are kept this long; dead letters longer, for an operator to find. */
const KEEP_SETTLED_MS = 7 * 24 * 3600_000;
const KEEP_DEAD_MS = 30 * 24 * 3600_000;

/** A notice with where it went and how that went: one entry of `GET /api/alerts`. */
export interface AlertView extends AlertNotice {
  deliveries: AlertDelivery[];
}

/**
 * Alerting: the periodic evaluator and delivery passes (scheduler style, one of each at a time
 * per instance; instances coordinate through the store), the run-finished hook, and the read
 * views behind `GET /api/alerts`.
 */
export function createAlertService(deps: AlertServiceDeps) {
  const { config, store, clock, logger } = deps;
  const ledger = createEpisodeLedger(store);
  const now = () => clock.now();

  const evaluate = freshShared(async (): Promise<EvaluationOutcome> => {
    const outcome = await evaluateRules({ rules: config.rules, sources: deps.sources, ledger, logger }, now());
    if (outcome.fired + outcome.resolved > 0) logger.info(outcome, 'alert notices claimed');
    return outcome;
  });
  const linkDeps = deps.approvalLinks && config.approvalLinks ? { approvalLinks: { source: deps.approvalLinks, consoleUrl: config.consoleUrl } } : {};
  const deliver = freshShared(() => deliverDue({ store, sinks: config.sinks, logger, ownerId: deps.ownerId, ...(deps.network ? { network: deps.network } : {}), ...linkDeps }, now));

  async function views(): Promise<AlertView[]> {
    const { notices, deliveries } = await readDeliveryState(store);
    return notices
      .map((notice) => ({
        ...notice,
        deliveries: notice.sinks.map((sink) => deliveryOf(notice, sink, deliveries)),
      }))
      .reverse();
  }

  /** Deletes settled notices past their keeping time, with their deliveries and attempt claims. */
  async function prune(): Promise<void> {
    const at = now().getTime();
    for (const view of await views()) {
      const age = at - Date.parse(view.at);
      const dead = view.deliveries.some((d) => d.status === 'dead');
      if (view.deliveries.some((d) => d.status === 'pending') || age < (dead ? KEEP_DEAD_MS : KEEP_SETTLED_MS)) continue;
      for (const delivery of view.deliveries) {
        for (let attempt = 1; attempt <= delivery.attempts; attempt += 1) await store.deleteDoc(ALERT_COLLECTIONS.attempts, `${delivery.deliveryId}#${attempt}`);
        await store.deleteDoc(ALERT_COLLECTIONS.deliveries, delivery.deliveryId);
      }
      await store.deleteDoc(ALERT_COLLECTIONS.notices, view.noticeId);
    }
  }

  let timers: NodeJS.Timeout[] = [];
  // Passes under way, awaited by stop: none may still write once the store closes.
  const inFlight = new Set<Promise<unknown>>();
  const guarded = (name: string, fn: () => Promise<unknown>) => () => {
    const pass = fn().catch((err: unknown) => logger.error({ err }, `${name} failed`));
    inFlight.add(pass);
    void pass.finally(() => inFlight.delete(pass));
  };
  const evaluateAndDeliver = async () => {
    await evaluate();
    await deliver();
  };

  return {
    evaluate,
    deliver,
    prune,
    /** Starts both passes; nothing runs without rules. */
    start() {
      if (config.rules.length === 0 || timers.length > 0) return;
      timers = [
        setInterval(guarded('alert evaluation', async () => {
          await evaluate();
          await prune();
        }), config.evaluateEveryMs),
        setInterval(guarded('alert delivery', deliver), config.deliverEveryMs),
      ];
      for (const timer of timers) timer.unref();
    },
    /** Stops the timers and waits for the passes under way. */
    async stop() {
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await Promise.all([...inFlight]);
    },
    /** The run-finished hook: a finish may start or clear a condition, so a pass runs now rather than at the next tick. */
    onRunSettled() {
      if (config.rules.length === 0 || timers.length === 0) return;
      guarded('alert evaluation', evaluateAndDeliver)();
    },
    rules() {
      return {
        rules: config.rules,
        // Where each sink sends, without its path or query (a receiver's token may live there) and never its secret.
        sinks: Object.values(config.sinks).map((sink) => ({
          name: sink.name,
          kind: sink.kind,
          origin: new URL(sink.url).origin,
          allowPrivate: sink.allowPrivate,
          timeoutMs: sink.timeoutMs,
          retry: sink.retry,
          ...(sink.kind === 'webhook' || sink.kind === 'chat' ? { secretEnv: sink.secretEnv } : {}),
          ...(sink.kind === 'chat' ? { channel: sink.channel } : {}),
        })),
      };
    },
    async list(limit: number) {
      const all = await views();
      return { total: all.length, alerts: all.slice(0, limit) };
    },
    async deadLetters() {
      const dead = (await views()).flatMap((view) =>
        view.deliveries
          .filter((d) => d.status === 'dead')
          .map((d) => ({ ...d, ruleId: view.ruleId, subject: view.subject, kind: view.kind, summary: view.summary, at: view.at })),
      );
      return { count: dead.length, deadLetters: dead };
    },
  };
}
export type AlertService = ReturnType<typeof createAlertService>;
