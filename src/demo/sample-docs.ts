/**
 * Operator runbooks the demo puts in the docs folder, so doc-sync has real Markdown to index and
 * a first-time operator has short answers to the first questions. Paths are relative to docsPath.
 */
export const SAMPLE_DOCS: Readonly<Record<string, string>> = {
  'README.md': `# Operator runbooks

Short procedures for running the task orchestrator day to day.

- [Rotating API keys](rotating-keys.md): replace a key without locking anyone out.
- [Approvals](approvals.md): decide on tasks that wait for an operator.
- [Reading a run](reading-runs.md): find out what a task did and why it stopped.

Every request below needs \`Authorization: Bearer <key>\`; \`GET /api/auth/me\` tells which
identity and role a key has.
`,

  'rotating-keys.md': `# Rotating API keys

Keys are configured, not issued by the service. Rotate one by running the old and the new key
side by side, then retiring the old one.

## Steps

1. Generate a new key:
   \`node -e "console.log(require('crypto').randomBytes(24).toString('base64url'))"\`.
2. Add it to \`API_KEY_ROTATION\` next to the old one, with the next version in its label
   (\`ops:v2\` after \`ops:v1\`) and the same role. Give the old key an \`expiresAt\` a few days out.
3. Restart the service so it reads the new configuration.
4. Check the new key with \`GET /api/auth/me\`: the answer names the actor, role and label.
5. Move every client to the new key. Responses to a key with an expiry carry
   \`X-API-Key-Expires\`, so a client still on the old key can warn before it stops working.
6. Remove the old entry (or set \`"active": false\`) and restart again.

## What to expect

An expired, inactive or unknown key gets 401 with one message for all three, so a caller cannot
tell which. Keys never appear in logs or responses.
`,

  'approvals.md': `# Approvals

Some tasks wait for an operator before they run: \`build-refactor\` and \`agent-deploy\` always,
and any task triggered with \`"requiresApproval": true\` in its payload.

## Deciding

1. List what waits: \`GET /api/approvals/pending\` (operator role). Each item shows the task
   type, its impact (risk level, reason, affected surfaces) and a preview of the payload.
2. Read the payload preview before deciding: an approved task runs exactly as requested.
3. Decide: \`POST /api/approvals/<task id>/decision\` with
   \`{"decision": "approved"}\` or \`{"decision": "rejected", "note": "why"}\`.

## After the decision

Approved work runs as a new run with the id \`approval-replay:<task id>\`; the held run is
closed and links to it in \`approval.replayRunId\`. A rejected run ends \`failed\` with the
reason \`approval_rejected\`. When two operators decide at once, exactly one decision wins; the
other gets \`409\`.
`,

  'reading-runs.md': `# Reading a run

Every trigger answers \`202\` with a \`runId\`. \`GET /api/tasks/runs/<runId>\` (viewer role) shows
everything the run did; \`GET /api/tasks/runs\` lists recent runs.

## Status

- \`pending\`: queued (\`queueState: ready\`) or waiting for approval (\`queueState: held\`).
- \`running\`: a handler or worker is working on it.
- \`success\` / \`failed\`: finished. A failed run says why in \`error\`.
- \`retrying\`: a transient failure; the run is tried again after a backoff.

## Where to look

1. \`result\` holds the task's whole answer; \`resultSummary\` is its short form.
2. Worker tasks add \`operatorSummary\` (one sentence on what happened) and
   \`recommendedNextActions\` (what to do next).
3. \`queueAttempts\` lists each attempt and its state; \`events\` is the ordered evidence of
   queueing, approval and retries.
4. A refusal shows in \`specialistContract.refusalReason\`: the task was understood but declined,
   and resending it unchanged will not help.

Sending the same \`idempotencyKey\` again does not start a second run: the answer is \`200\` with
\`duplicate-suppressed\` and the id of the run that already exists.
`,
};
