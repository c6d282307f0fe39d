/**
 * Every error text Arbor shows a person, in one place: what went wrong and
 * what they can do about it, in one or two short sentences. Texts with values
 * (a path, an entry id, a count) are small functions. The main process, the
 * renderer and the command line all take their texts from here; problems found
 * in a session file are reports about that file and stay with the reader
 * (shared/session/problems.ts).
 *
 * Grouped by where they arise; each group is an object, so a call site reads
 * `appendErrors.fileGone(path)`.
 */

// ---------------------------------------------------------------------------
// The file system, as the binding translates its errors (app/ipc/bind.ts)

export const fileErrors = {
  /** Shared by the binding's ENOENT and an open of a session whose file went away. */
  sessionFileGone: "The session file no longer exists; rescan the library.",
  notAllowed: "Arbor is not allowed to read or write that file; check its permissions.",
  diskFull: "The disk is full, so nothing was written; free some space, then try again.",
  operationFailed: (code: string) => `A file operation failed (${code}); try again.`,
};

// ---------------------------------------------------------------------------
// Requests: how they are checked, carried and answered (schemas, bindings, transports)

export const requestErrors = {
  /** `request` is the request's name in quotes, or "a request". */
  unexpected: (request: string) =>
    `Arbor hit an unexpected error while handling ${request}; try again, or see its log for details.`,
  unknown: (name: string) =>
    `Unknown request "${name}"; reload the page so that it matches the Arbor that is running.`,
  invalidParameters: (name: string, where: string, problem: string) =>
    `Invalid parameters for "${name}"${where}: ${problem}.`,
  answerNotJson: "The answer could not be encoded as JSON; try again, or see Arbor's log.",
  /** `what`: what is wrong with the node list (a client and a main process of different versions). */
  unreadableNodes: (what: string) =>
    `Arbor received a node list it cannot read (${what}); reload the window.`,
  // Read by the program that sent a malformed request: each says what a valid one looks like.
  needsName: "A request needs a name.",
  needsId: "A request needs an id: a number or a short string.",
  notAnObject: "A request must be a JSON object {id, name, params}.",
  binary: "Messages must be JSON text, not binary.",
  tooLarge: "The message is too large.",
  notJson: "The message is not valid JSON.",
};

// ---------------------------------------------------------------------------
// Sessions: opening, replacing and reading the session a window shows

export const sessionErrors = {
  noEntry: (entryId: string) => `There is no entry "${entryId}" in this session; choose one from its graph.`,
  noText: (path: string) => `There is no text at ${path} in this answer; select the entry again.`,
  noMessages: (from: number, count: number) =>
    `The context has no messages from message ${from + 1} (it has ${count}); select the entry again.`,
  pageNotAsked: (from: number) =>
    `The context's page from message ${from + 1} did not come as asked; select the entry again.`,
  contextGap: (index: number) => `The context misses message ${index + 1}; select the entry again.`,
  noEntryToFork: (entryId: string) =>
    `There is no entry "${entryId}" in this session to fork; choose one from its graph.`,
  forkBeforeNotUser: (entryId: string) =>
    `Entry "${entryId}" is not a user message: only a user message can be forked before; fork at it instead.`,
  noneOpen: "No session is open in this window; open one from the library first.",
  noneOpenTo: (action: string) => `No session is open in this window to ${action}; open one first.`,
  openFirstForNew: "Open a session first: a new session starts in the project of the session on view.",
  runtimeClosed: "This window's session runtime was closed; reload the window to start again.",
  windowWithoutRuntime: "This window has no session runtime; close it and open a new window.",
  openedMeanwhile:
    "Another session was opened while this one was being looked for; open this one again to show it.",
  notInLibrary: "That session is not in the library; rescan the library and open it from the list.",
  projectNotInLibrary: "That project is not in the library; rescan the library and choose it from the list.",
  /** For a caller of the runtime, which may pass the folder. */
  noFolderGiven: (cwd: string) => `No session folder is known for ${cwd}; give one to start a session.`,
  noFolderKnown: (cwd: string) => `No session folder is known for ${cwd}; rescan the library and try again.`,
  /** `what`: one of `replacements`; `by`: the extension's id, when known. */
  cancelled: (what: string, by: string | undefined) =>
    `${what} was cancelled by ${by === undefined ? "an extension" : `the extension "${by}"`}; the open session is unchanged.`,
};

/** What replaced the open session, as the subject of `sessionErrors.cancelled`. */
export const replacements = {
  open: "Opening the session",
  new: "The new session",
  fork: "The fork",
  clone: "The clone",
};

// ---------------------------------------------------------------------------
// Extensions: a context used after its session closed (app/runtime/errors.ts)

/** Why a session's contexts went stale (app/runtime/errors.ts's `StaleReason`). */
type StaleReason = "resume" | "new" | "fork" | "clone" | "quit" | "removed";

const STALE_BECAUSE: Record<StaleReason, string> = {
  resume: "the window switched to another session, which closed this one",
  new: "the window started a new session, which closed this one",
  fork: "the window switched to a fork of this session, which closed this one",
  clone: "the window switched to a clone of this session, which closed this one",
  quit: "the session was closed",
  removed: "its extension was removed from the window",
};

export const extensionErrors = {
  /** The owner `staleContext` names for an extension's context. */
  contextOf: (extensionId: string) => `The context of extension "${extensionId}"`,
  /** Read by the extension's author: how to keep work within its session's lifetime. */
  staleContext: (owner: string, sessionFile: string, reason: StaleReason) =>
    `${owner} is stale: ${STALE_BECAUSE[reason]} (session ${sessionFile}). Nothing captured from a closed ` +
    "session can be used. Register work with context.on() or context.register() so that it ends with " +
    "its session; to act on the session that replaces it, pass withSession to switchSession, " +
    "newSession, fork or clone and use the context it is given.",
};

// ---------------------------------------------------------------------------
// Appending to a session file (app/store/append.ts)

export const appendErrors = {
  fieldNotString: (field: string, allowEmpty: boolean) =>
    `${field} must be a${allowEmpty ? "" : " non-empty"} string.`,
  leafIdForm: "leafId must be an entry id or null.",
  labelForm: "The label must be a string, or null to clear it.",
  customMessageContent: "A custom message's content must be a string or an array of text/image blocks.",
  customMessageDisplay: "A custom message's display must be a boolean.",
  branchSummaryText: "A branch summary's summary must be a string.",
  contextEditReplacement: "Context edit replacement must be null or contain string/array content.",
  notOnBranch: (targetId: string, leafId: string) =>
    `Entry ${targetId} is not on the branch ending at ${leafId}; a context edit can only change that branch.`,
  notEditable: (targetId: string) =>
    `Entry ${targetId} does not contribute editable model content (only user, assistant and toolResult messages and custom messages do).`,
  missingParent: (leafId: string, path: string) =>
    `Entry ${leafId} is not in ${path}, so the new entry would have no parent there; reload the session and try again.`,
  /** `what`: the kind of entry being written ("label", "context edit"...). */
  missingTarget: (entryId: string, what: string, path: string) =>
    `Entry ${entryId} (the ${what}'s target) is not in ${path}; reload the session and try again.`,
  noHeader: (path: string) =>
    `${path} has no session header; Pi would not open it, so Arbor does not write into it.`,
  emptyFile: (path: string) => `${path} is empty; it has no session header, so Arbor does not write into it.`,
  legacyVersion: (path: string, version: number, current: number) =>
    `${path} is a version ${version} session; Pi rewrites such files when it opens them, so Arbor only writes into version ${current} files. Open it in Pi once, or fork it.`,
  fileGone: (path: string) => `${path} no longer exists, so nothing was written; rescan the library.`,
  cannotOpen: (path: string, reason: string) =>
    `Cannot open ${path} for appending (${reason}); check that Arbor may write to it.`,
  /** `change`: one of `appendChanges`. */
  changedOnDisk: (path: string, change: string) =>
    `${path} changed on disk since it was read (${change}); try again once Arbor has read the change.`,
  unterminatedLastLine: (path: string) =>
    `The last line of ${path} is not terminated: another program may be writing it right now, or the file is damaged. Appending now would merge two lines; try again once the line is complete.`,
  writeFailed: (path: string, reason: string) => `Writing to ${path} failed (${reason}); try again.`,
  partialWrite: (path: string, written: number, total: number) =>
    `Only ${written} of ${total} bytes were written to ${path}, so its last line is incomplete; check that the disk has free space.`,
};

/** How a file changed since it was read, inside `appendErrors.changedOnDisk`. */
export const appendChanges = {
  replaced: "it was replaced",
  notCovered: "the index does not cover the whole file",
  resized: (then: number, now: number) => `${then} bytes then, ${now} now`,
  touched: "its modification time moved",
};

// ---------------------------------------------------------------------------
// Writing a new session file: a fork, a clone, an export (app/store/new-file.ts)

export const newFileErrors = {
  alreadyExists: (path: string) =>
    `${path} already exists; Arbor never writes over a file, so choose another name.`,
  cannotCreateIn: (dir: string) => `Cannot create a file in ${dir}`,
  cannotCreate: (path: string) => `Cannot create ${path}`,
  cannotWrite: (path: string) => `Cannot write ${path}`,
  /** `what`: one of the three above. */
  failed: (what: string, reason: string) =>
    `${what} (${reason}); check the folder and its permissions, then try again.`,
  entryNotIn: (entryId: string, path: string) =>
    `Entry ${entryId} is not in ${path}; reload the session and try again.`,
  parentNotIn: (entryId: string, parentId: string, path: string) =>
    `Entry ${entryId}'s parent ${parentId} is not in ${path}; reload the session and try again.`,
  nothingToClone: (path: string) => `${path} has no entries to clone; choose a session with entries.`,
  changedSinceRead: (path: string, line: number) =>
    `${path} changed on disk since it was read (line ${line} is no longer the same entry); reload it and try again.`,
  changedWhileCopied: (path: string, reason: string) =>
    `${path} changed while it was copied (${reason}); try again.`,
  nestedTooDeep: (path: string, line: number) =>
    `Line ${line} of ${path} is nested too deep to be copied entry by entry; export the whole session instead, or fork from an entry above it.`,
};

// ---------------------------------------------------------------------------
// Managing sessions: Arbor's writes (app/store/write-entry.ts), a live
// file, the trash, export, import, Open in Pi (app/session-manage), the branch
// map and compare (app/branches)

export const manageErrors = {
  nothingToEdit: "The session has no entries whose context to edit.",
  noEntryNothingWritten: (entryId: string) =>
    `There is no entry "${entryId}" in this session; nothing was written.`,
  alreadyResumesFrom: (entryId: string) => `Pi already resumes from entry ${entryId}; nothing was written.`,
  archiveUnchanged: (targetId: string, archived: boolean) =>
    `The branch at entry ${targetId} is ${archived ? "already" : "not"} archived; nothing was written.`,
  nothingToUndo: "There is no name, label, archive or continue to undo in this session.",
  noEarlierResumePoint: "There is no earlier resume point to go back to; nothing was written.",
  noEntryToUndo: (entryId: string) => `There is no entry "${entryId}" in this session to undo.`,
  notUndoable: (entryId: string) =>
    `Entry ${entryId} is not a name, label, archive or continue; only those can be undone.`,
  /** Sent with a write refused as `conflict` (app/store/live-file.ts); the window asks before it writes anyway. */
  liveWriter:
    "Pi is writing this session: it will not see Arbor's entries until it reopens the file, and its next entries will be siblings of Arbor's.",
  /** The same, before a session a Pi is writing is moved to the trash. */
  liveTrash:
    "Pi is writing this session: if it goes on, it will write a new file without its beginning where this one was.",
  /** How the window and the command line ask before they write anyway (`reason`: one of the two above). */
  confirmWrite: (reason: string) => `${reason} Confirm to write anyway.`,
  confirmTrash: (reason: string) => `${reason} Confirm to move it to the trash anyway.`,
  forceWrite: (reason: string) => `${reason} Run again with --force to write anyway.`,
  forceTrash: (reason: string) => `${reason} Run again with --force to move it to the trash anyway.`,
  noEntryToClone: (leafId: string) => `There is no entry "${leafId}" in this session to clone.`,
  noEntryToExport: (leafId: string) => `There is no entry "${leafId}" in this session to export.`,
  importNotASession: (name: string) =>
    `${name} is not a Pi session: its first line is not a session header. Nothing was imported.`,
  importHasErrors: (name: string, errors: number, line: number | undefined, message: string | undefined) =>
    `${name} has ${errors} error${errors === 1 ? "" : "s"} (line ${line}: ${message}); run "arbor check" on it. Nothing was imported.`,
  alreadyImported: (already: string) =>
    `This session is already in that folder (${already}); nothing was imported.`,
  noTerminal: (program: string, reason: string, command: string) =>
    `Arbor could not start a terminal with "${program}" (${reason}). Run this in a terminal instead, or choose a terminal in the preferences: ${command}`,
  projectGone: "That project is not in the library; rescan it and try again.",
  importTooBig: (megabytes: number, limit: number) =>
    `The file is ${megabytes} MB; a browser window can import at most ${limit} MB. Copy it into the project's session folder instead, or use the desktop app.`,
  importNeedsContent: "Send the file's content to import it: this window has no file dialog.",
  sessionIdNotIssued: "That session is not in the library (the id was not issued by Arbor).",
  nothingToTrash: (path: string) => `${path} no longer exists; there is nothing to move to the trash.`,
  trashFailed: (reason: string) => `The session could not be moved to the trash: ${reason}`,
  trashDidNotTake: (path: string) => `The trash did not take ${path}; the file is still there.`,
  noTrashRecord:
    "Arbor has no record of that trashed session (it keeps them only while it runs); restore it from the system's trash.",
  notInReachableTrash: (path: string) =>
    `${path} is not in a trash Arbor can reach (emptied, restored already, or not a freedesktop trash); restore it from the system's trash.`,
  noBranchAt: (leafId: string) => `In the open session, no branch ends at "${leafId}".`,
  noSegmentAt: (segmentId: string) => `In the open session, no segment starts at "${segmentId}".`,
  /** `where`: "the open session" or "that session". */
  noTipIn: (tipId: string, where: string) => `No entry "${tipId}" in ${where}.`,
};

// ---------------------------------------------------------------------------
// The library (app/library)

export const libraryErrors = {
  unreadableFile: (reason: string) =>
    `The file cannot be read (${reason}); check its permissions, then rescan the library.`,
};

/** Why the library's scan skipped a file or a folder, shown in the library's "skipped" list (app/library/discover.ts). */
export const skipReasons = {
  specialFile: (kind: string) => `Not a regular file (${kind}): a session is a file of lines.`,
  folder: "A folder named like a session file; its contents are not sessions.",
  linkLoop: "A symbolic link that leads back to itself.",
  linkToNothing: "A symbolic link to a file that does not exist.",
  linkOutside: (target: string) =>
    `A symbolic link to ${target}, outside the session folders: not followed. Add that folder to the library to list it.`,
  noPermission: "Arbor is not allowed to read it; check its permissions.",
  folderNoPermission: "Arbor is not allowed to list this folder; check its permissions.",
  unreadable: (code: string) => `It could not be read (${code}).`,
} as const;

/** What is wrong with Pi's settings file, reported beside the settings Arbor read (app/runtime/services.ts). */
export const settingsErrors = {
  notAnObject: "The settings file is not a JSON object.",
  notJson: (reason: string) => `The settings file is not valid JSON: ${reason}`,
};

// ---------------------------------------------------------------------------
// The connection between a page and `arbor serve` (shared/ipc/websocket-client.ts)

export const connectionErrors = {
  noWebSocket: "This environment has no WebSocket; pass one in the options.",
  cannotConnect: (reason: string) => `Cannot connect to Arbor: ${reason}`,
  timedOut: "Connecting to Arbor timed out.",
  connectionRefused: "Cannot connect to Arbor (the connection was refused).",
  arborRefused: "Arbor refused the connection; open the URL `arbor serve` printed.",
  notOpen: "The connection to Arbor is not open.",
  sendFailed: (reason: string) => `Could not send the request: ${reason}`,
  closed: (reason: string) =>
    reason ? `The connection to Arbor closed: ${reason}` : "The connection to Arbor closed.",
  closedByClient: "The connection to Arbor was closed by this client.",
};

// ---------------------------------------------------------------------------
// Arbor's desktop window: the preload's bridge, dropped and opened files, dialogs (app/electron)

export const desktopErrors = {
  answerNotUnderstood: "The main process sent an answer Arbor does not understand; reload the window.",
  requestNotDelivered: (name: string, reason: string) =>
    `The request "${name}" did not reach the main process (${reason}); reload the window and try again.`,
  senderRefused: (reason: string) => `Refused: ${reason}.`,
  /** The reasons inside `senderRefused` (app/electron/trusted-sender.ts). */
  senderNotOurWindow: "the message did not come from an Arbor window",
  senderFrameGone: "the sending frame no longer exists",
  senderSubFrame: "the message came from a sub-frame",
  senderNotOurPage: "the sending page is not Arbor's own page",
  dropNotAFile: "Only a file can be opened by dropping it; drop a session file (.jsonl).",
  dropNotOnDisk:
    "The dropped item is not a file on this computer; save it to a folder first, then drop that file.",
  noAnswer: "The main process gave no answer; try again.",
  noFileGiven: "No file was given; choose a session file (.jsonl).",
  unusablePath: "That is not a usable file path; choose a session file (.jsonl).",
  notAbsolute: (path: string) => `"${path}" is not an absolute path.`,
  notASession: (path: string) => `"${path}" is not a Pi session: session files end in .jsonl.`,
  notARegularFile: (path: string) => `"${path}" is not a regular file; choose a session file (.jsonl).`,
  doesNotExist: (path: string) => `"${path}" does not exist; it may have been moved or deleted.`,
  cannotRead: (path: string, code: string) => `"${path}" cannot be read (${code}); check its permissions.`,
  // Dialog titles; the detail below each says why.
  cannotOpenThatFile: "Arbor cannot open that file.",
  couldNotOpen: (name: string) => `Arbor could not open ${name}.`,
  cannotOpenFolder: (folder: string) => `Arbor cannot open ${folder}.`,
  couldNotStartSession: "Arbor could not start a new session.",
};

// ---------------------------------------------------------------------------
// `arbor serve`: refused requests, page answers, its command line (app/serve)

export const serveErrors = {
  wrongHost: "The request is not addressed to this server (Host header); open the URL `arbor serve` printed.",
  originMissing: "A WebSocket must say where it comes from (Origin header).",
  otherSite: "Requests from other sites are refused (Origin header); open the URL `arbor serve` printed.",
  navigatedFromElsewhere:
    "Arbor opens only from its own pages, or from an address typed or pasted into the browser.",
  wrongToken: "The access token is wrong: use the URL `arbor serve` printed at this launch.",
  tokenMissing: "Arbor needs its access token: open the URL `arbor serve` printed.",
  cannotAnswer: "Arbor could not answer this request; reload the page.",
  methodNotAllowed: "Only GET and HEAD are served here.",
  invalidPath: "The path is not valid.",
  notFound: "Not found; open the URL `arbor serve` printed.",
  // Lines of `arbor serve` on stderr, after "arbor serve: ".
  badPort: (value: string) => `--port must be a port number (0 to 65535), not "${value}"`,
  portInUse: (port: number) => `port ${port} is in use; choose another with --port (0 picks a free one)`,
};

// ---------------------------------------------------------------------------
// The `arbor` command line: one line on stderr after "arbor: " (app/cli)

export const cliErrors = {
  unknownCommand: (command: string) => `unknown command "${command}"`,
  noCommand: "no command given",
  expectedOneFile: (count: number) => `expected one FILE, got ${count}`,
  expectedFiles: "expected at least one FILE",
  noEntry: (entryId: string, file: string) =>
    `no entry with id "${entryId}" in ${file}; \`arbor tree ${file}\` lists its ids`,
  /** Before the system's own message of a file error. */
  cannotReadFile: (code: string) => `cannot read file (${code}): `,
  cannotStartServe: (reason: string) => `cannot start serve: ${reason}`,
  expectedArguments: (what: string) => `expected ${what}`,
  /** `names`: the arguments a command takes, in order ("FILE ENTRY"). */
  expectedNamedArguments: (names: string, count: number) =>
    `expected ${names}, got ${count} argument${count === 1 ? "" : "s"}`,
  expectedThreeArguments: (count: number) => `expected FILE LEFT RIGHT, got ${count} argument(s)`,
  textOrDrop: "give either --text TEXT (the new content) or --drop (leave it out of the context)",
  exportFormat: "--format must be md, html or jsonl",
  noSuchFile: (path: string) => `${path} does not exist`,
  /** `arbor diff`: a tip not in its file. */
  noTip: (entryId: string, file: string) => `no entry with id "${entryId}" in ${file}`,
};

// ---------------------------------------------------------------------------
// The renderer: notices, error views and the page shown when it cannot start

export const screenErrors = {
  tokenMissingTitle: "Arbor needs its access token",
  tokenMissing:
    "This page does not know this server's access token: open the URL `arbor serve` printed (it ends in ?token=…) once in this browser.",
  unreachableTitle: "Arbor cannot reach its main process",
  unreachableHint:
    "If you ran `arbor serve`, check it is still running, then reload this page with the URL it printed.",
  /** `reason`: the connection's, which says what happened. */
  connectionLost: (reason: string) => `${reason} Reload the page to reconnect.`,
  sessionNotOpened: (reason: string) => `The session could not be opened: ${reason}`,
  sessionNotUpdated: (reason: string) => `The session could not be brought up to date: ${reason}`,
  entryNotInSession: (entryId: string) =>
    `Entry ${entryId} is not in this session; showing its leaf instead.`,
  libraryNotRead: (reason: string) => `The library could not be read: ${reason}`,
  searchFailed: (reason: string) => `Full-text search failed: ${reason}`,
  contextNotBuilt: (reason: string) => `The context could not be built: ${reason}`,
  contextPageNotLoaded: (reason: string) =>
    `More of the context could not be loaded: ${reason} Scroll to try again.`,
  entryNotRead: (reason: string) => `The entry could not be read: ${reason}`,
  contextNotCopied: (reason: string) => `The context was not copied: ${reason}`,
  linkNotCopied: (reason: string) => `The link was not copied: ${reason}`,
  themeNotChanged: (reason: string) => `The theme was not changed: ${reason}`,
  comparisonNotCopied: (reason: string) => `The comparison was not copied: ${reason}`,
  branchMapNotBuilt: (reason: string) => `The branch map could not be built: ${reason}`,
  comparisonNotMade: (reason: string) => `The two branches could not be compared: ${reason}`,
  swapNeedsOpenSession:
    "Only a tip of the open session can be the left side: open the other session, then compare from there.",
  noClipboard: "The clipboard is not available here; select the text and copy it by hand.",
  // Managing sessions (renderer/src/state/controller/session-manage.ts)
  importTooLarge: (bytes: number, limit: number) =>
    `The file is ${Math.ceil(bytes / 1048576)} MB; a browser window can import at most ${limit / 1048576} MB. Copy it into the project's session folder instead, or use the desktop app.`,
  noSessionOpen: "Open a session first: this acts on the session on view.",
  noEntrySelected: "Select an entry first: this acts on the selected entry.",
  noProject:
    "Arbor does not know this session's project (it is not in the library); rescan, or drop the file on a project in the library.",
  notCopied: (reason: string) => `Nothing was copied: ${reason}`,
};
