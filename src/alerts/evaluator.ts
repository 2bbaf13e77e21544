import type { Logger } from 'pino';
import type { AlertRule } from '../config/alerts.js';
import { activeConditions, type ConditionSources } from './conditions.js';
import { episodeId, noticeFor, type EpisodeLedger } from './episode-ledger.js';

export interface EvaluatorDeps {
  rules: AlertRule[];
  sources: ConditionSources;
  ledger: EpisodeLedger;
  logger: Logger;
}

/** What one pass claimed: the notices this instance made (another instance's are not counted). */
export interface EvaluationOutcome {
  fired: number;
  resolved: number;
}

/**
 * One evaluation pass over every rule: each holding condition opens (or continues) its episode
 * and claims the firing notice of the current dedupe window; each open episode whose condition no
 * longer holds claims its recovery notice and closes. A rule whose reads fail is skipped this
 * pass, its episodes left open: an unreadable store is not a recovery.
 */
export async function evaluateRules(deps: EvaluatorDeps, now: Date): Promise<EvaluationOutcome> {
  const { rules, sources, ledger, logger } = deps;
  const outcome: EvaluationOutcome = { fired: 0, resolved: 0 };
  const evaluated = new Map<string, Set<string>>();
  for (const rule of rules) {
    try {
      const conditions = await activeConditions(rule, sources, now.getTime());
      evaluated.set(rule.id, new Set(conditions.map((c) => episodeId(c.ruleId, c.subject))));
      for (const condition of conditions) {
        const episode = await ledger.openEpisode(condition, now.toISOString());
        if (await ledger.claimNotice(noticeFor(rule, episode, 'firing', now, condition))) outcome.fired += 1;
      }
    } catch (err) {
      logger.error({ err, rule: rule.id }, 'alert rule evaluation failed');
    }
  }
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  for (const episode of await ledger.episodes()) {
    const rule = byId.get(episode.ruleId);
    if (!rule) {
      // Its rule left the config: nothing can clear it any more, and nobody asked for its recovery.
      await ledger.closeEpisode(episode);
      continue;
    }
    const holding = evaluated.get(rule.id);
    if (!holding || holding.has(episodeId(episode.ruleId, episode.subject))) continue;
    if (await ledger.claimNotice(noticeFor(rule, episode, 'resolved', now))) outcome.resolved += 1;
    await ledger.closeEpisode(episode);
  }
  return outcome;
}
