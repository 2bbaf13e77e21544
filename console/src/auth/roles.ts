/** Key roles, lowest first: a route open to a role is open to every higher one. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

export function hasRole(role: Role | null | undefined, required: Role): boolean {
  if (!role) return false;
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/**
 * The least role each console action needs, as the route table declares it. The console hides
 * or disables what the identity cannot do; the service enforces it regardless.
 */
export const ACTION_ROLES = {
  triggerTask: 'operator',
  writeSchedules: 'operator',
  switchBusinessScheduler: 'operator',
  searchKnowledge: 'operator',
  readApprovals: 'operator',
  decideApproval: 'operator',
  acknowledgeIncident: 'operator',
  setIncidentOwner: 'operator',
  remediateIncident: 'operator',
  cancelRun: 'operator',
  rerunRun: 'operator',
  readRunLogs: 'operator',
} as const satisfies Record<string, Role>;

export type ConsoleAction = keyof typeof ACTION_ROLES;

export const can = (role: Role | null | undefined, action: ConsoleAction): boolean => hasRole(role, ACTION_ROLES[action]);
