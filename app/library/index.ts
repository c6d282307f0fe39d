/** The session library: roots, scan, cache, search (see `session-library.ts`). */

export type { RootStatus, SkippedFile } from "./discover.ts";
export {
  ENV_AGENT_DIR,
  ENV_SESSION_DIR,
  piAgentDir,
  piSessionRoot,
  type RootEnvironment,
  type RootSource,
  resolveSessionRoots,
  type SessionRoot,
} from "./roots.ts";
export type { SearchHit } from "./search-file.ts";
export {
  createSessionLibrary,
  type LibraryListing,
  type LibrarySession,
  type ProjectGroup,
  type ScanOptions,
  type ScanProgress,
  type ScanReport,
  type SearchOptions,
  type SessionLibrary,
  type SessionLibraryOptions,
} from "./session-library.ts";
export type { SearchField, SessionError, SessionErrorCode, SessionSummary } from "./session-summary.ts";
