import { describe, expect, it } from 'vitest';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';

const SINKS = { hook: { kind: 'webhook', url: 'https://alerts.example.net/in', secretEnv: 'ALERT_HOOK_SECRET' }, am: { kind: 'alertmanager', url: 'http://127.0.0.1:9093', allowPrivate: true } };

function load(alerts: Record<string, unknown>, env: Record<string, string> = { ALERT_HOOK_SECRET: 'hook-secret-1' }) {
  const dir = tempDir('alerts-config-');
  return () => testConfig({ ORCHESTRATOR_CONFIG: writeConfigFile(dir, { alerts }), ...env }, dir);
}

describe('config alerts', () => {
  it('resolves rules with their defaults and reads each webhook secret from the variable it names', () => {
    const config = load({ sinks: SINKS, rules: [{ id: 'final', match: { status: 'failed', finalFailureOnly: true }, sinks: ['hook', 'am'] }] })();
    expect(config.alerts.rules).toEqual([{ id: 'final', match: { status: 'failed', finalFailureOnly: true }, severity: 'warning', dedupeWindowSeconds: 3600, sinks: ['hook', 'am'] }]);
    expect(config.alerts.sinks.hook).toMatchObject({ kind: 'webhook', secret: 'hook-secret-1', allowPrivate: false, timeoutMs: 5000, retry: { maxAttempts: 8 } });
    expect(config.alerts.sinks.am).toMatchObject({ kind: 'alertmanager', allowPrivate: true });
    expect(config.alerts).toMatchObject({ evaluateEveryMs: 30_000, deliverEveryMs: 2000 });
  });

  it('is empty when absent', () => {
    const dir = tempDir('alerts-config-');
    expect(testConfig({}, dir).alerts).toEqual({ evaluateEveryMs: 30_000, deliverEveryMs: 2000, sinks: {}, rules: [], approvalLinks: true, consoleUrl: null });
  });

  it('stops the start on a rule it cannot act on, naming the rule and what is wrong', () => {
    const rule = (match: Record<string, unknown>, sinks = ['hook']) => load({ sinks: SINKS, rules: [{ id: 'r1', match, sinks }] });
    expect(rule({ status: 'failed', incident: 'opened' })).toThrow('alerts.rules "r1": match needs exactly one of');
    expect(rule({ type: 'doc-sync' })).toThrow('(found none)');
    expect(rule({ status: 'success', finalFailureOnly: true })).toThrow('finalFailureOnly goes with status "failed"');
    expect(rule({ incident: 'escalated', type: 'doc-sync' })).toThrow('an incident rule matches no task type');
    expect(rule({ incident: 'opened' }, ['pager'])).toThrow('sink "pager" is not in alerts.sinks');
    expect(load({ sinks: SINKS, rules: [] }, {})).toThrow('alerts.sinks "hook": ALERT_HOOK_SECRET (its secretEnv) is not set');
  });
});
