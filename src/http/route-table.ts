import { ProgrammingError } from '../domain/errors.js';
import type { RouteSpec } from './route-spec.js';

/**
 * Assembles the route families into the one table the server and the OpenAPI document are built
 * from. A method + path or an operationId appearing twice is a programming error caught at start-up.
 */
export function buildRouteTable(families: RouteSpec[][]): RouteSpec[] {
  const routes = families.flat();
  const endpoints = new Set<string>();
  const operationIds = new Set<string>();
  for (const route of routes) {
    const endpoint = `${route.method} ${route.path}`;
    if (endpoints.has(endpoint)) throw new ProgrammingError(`route table: ${endpoint} is declared twice`);
    if (operationIds.has(route.operationId)) {
      throw new ProgrammingError(`route table: operationId ${route.operationId} is used twice (second at ${endpoint})`);
    }
    endpoints.add(endpoint);
    operationIds.add(route.operationId);
  }
  return routes;
}
