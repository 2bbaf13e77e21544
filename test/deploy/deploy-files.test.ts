import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { REPO_ROOT } from '../support/paths.js';

const DEPLOY = join(REPO_ROOT, 'deploy');
const read = (...parts: string[]) => readFileSync(join(DEPLOY, ...parts), 'utf8');

/**
 * The environment variables the service reads, taken from its source: the env overrides table
 * of the config loader plus the variables read directly at start-up (keys, webhook secret, config file).
 */
function serviceVariables(): Set<string> {
  const loader = readFileSync(join(REPO_ROOT, 'src', 'config', 'load.ts'), 'utf8');
  const names = new Set<string>();
  for (const m of loader.matchAll(/^\s*\['([A-Z][A-Z0-9_]+)', '/gm)) names.add(m[1]!);
  for (const m of loader.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  return names;
}

/** KEY=value lines of an env file (comments and blank lines skipped); refuses any other line. */
function envFile(text: string, name: string): { set: string[]; documented: string[] } {
  const set: string[] = [];
  const documented: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const commented = /^#\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (commented) documented.push(commented[1]!);
    if (line.startsWith('#')) continue;
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new Error(`${name}:${i + 1} is not KEY=value: ${line}`);
    set.push(m[1]!);
  }
  return { set, documented };
}

function compose(file: string) {
  const doc = parseDocument(read('compose', file), { strict: true, uniqueKeys: true, prettyErrors: true });
  expect(doc.errors, `${file} parses`).toEqual([]);
  return doc.toJS() as {
    services: Record<
      string,
      {
        image?: string;
        build?: unknown;
        user?: string;
        environment?: Record<string, string>;
        env_file?: string[];
        ports?: string[];
        healthcheck?: { test: string[] };
        depends_on?: Record<string, { condition: string }>;
      }
    >;
  };
}

/** Variables a compose file substitutes (`${NAME}`, `${NAME:-default}`, `${NAME:?message}`), with whether they are required. */
function interpolated(text: string): Map<string, 'required' | 'defaulted'> {
  const vars = new Map<string, 'required' | 'defaulted'>();
  for (const m of text.matchAll(/(?<!\$)\$\{([A-Z][A-Z0-9_]*)(:?[-?])?/g)) vars.set(m[1]!, m[2]?.includes('-') ? 'defaulted' : 'required');
  return vars;
}

describe('deploy files', () => {
  const service = serviceVariables();

  it('finds the variables the service reads in its source', () => {
    for (const name of ['API_KEY_ROTATION', 'API_KEY', 'WEBHOOK_SECRET', 'ORCHESTRATOR_CONFIG', 'DATABASE_URL', 'KV_STORE_URL', 'TRUST_PROXY', 'PORT']) {
      expect(service.has(name), name).toBe(true);
    }
  });

  it('the full env example names every variable the service reads, and only those', () => {
    const { set, documented } = envFile(read('env', 'orchestrator.env.example'), 'orchestrator.env.example');
    expect([...new Set([...set, ...documented])].sort()).toEqual([...service].sort());
  });

  it('the demo stack: service on loopback 4300->3000 as a non-root user, healthy dependencies, only variables the service reads', () => {
    const text = read('compose', 'demo.yaml');
    const { services } = compose('demo.yaml');
    expect(Object.keys(services).sort()).toEqual(['orchestrator', 'postgres', 'redis']);
    const orchestrator = services.orchestrator!;
    expect(orchestrator.ports).toEqual(['127.0.0.1:4300:3000']);
    expect(orchestrator.user).toBe('node');
    expect(orchestrator.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(orchestrator.healthcheck?.test.join(' ')).toContain('/health');
    for (const [name, s] of Object.entries(services)) {
      expect(s.healthcheck, `${name} health check`).toBeDefined();
      expect(s.user ?? 'root', `${name} runs as a non-root user`).not.toMatch(/^(root|0)(:|$)/);
    }
    for (const name of Object.keys(orchestrator.environment ?? {})) expect(service.has(name), `${name} is read by the service`).toBe(true);
    expect(orchestrator.environment?.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(orchestrator.environment?.KV_STORE_URL).toMatch(/^redis:\/\//);
    const env = envFile(read('env', 'demo.env.example'), 'demo.env.example');
    for (const name of env.set) expect(service.has(name), `${name} is read by the service`).toBe(true);
    expect(env.set).toEqual(expect.arrayContaining(['API_KEY_ROTATION', 'WEBHOOK_SECRET', 'LOG_LEVEL', 'ORCHESTRATOR_FAST_START']));
    // Three demo keys, one per role.
    const rotation = JSON.parse(/^API_KEY_ROTATION=(.*)$/m.exec(read('env', 'demo.env.example'))![1]!) as Array<{ role: string }>;
    expect(rotation.map((k) => k.role)).toEqual(['viewer', 'operator', 'admin']);
    const stack = envFile(read('env', 'demo.stack.env.example'), 'demo.stack.env.example');
    expect(stack.set.sort()).toEqual([...interpolated(text).keys()].sort());
  });

  it('the advanced stack adds Prometheus, Alertmanager with its relay, and Grafana on loopback and requires its startup secrets', () => {
    const text = read('compose', 'advanced.yaml');
    const { services } = compose('advanced.yaml');
    expect(Object.keys(services).sort()).toEqual(['alert-relay', 'alertmanager', 'grafana', 'orchestrator', 'postgres', 'prometheus', 'redis']);
    for (const [name, s] of Object.entries(services)) {
      expect(s.healthcheck, `${name} health check`).toBeDefined();
      for (const port of s.ports ?? []) expect(port, `${name} publishes on loopback only`).toMatch(/^127\.0\.0\.1:/);
      expect(s.user ?? 'root', `${name} runs as a non-root user`).not.toMatch(/^(root|0)(:|$)/);
    }
    expect(services.orchestrator!.user).toBe('node');
    for (const name of Object.keys(services.orchestrator!.environment ?? {})) expect(service.has(name), `${name} is read by the service`).toBe(true);
    expect(services.orchestrator!.env_file).toEqual(['../env/orchestrator.env']);
    const vars = interpolated(text);
    for (const secret of ['API_KEY', 'WEBHOOK_SECRET', 'POSTGRES_USER', 'POSTGRES_PASSWORD', 'GRAFANA_ADMIN_PASSWORD']) expect(vars.get(secret), secret).toBe('required');
    const stack = envFile(read('env', 'advanced.stack.env.example'), 'advanced.stack.env.example');
    expect(stack.set.sort()).toEqual([...vars.keys()].sort());
    const prometheus = parseDocument(read('prometheus', 'prometheus.yml'), { strict: true }).toJS() as {
      scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
    };
    expect(prometheus.scrape_configs[0]!.static_configs[0]!.targets).toEqual(['orchestrator:9464']);
    expect(services.orchestrator!.environment?.METRICS_PORT).toBe('9464');
    // The alerting sidecar: the rules Prometheus loads, Alertmanager routing to the relay on its loopback.
    const rules = parseDocument(read('prometheus', 'alert-rules.yml'), { strict: true }).toJS() as { groups: Array<{ rules: Array<{ alert: string }> }> };
    expect(rules.groups[0]!.rules.map((r) => r.alert)).toEqual(['OrchestratorInstanceDown', 'OrchestratorQueueAge', 'OrchestratorFailureRate', 'OrchestratorDatabaseUnavailable']);
    const am = parseDocument(read('prometheus', 'alertmanager.yml'), { strict: true }).toJS() as { receivers: Array<{ webhook_configs: Array<{ url: string; send_resolved: boolean }> }> };
    expect(am.receivers[0]!.webhook_configs[0]).toEqual({ url: 'http://127.0.0.1:9095/', send_resolved: true });
    const relay = services['alert-relay'] as { network_mode?: string; command?: string[]; environment?: Record<string, string> };
    expect(relay.network_mode).toBe('service:alertmanager');
    expect(relay.command).toEqual(['node', 'dist/src/main.js', 'relay']);
    expect(relay.environment?.RELAY_PORT).toBe('9095');
  });

  it('the systemd units are well-formed; the service unit is the port 3312 variant', () => {
    for (const file of readdirSync(join(DEPLOY, 'systemd')).filter((f) => f.endsWith('.service'))) {
      let section = '';
      const sections = new Set<string>();
      for (const [i, raw] of read('systemd', file).split('\n').entries()) {
        const line = raw.trim();
        if (line === '' || line.startsWith('#')) continue;
        const header = /^\[(Unit|Service|Install)\]$/.exec(line);
        if (header) {
          section = header[1]!;
          sections.add(section);
          continue;
        }
        expect(section, `${file}:${i + 1} lies in a section`).not.toBe('');
        expect(line, `${file}:${i + 1}`).toMatch(/^[A-Za-z]+=\S.*$/);
        const env = /^Environment=([A-Z][A-Z0-9_]*)=/.exec(line);
        if (env) expect(service.has(env[1]!), `${file}: ${env[1]} is read by the service`).toBe(true);
      }
      expect([...sections].sort(), file).toEqual(['Install', 'Service', 'Unit']);
    }
    const unit = read('systemd', 'orchestrator.service');
    expect(unit).toMatch(/^Environment=PORT=3312$/m);
    expect(unit).toMatch(/^ExecStart=.*dist\/src\/main\.js start$/m);
    expect(unit).toMatch(/^EnvironmentFile=/m);
  });
});
