import { docSyncType } from '../lanes/doc-sync/definition.js';
import { securityAuditType } from '../lanes/security-audit/definition.js';
import { summarizeContentType } from '../lanes/summarize-content/definition.js';
import { SAMPLE_PROJECT_DIR } from './sample-project.js';

/** What `curl` needs to reach the running demo with a key. */
export interface DemoEndpoint {
  url: string;
  operatorKey: string;
}

function trigger(endpoint: DemoEndpoint, body: unknown): string {
  return [
    'curl',
    `-H "Authorization: Bearer ${endpoint.operatorKey}"`,
    `-H 'content-type: application/json'`,
    `-d '${JSON.stringify(body)}'`,
    `${endpoint.url}/api/tasks/trigger`,
  ].join(' ');
}

/**
 * Commands that show the seeded workspace at work, printed once the demo listens: index the
 * runbooks, summarize text, audit the sample project, then read the run a trigger answered with.
 * One line each so they paste into a shell as they are.
 */
export function demoCommands(endpoint: DemoEndpoint): string[] {
  return [
    'Try it (each trigger answers 202 with a runId):',
    `  ${trigger(endpoint, { type: docSyncType.type, payload: {} })}`,
    `  ${trigger(endpoint, { type: summarizeContentType.type, payload: { content: 'The deploy finished at noon. Nothing broke.', format: 'bullets' } })}`,
    `  ${trigger(endpoint, { type: securityAuditType.type, payload: { type: 'scan', scope: SAMPLE_PROJECT_DIR } })}`,
    'Run a business-value cycle on the sample registry, then read its ranked candidates:',
    `  curl -X POST -H "Authorization: Bearer ${endpoint.operatorKey}" -H 'content-type: application/json' -d '{"reason":"demo"}' ${endpoint.url}/api/business/cycle/trigger`,
    `  curl -H "Authorization: Bearer ${endpoint.operatorKey}" ${endpoint.url}/api/business/overview`,
    'Then read a run:',
    `  curl -H "Authorization: Bearer ${endpoint.operatorKey}" ${endpoint.url}/api/tasks/runs/<runId>`,
    `Or open the operator console at ${endpoint.url}/operator and sign in with the operator key.`,
    '',
  ];
}
