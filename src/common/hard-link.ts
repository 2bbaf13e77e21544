/**
 * Hard links are outside files. A regular file with more than one name may be a file from
 * anywhere on the same file system (a secret of the service's user, another project's file)
 * under a project name: a symbolic link says where it points, a hard link does not, so no walk,
 * read or copy of a workspace tree can tell where its content lives. Every walker (the worker
 * SDK's scope walk and file opener, the docs walk, the work cycle's inventory, agent-deploy's
 * copy) and every write of a configured file (src/workspace/file-writes.ts) asks this one check,
 * and passes such a file by with its reason.
 */

/** What a check needs of a file's status (an fs.Stats, from lstat or fstat). */
export interface LinkStatus {
  nlink: number;
  isFile(): boolean;
}

/** Whether `stats` is a regular file with more than one name. */
export function isHardLinked(stats: LinkStatus): boolean {
  return stats.isFile() && stats.nlink > 1;
}

/** The reason a hard-linked file is passed by, as results say it. */
export function hardLinkReason(links: number): string {
  return `hard link (${links} links): its content may live outside the workspace`;
}

/** The reason `stats` is passed by, or null when it is not a hard-linked regular file. */
export function hardLinkProblem(stats: LinkStatus): string | null {
  return isHardLinked(stats) ? hardLinkReason(stats.nlink) : null;
}
