import { createHash } from 'node:crypto';
import { SKILL_DEFINITIONS, type SkillDefinition } from './skills/definitions.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { ProgrammingError } from '../domain/errors.js';

export {
  SKILL_DEFINITIONS,
  SKILL_EXECUTABILITY,
  SKILL_PERSISTENCE_MODES,
  SKILL_RISKS,
  type SkillDefinition,
  type SkillExecutability,
  type SkillPersistenceMode,
  type SkillRisk,
} from './skills/definitions.js';
export { LANE_SKILL_REQUIREMENTS, TOOL_GATED_LANES, laneSkillRequirements, laneSkills } from './skills/lane-requirements.js';

/** Bumped when the meaning of a registry field changes; the definition hashes track content. */
export const SKILL_REGISTRY_VERSION = '1.0.0';
const REGISTRY_SOURCE = 'src/agents/skills.ts';

/** Where a skill's definition came from and which exact content was loaded. */
export interface SkillProvenance {
  source: string;
  /** sha256 (hex) of the definition's canonical JSON (keys sorted, provenance excluded). */
  definitionHash: string;
  registryVersion: string;
}

export type GovernedSkill = Readonly<SkillDefinition & { provenance: Readonly<SkillProvenance> }>;

export interface SkillRegistry {
  /** Every skill, ordered by id. */
  list(): GovernedSkill[];
  get(id: string): GovernedSkill | undefined;
  version: string;
  /** sha256 over every definition hash in id order: changes whenever any definition does. */
  digest: string;
}


const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function definitionProblems(definitions: readonly SkillDefinition[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const d of definitions) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(d.id)) problems.push(`skill id "${d.id}" is not kebab-case`);
    if (seen.has(d.id)) problems.push(`skill id "${d.id}" is defined twice`);
    seen.add(d.id);
    if ((d.executability === 'executable') !== (d.executorBinding !== null)) {
      problems.push(`skill "${d.id}": an executable skill names its executor binding and a declared one has none`);
    }
  }
  return problems;
}

/**
 * Builds the registry from the definitions table, stamping each skill with its provenance.
 * A malformed table (duplicate id, executable skill without a binding) is a programming error
 * and throws, so a service never starts on an ambiguous registry.
 */
export function loadSkillRegistry(definitions: readonly SkillDefinition[] = SKILL_DEFINITIONS): SkillRegistry {
  const problems = definitionProblems(definitions);
  if (problems.length > 0) throw new ProgrammingError(`invalid skill registry ${REGISTRY_SOURCE}: ${problems.join('; ')}`);
  const skills = [...definitions]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((d): GovernedSkill => {
      const definition: SkillDefinition = {
        id: d.id,
        description: d.description,
        executability: d.executability,
        executorBinding: d.executorBinding,
        persistenceMode: d.persistenceMode,
        risk: d.risk,
      };
      const provenance = Object.freeze({
        source: REGISTRY_SOURCE,
        definitionHash: sha256(canonicalJson(definition)),
        registryVersion: SKILL_REGISTRY_VERSION,
      });
      return Object.freeze({ ...definition, provenance });
    });
  const byId = new Map(skills.map((s) => [s.id, s]));
  return {
    list: () => [...skills],
    get: (id) => byId.get(id),
    version: SKILL_REGISTRY_VERSION,
    digest: sha256(skills.map((s) => s.provenance.definitionHash).join('\n')),
  };
}

export interface ManifestSkillProblem {
  manifestPath: string;
  field: 'allowedSkills';
  message: string;
}

/**
 * Every `allowedSkills` id that the registry does not know, one problem per id. Start-up turns
 * the first into one line (`<manifestPath> allowedSkills: <message>`) and exits.
 */
export function validateManifestSkills(
  agents: ReadonlyArray<{ id: string; manifestPath: string; allowedSkills: readonly string[] }>,
  registry: SkillRegistry = loadSkillRegistry(),
): ManifestSkillProblem[] {
  const problems: ManifestSkillProblem[] = [];
  for (const agent of agents) {
    for (const id of agent.allowedSkills) {
      if (registry.get(id)) continue;
      problems.push({
        manifestPath: agent.manifestPath,
        field: 'allowedSkills',
        message: `agent ${agent.id} is granted unknown skill "${id}" (not in the skill registry ${REGISTRY_SOURCE})`,
      });
    }
  }
  return problems;
}

export { assessAgentGovernance, type AgentGovernance, type GovernanceLevel, type GovernedAgentInput } from './skills/governance.js';

/** The one start-up line for a manifest problem, in the form the manifest loader uses. */
export function formatManifestSkillProblem(problem: ManifestSkillProblem): string {
  return `invalid agent manifest ${problem.manifestPath}: ${problem.field}: ${problem.message}`;
}
