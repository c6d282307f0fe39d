/**
 * Opens a session file for viewing. For now the same as `readSessionFile`;
 * the structure-first reader (bodies read on demand) replaces it.
 */

export { type ReadResult as OpenedSession, readSessionFile as openSessionFile } from "./read-session-file.ts";
