/**
 * The reads of scope walks. They are the workspace opener's (workspace-file.ts), which holds the
 * rules for opening a workspace file in one place; this module keeps the name walks import.
 */
export { readScopedFile, type ScopedRead, type ScopedReadOptions, type ScopedReadProblem } from './workspace-file.js';
