import type { AlertRule } from '../config/alerts.js';
import type { StateStore } from '../store/types.js';
import { ALERT_COLLECTIONS, type ActiveCondition, type AlertEpisode, type AlertNotice, type NoticeKind } from './types.js';

/**
 * Episodes and their notices in the store. Every write that decides "send" is an `insertDoc` of
 * a deterministic id, so of several instances evaluating the same condition at once exactly one
 * wins and one notice exists: a claim in the shared store, never in a process's memory.
 */
export function episodeId(ruleId: string, subject: string): string {
  return `${ruleId}|${subject}`;
}

/** A firing notice per dedupe window of the episode (0 at its opening), one recovery notice per episode. */
export function noticeId(episode: AlertEpisode, kind: NoticeKind, window: number): string {
  const base = `${episodeId(episode.ruleId, episode.subject)}|${episode.openedAt}`;
  return kind === 'resolved' ? `${base}|resolved` : `${base}|firing|${window}`;
}

export function createEpisodeLedger(store: StateStore) {
  /** The episode of a condition: the stored one, or a new one opened at `at` when this call creates it. */
  async function openEpisode(condition: ActiveCondition, at: string): Promise<AlertEpisode> {
    const id = episodeId(condition.ruleId, condition.subject);
    const fresh: AlertEpisode = { ruleId: condition.ruleId, subject: condition.subject, openedAt: at, summary: condition.summary, labels: condition.labels };
    if (await store.insertDoc(ALERT_COLLECTIONS.episodes, id, { ...fresh })) return fresh;
    const stored = await store.getDoc(ALERT_COLLECTIONS.episodes, id);
    // Removed between the two reads (its recovery was just claimed): this condition opens the next one.
    if (!stored) return openEpisode(condition, at);
    return stored as unknown as AlertEpisode;
  }

  /** Stores the notice unless another instance did; true when this call made it. */
  async function claimNotice(notice: AlertNotice): Promise<boolean> {
    return store.insertDoc(ALERT_COLLECTIONS.notices, notice.noticeId, { ...notice });
  }

  async function episodes(): Promise<AlertEpisode[]> {
    return (await store.listDocs(ALERT_COLLECTIONS.episodes)) as unknown as AlertEpisode[];
  }

  async function closeEpisode(episode: AlertEpisode): Promise<void> {
    await store.deleteDoc(ALERT_COLLECTIONS.episodes, episodeId(episode.ruleId, episode.subject));
  }

  return { openEpisode, claimNotice, episodes, closeEpisode };
}
export type EpisodeLedger = ReturnType<typeof createEpisodeLedger>;

/** The notice an episode sends now: its firing for the current window, or its recovery. */
export function noticeFor(rule: AlertRule, episode: AlertEpisode, kind: NoticeKind, now: Date, current?: ActiveCondition): AlertNotice {
  const windowMs = rule.dedupeWindowSeconds * 1000;
  const window = Math.max(0, Math.floor((now.getTime() - Date.parse(episode.openedAt)) / windowMs));
  return {
    noticeId: noticeId(episode, kind, window),
    ruleId: rule.id,
    subject: episode.subject,
    kind,
    severity: rule.severity,
    at: now.toISOString(),
    startsAt: episode.openedAt,
    endsAt: kind === 'resolved' ? now.toISOString() : null,
    // A firing holds until the window after next: a repeat refreshes it, a stopped service lets it lapse.
    validUntil: kind === 'firing' ? new Date(now.getTime() + 2 * windowMs).toISOString() : null,
    summary: kind === 'resolved' ? `resolved: ${episode.summary}` : (current?.summary ?? episode.summary),
    labels: current?.labels ?? episode.labels,
    sinks: rule.sinks,
  };
}
