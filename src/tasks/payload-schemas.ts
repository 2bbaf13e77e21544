import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';

/**
 * One TypeBox schema per task type: the one payload contract from admission to worker. The
 * trigger route validates with them, the catalog route publishes them as each entry's payload
 * schema (the console's payload templates come from their `examples`), and the worker SDK checks
 * the payload again with the same checker (src/tasks/payload-check.ts) and hands the lane its
 * static type, so a lane does not re-check what is written here. Every schema and field carries
 * a description. Payload objects are open (additionalProperties true): fields the contract does
 * not name are kept and handed to the lane unchanged, while a named field of the wrong type is
 * refused.
 *
 * No schema declares a `default`: admission checks a payload as sent and stores it unchanged, so
 * a default here would be seen by one side and not the other. A lane applies its own documented
 * defaults to an absent field.
 *
 * This module imports only TypeBox: worker processes load it.
 */

/** 1–200 printable ASCII characters, no whitespace (it becomes the run id). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,200}$';

/**
 * The rule of a name that becomes a file name (a work chain's evidence folder), as schedule ids
 * follow it: letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 100. It
 * can never be `.` or `..`, nor hold a `/`.
 */
export const WORK_CHAIN_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

const COMMON_FIELDS = {
  requiresApproval: Type.Optional(
    Type.Boolean({ description: 'When true, the run is held for an operator decision before it executes.' }),
  ),
  idempotencyKey: Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Becomes the run id; a second trigger with the same key is suppressed as a duplicate. 1–200 printable characters without whitespace.',
    }),
  ),
};

/**
 * A payload schema. `example` is a complete payload that passes the schema; the console offers
 * it as the starting payload of the trigger form.
 */
function payload<P extends TProperties>(description: string, fields: P, example?: Record<string, unknown>) {
  return Type.Object({ ...COMMON_FIELDS, ...fields }, { additionalProperties: true, description, ...(example ? { examples: [example] } : {}) });
}

const workspacePath = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, description: `${description} Relative to the workspace root.` });

const postureScope = (what: string) => workspacePath(`Directory or file ${what}.`);

/** A described string with optional length bounds. */
const text = (description: string, options: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({ description, ...options });

const CHANGE_SET = Type.Union(
  [
    Type.Object(
      {
        path: workspacePath('File to edit.'),
        search: Type.String({ minLength: 1, description: 'Exact text to find; the run fails when it is absent.' }),
        replace: Type.String({ description: 'Replacement text.' }),
      },
      { additionalProperties: false, description: 'Search-and-replace edit.' },
    ),
    Type.Object(
      {
        path: workspacePath('File to write.'),
        content: Type.String({ description: 'Full new file content.' }),
      },
      { additionalProperties: false, description: 'Whole-file write.' },
    ),
    Type.Object(
      {
        path: workspacePath('File to delete.'),
        delete: Type.Literal(true, { description: 'Must be true.' }),
      },
      { additionalProperties: false, description: 'File deletion.' },
    ),
  ],
  { description: 'One explicit change: {path, search, replace}, {path, content} or {path, delete: true}.' },
);

const NORMALIZE_FIELD_TYPE = Type.Enum(['string', 'number', 'integer', 'boolean', 'date', 'email', 'url'], {
  description: 'Target type of the field.',
});

const INTEGRATION_STEP = Type.Union(
  [
    Type.String({ minLength: 1, maxLength: 500, description: "Shorthand '<task-type>: <description>'." }),
    Type.Object(
      {
        type: Type.String({ minLength: 1, description: 'Task type of the step.' }),
        payload: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Payload of the step.' })),
        description: Type.Optional(Type.String({ maxLength: 500, description: 'What the step is for.' })),
        reroute: Type.Optional(
          Type.String({ minLength: 1, description: 'Task type run when this step fails (default incident-triage).' }),
        ),
      },
      { additionalProperties: false, description: 'Explicit step.' },
    ),
  ],
  { description: "A step: shorthand string '<task-type>: <description>' or {type, payload?, description?}." },
);

export const PAYLOAD_SCHEMAS = {
  startup: payload('Internal: no fields.', {}),
  heartbeat: payload('Internal: no fields.', {}),
  'doc-change': payload('Internal: changed doc paths relative to docsPath.', {
    paths: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      maxItems: 1000,
      description: 'Changed doc paths relative to docsPath.',
    }),
  }),

  'doc-sync': payload('No fields: the docs folder comes from the service configuration.', {}),
  'business-value-cycle': payload(
    'Bounded business planner cycle.',
    { reason: Type.Optional(text('Why the cycle was triggered.', { maxLength: 500 })) },
    { reason: 'Weekly review of the business registry' },
  ),
  'drift-repair': payload('Repair drifted docs and regenerate the knowledge pack.', {
    requestedBy: Type.Optional(text('Who or what asked for the repair (informational; identity comes from the key).', { maxLength: 200 })),
    paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024, description: 'Doc path relative to docsPath.' }), {
        maxItems: 500,
        description: 'Doc paths to audit, relative to docsPath; they may not climb out of the workspace.',
      }),
    ),
    notes: Type.Optional(text('Free-form notes for the repair record.', { maxLength: 2000 })),
  }, { requestedBy: 'operator', notes: 'Re-pack the knowledge after the docs review' }),
  'rss-sweep': payload('No fields: feeds come from the file at config rssConfigPath.', {}),
  'nightly-batch': payload('No fields: works over the RSS drafts in state.', {}),
  'send-digest': payload('Digest delivery to config digestTargetUrl.', {
    historyLimit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'How many recent task-history entries to include (default 20).' }),
    ),
  }, { historyLimit: 20 }),
  'community-response': payload('Draft community replies; only items with selectedForDraft true are drafted.', {
    source: Type.Optional(text('What queued the item, e.g. nightly-batch.', { maxLength: 100 })),
    itemUrl: Type.Optional(text('URL of the lead being answered.', { maxLength: 2048 })),
    itemTitle: Type.Optional(text('Title of the lead.', { maxLength: 500 })),
    selectedForDraft: Type.Optional(Type.Boolean({ description: 'The item is cleared for drafting.' })),
    reviewReason: Type.Optional(
      Type.Enum(['manual-review', 'promotion'], { description: 'Why the item was routed through an approval.' }),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'One lead: title (or postTitle/itemTitle), body (or question/content), url (or itemUrl), postId, subcommunity, selectedForDraft; items naming none of title, body, url and postId are skipped.',
          },
        ),
        { maxItems: 100, description: 'Several leads in one run, instead of the single lead the top-level fields describe.' },
      ),
    ),
  }, { itemUrl: 'https://forum.example.com/t/queue-retries/42', itemTitle: 'How do retries work?', selectedForDraft: true }),
  'content-generate': payload('Generate text from a named source.', {
    type: Type.Optional(text('Kind of content, e.g. operator-notice or readme.', { maxLength: 100 })),
    source: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the subject.' }),
        description: Type.String({
          maxLength: 5000,
          description: 'What the subject is, in at least three words: the text is written from it and nothing is made up.',
        }),
      },
      { additionalProperties: true, description: 'The subject of the content: the only material the text is written from.' },
    ),
    style: Type.Optional(text('Voice, e.g. client-facing or technical.', { maxLength: 100 })),
    length: Type.Optional(text('Target length, e.g. short, medium or long.', { maxLength: 50 })),
  }, {
    type: 'operator-notice',
    source: { name: 'Nightly export', description: 'The nightly billing export now starts at 02:00 UTC and writes one CSV file per account.' },
    style: 'internal',
    length: 'short',
  }),
  'market-research': payload('Research explicit URLs, or derive a source plan from query/scope hints.', {
    urls: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 20, description: 'Explicit source URLs.' }),
    ),
    query: Type.Optional(text('Research question or keywords.', { maxLength: 500 })),
    scope: Type.Optional(text('Market or domain hint for the source plan.', { maxLength: 500 })),
  }, { query: 'hosted task queue pricing' }),
  'data-extraction': payload('Extract records from inline content or a workspace file.', {
    source: Type.Union(
      [
        Type.Object(
          { content: Type.String({ maxLength: 524_288, description: 'Inline content.' }) },
          { additionalProperties: false, description: 'Inline content.' },
        ),
        Type.Object({ path: workspacePath('File to read.') }, { additionalProperties: false, description: 'Workspace file.' }),
      ],
      { description: 'Either {content} or {path}.' },
    ),
    format: Type.Optional(
      Type.Enum(['csv', 'json', 'jsonl', 'html', 'markdown', 'text'], {
        description: 'Format of the source; when absent, inferred from the extension of source.path.',
      }),
    ),
    fields: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Fields to keep; leave it out to keep every field.',
      }),
    ),
  }, { source: { content: 'id,name\n1,Ada\n2,Grace' }, format: 'csv' }),
  'normalize-data': payload('Coerce records to a field schema.', {
    records: Type.Array(Type.Object({}, { additionalProperties: true }), {
      maxItems: 10_000,
      description: 'Records to normalize.',
    }),
    schema: Type.Record(
      Type.String(),
      Type.Union([
        NORMALIZE_FIELD_TYPE,
        Type.Object(
          {
            type: NORMALIZE_FIELD_TYPE,
            required: Type.Optional(Type.Boolean({ description: 'Reject records without the field.' })),
            trim: Type.Optional(Type.Boolean({ description: 'Trim surrounding whitespace.' })),
            lowercase: Type.Optional(Type.Boolean({ description: 'Lower-case the value.' })),
          },
          { additionalProperties: false },
        ),
      ]),
      { minProperties: 1, maxProperties: 200, description: 'Field name → type, or {type, required?, trim?, lowercase?}; 1 to 200 fields.' },
    ),
    dedupeBy: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: 20,
        description: 'Schema fields whose values identify duplicates; leave it out to keep duplicates.',
      }),
    ),
  }, { records: [{ id: '1', email: ' Ada@Example.com ' }], schema: { id: 'integer', email: 'email' }, dedupeBy: ['email'] }),
  'summarize-content': payload('Summarize supplied content.', {
    sourceType: Type.Optional(text('What the content is, e.g. report.', { maxLength: 100 })),
    content: text('The text to summarize.', { minLength: 1, maxLength: 524_288 }),
    format: Type.Optional(
      Type.Enum(['executive_summary', 'bullets'], { description: 'Summary shape (default executive_summary).' }),
    ),
    maxSentences: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'Most sentences the summary keeps (default: scaled to the length of the content).' }),
    ),
  }, {
    content: 'The deploy finished at noon. Two services restarted cleanly. The queue drained within five minutes and no run failed.',
    format: 'bullets',
  }),
  'control-plane-brief': payload('No fields: reads the control plane’s own state.', {}),
  'incident-triage': payload('No fields: ranks the open incidents.', {}),
  'release-readiness': payload(
    'Release posture (go/hold/block).',
    { scope: Type.Optional(postureScope('of the release candidate; without it only the control plane is judged')) },
    { scope: 'projects/app' },
  ),
  'deployment-ops': payload('No fields: deployment posture (ready/watch/blocked).', {}),
  'code-index': payload(
    'Read-only code index.',
    {
      scope: postureScope('to index'),
      previousIndexAt: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Number({ minimum: 0 })], {
          description:
            "When the previous index was taken: a date (a previous result's indexedAt) or epoch milliseconds; files modified since are listed in changedSince.",
        }),
      ),
    },
    { scope: 'projects/app' },
  ),
  'test-intelligence': payload('Test posture from existing reports.', {
    scope: postureScope('holding the project'),
    reports: Type.Optional(
      Type.Array(workspacePath('Test report file.'), { maxItems: 50, description: 'Test report files to read; leave it out (or empty) to search the scope.' }),
    ),
  }, { scope: 'projects/app' }),
  'security-audit': payload('Security scan of a scoped path.', {
    type: Type.Optional(Type.Enum(['scan', 'secrets', 'code', 'deps'], { description: 'Kind of audit (default scan).' })),
    scope: postureScope('to audit'),
  }, { type: 'scan', scope: 'projects/app' }),
  'system-monitor': payload(
    'Service health check.',
    {
      type: Type.Optional(
        Type.Enum(['health', 'resources', 'queue', 'services'], {
          description: 'Which checks run: health (all of them), resources (host), queue or services (default health).',
        }),
      ),
    },
    { type: 'health' },
  ),
  'qa-verification': payload('Plan or execute a verification suite.', {
    target: workspacePath('Directory or file under test.'),
    suite: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
        description:
          'Suite name, e.g. smoke: it runs the npm script test:<suite> (else test), so it stays a plain word: letters, digits, ".", "_", "-"; up to 64 (default full).',
      }),
    ),
    mode: Type.Optional(Type.Enum(['dry-run', 'execute'], { description: 'dry-run plans only; execute runs the suite (default dry-run).' })),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1_000,
        maximum: 540_000,
        description: "How long the suite may run in execute mode, in milliseconds (default 120000); below the agent's own worker timeout.",
      }),
    ),
  }, { target: 'projects/app', suite: 'smoke', mode: 'dry-run' }),
  'skill-audit': payload(
    'Audit allowed skills.',
    { agentId: Type.Optional(text('Agent to audit (default all).', { minLength: 1, maxLength: 100 })) },
    { agentId: 'summarization-agent' },
  ),
  'integration-workflow': payload('Run a short workflow of task steps; empty falls back to the default workflow.', {
    steps: Type.Optional(Type.Array(INTEGRATION_STEP, { maxItems: 25, description: 'Workflow steps in order.' })),
  }, { steps: ['system-monitor: check service health', 'incident-triage: rank what is failing'] }),
  'compliance-review': payload('Read-only compliance review.', { scope: postureScope('to review') }, { scope: 'projects/app' }),
  'build-refactor': payload('Scoped code change; approval-gated by default.', {
    type: Type.Optional(text('Kind of change, e.g. refactor.', { maxLength: 100 })),
    scope: postureScope('the change is confined to'),
    intent: Type.Optional(text('What the change should achieve.', { maxLength: 2000 })),
    constraints: Type.Optional(
      Type.Object(
        {
          maxFilesChanged: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 50, description: 'The run fails, changing nothing, when more files would change.' }),
          ),
          runTests: Type.Optional(Type.Boolean({ description: 'Run the verification after the change.' })),
        },
        { additionalProperties: true, description: 'Bounds of the change.' },
      ),
    ),
    changes: Type.Optional(Type.Array(CHANGE_SET, { maxItems: 50, description: 'Explicit patch set.' })),
    testRunner: Type.Optional(
      Type.Object(
        {
          script: Type.String({
            pattern: '^[A-Za-z0-9:_.-]{1,100}$',
            description: 'An npm script of the target project.',
          }),
        },
        { additionalProperties: false, description: 'Whitelisted verification runner.' },
      ),
    ),
  }, {
    scope: 'projects/app',
    intent: 'Raise the request timeout',
    changes: [{ path: 'projects/app/src/config.ts', search: 'timeoutMs: 1000', replace: 'timeoutMs: 5000' }],
    constraints: { maxFilesChanged: 1, runTests: true },
  }),
  'agent-deploy': payload('Copy an agent template into a new deployment directory; approval-gated by default.', {
    agentName: Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'Template name: a directory under agentsDir.' }),
    templatePath: Type.Optional(workspacePath('Template directory to use instead of <agentsDir>/<agentName>.')),
    deployName: Type.Optional(
      Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'Deployment directory prefix (default agentName).' }),
    ),
    version: Type.Optional(text('Version recorded in the deployment metadata.', { maxLength: 100 })),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: 'Tags recorded in the metadata.' }),
    ),
    config: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Configuration recorded in the metadata.' }),
    ),
  }, { agentName: 'summarization-agent', version: '1.0.0' }),
  'autonomous-intake-cycle': payload('Intake from approved sources; unknown or unapproved sources are not run.', {
    sources: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, description: 'Source kinds to consider.' }),
    ),
    batchSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, description: 'Most work cycles to enqueue.' })),
    maxAgeHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760, description: 'Items older than this are refused as stale (default 72).' })),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            source: text('Where the item came from; only approved sources are taken in (others are refused with a reason).', { maxLength: 100 }),
            id: text('The item’s id within its source; with the source it makes the idempotency key.', { maxLength: 100 }),
            requestedOutcome: text('What the work cycle should achieve.', { maxLength: 500 }),
          },
          { additionalProperties: true, description: 'One intake item (priority, createdAt, projectRoot, maxSteps and provenance are optional).' },
        ),
        { maxItems: 200, description: 'Items to take in.' },
      ),
    ),
  }, { batchSize: 5, items: [{ source: 'operator', id: 'req-1', requestedOutcome: 'Find why the export test fails on Mondays' }] }),
  'autonomous-work-cycle': payload('Tool-gated pursuit of one requested outcome.', {
    requestedOutcome: text('What the cycle should achieve, concisely.', { minLength: 1, maxLength: 500 }),
    projectRoot: Type.Optional(workspacePath('Project directory the cycle works in.')),
    maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, description: 'Step budget (default 8).' })),
    workChainId: Type.Optional(
      Type.String({
        pattern: WORK_CHAIN_ID_PATTERN,
        description:
          'The work chain this run continues (its evidence folder): a name of letters, digits, ".", "_", "-" starting with a letter or digit, at most 100. Only the actor who started the chain, or an admin, may continue it.',
      }),
    ),
  }, { requestedOutcome: 'Find why the export test fails on Mondays', projectRoot: 'projects/app', maxSteps: 8 }),
} satisfies Record<string, TObject>;

/** A task type that has a payload schema: every type of the catalog. */
export type PayloadTaskType = keyof typeof PAYLOAD_SCHEMAS;

/** The payload of a task type as its schema describes it (what a lane may rely on once checked). */
export type TaskPayload<T extends PayloadTaskType> = Static<(typeof PAYLOAD_SCHEMAS)[T]>;

export function isPayloadTaskType(type: string): type is PayloadTaskType {
  return Object.hasOwn(PAYLOAD_SCHEMAS, type);
}

export function getPayloadSchema(type: string): TSchema | undefined {
  return isPayloadTaskType(type) ? PAYLOAD_SCHEMAS[type] : undefined;
}
