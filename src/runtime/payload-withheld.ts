/**
 * A run view with what the run was given and what it answered left out: its payload, result,
 * result summary and the input approvers gave. Where config `viewerSeesPayloads` is false the
 * viewer role (viewer keys and scoped tokens) is shown runs this way; status, timing, events and
 * errors stay, so a viewer still follows the run (docs/tokens.md).
 */
export function withoutPayloads<T extends Record<string, unknown>>(run: T): T {
  const approval = run.approval as { decisionHistory?: Array<Record<string, unknown>> } | undefined;
  return {
    ...run,
    payload: {},
    result: null,
    resultSummary: { keys: [], highlights: {} },
    payloadWithheld: true,
    ...(approval
      ? { approval: { ...approval, decisionHistory: (approval.decisionHistory ?? []).map(({ input: _input, ...entry }) => entry) } }
      : {}),
  };
}
