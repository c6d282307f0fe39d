/**
 * One window's session runtime (Pi's `AgentSessionRuntime`): it owns the
 * current session (an `OpenSession`), the services bound to its cwd, and a
 * context for every extension. Replacing the session, whether by opening
 * another file, starting a new one, forking or cloning, always goes:
 *
 *   session_before_switch / session_before_fork (cancellable)
 *   -> prepare the target (write the new file, open it)
 *   -> session_shutdown to the old session's extensions
 *   -> beforeInvalidate (synchronous host hook)
 *   -> dispose the old session and all it owns (its contexts go stale)
 *   -> activate the extensions for the new session, session_start
 *   -> the host's rebind callback (it pushes the session to the renderer)
 *   -> withSession(context of the new session), if given
 *
 * Preparing is done before anything is torn down, so a failure there (an
 * unreadable file, a full disk) leaves the old session as it was, in use.
 * Replacements run one at a time.
 */

import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { manageErrors, sessionErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import {
  type Disposable,
  DisposableObject,
  MutableDisposable,
  toDisposable,
} from "../../shared/lifecycle/disposable.ts";
import { textOf } from "../../shared/session/facts.ts";
import type { StaleReason } from "./errors.ts";
import type {
  ArborExtension,
  ExtensionContext,
  ExtensionErrorHandler,
  ReplaceOptions,
  ReplaceResult,
  RuntimeActions,
  SessionShutdownEvent,
  StartReason,
} from "./extension.ts";
import { openFileSession } from "./file-session.ts";
import type { OpenSession, OpenSessionFactory, SessionFiles } from "./open-session.ts";
import { type CwdServices, type CwdServicesFactory, createCwdServicesFactory } from "./services.ts";
import { createSessionFiles } from "./session-files.ts";
import { SessionScope } from "./session-scope.ts";

/** Given to the host's rebind callback after every replacement. */
export interface RebindEvent {
  session: OpenSession;
  services: CwdServices;
  reason: StartReason;
  previousSessionFile: string | undefined;
  /** The new session's host context (the same one `withSession` receives). */
  context: ExtensionContext;
}

export type RebindCallback = (event: RebindEvent) => unknown;

export interface SessionRuntimeOptions {
  /** Opens a session file (default: `openFileSession`, over `app/store`'s `SessionStore`). */
  openSession?: OpenSessionFactory | undefined;
  /** Writes new, forked and cloned files (default: `createSessionFiles()`, over `app/store/new-file.ts`). */
  files?: SessionFiles | undefined;
  /** Creates the cwd-bound services of each session (default: settings only, no library). */
  services?: CwdServicesFactory | undefined;
  /** Activated for every session, in this order. */
  extensions?: readonly ArborExtension[] | undefined;
  /** Errors thrown by extensions (default: printed to stderr). */
  onExtensionError?: ExtensionErrorHandler | undefined;
  /** Runs synchronously after `session_shutdown` and before the old session is disposed. */
  beforeInvalidate?: (() => void) | undefined;
}

export { HOST_CONTEXT_ID } from "./session-scope.ts";

const NO_RESULT: ReplaceResult = { cancelled: false, cancelledBy: undefined, selectedText: undefined };

interface Prepared {
  session: OpenSession;
  /** A file written for this replacement: removed if the replacement fails before it takes effect. */
  createdFile: string | undefined;
}

interface Plan {
  before: (scope: SessionScope) => Promise<{ cancelledBy: string | undefined }>;
  prepare: () => Promise<Prepared>;
  shutdownReason: StaleReason;
  startReason: StartReason;
  selectedText?: string | undefined;
}

export class SessionRuntime extends DisposableObject implements RuntimeActions {
  private readonly scope = this.register(new MutableDisposable<SessionScope>());
  private readonly extensions: ArborExtension[];
  private readonly openSession: OpenSessionFactory;
  private readonly files: SessionFiles;
  private readonly createServices: CwdServicesFactory;
  private readonly onExtensionError: ExtensionErrorHandler;
  private rebind: RebindCallback | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly actions: RuntimeActions;

  constructor(private readonly options: SessionRuntimeOptions = {}) {
    super();
    this.extensions = [...(options.extensions ?? [])];
    const ids = new Set<string>();
    for (const extension of this.extensions) {
      if (ids.has(extension.id)) throw new Error(`Two extensions have the id "${extension.id}".`);
      ids.add(extension.id);
    }
    this.openSession = options.openSession ?? openFileSession;
    this.files = options.files ?? createSessionFiles();
    this.createServices = options.services ?? createCwdServicesFactory();
    this.onExtensionError = options.onExtensionError ?? reportExtensionError;
    this.actions = {
      switchSession: (path, replaceOptions) => this.switchSession(path, replaceOptions),
      newSession: (cwd, replaceOptions) => this.newSession(cwd, replaceOptions),
      fork: (entryId, replaceOptions) => this.fork(entryId, replaceOptions),
      clone: (replaceOptions) => this.clone(replaceOptions),
    };
  }

  /** The open session, if any. */
  get session(): OpenSession | undefined {
    return this.scope.value?.session;
  }

  get services(): CwdServices | undefined {
    return this.scope.value?.services;
  }

  /** The host's context for the open session (stale after the next replacement). */
  get context(): ExtensionContext | undefined {
    return this.scope.value?.hostContext.context;
  }

  get isClosed(): boolean {
    return this.closed || this.isDisposed;
  }

  /** The host's callback after every replacement (one at a time; disposing the result removes it). */
  setRebindSession(callback: RebindCallback): Disposable {
    this.rebind = callback;
    return toDisposable(() => {
      if (this.rebind === callback) this.rebind = undefined;
    });
  }

  /**
   * Adds an extension: activated now for the open session (without a replay
   * of its `session_start`) and for every session after. Disposing the result
   * removes it, and its context for the open session goes stale.
   */
  addExtension(extension: ArborExtension): Disposable {
    this.assertUsable();
    if (this.extensions.some((known) => known.id === extension.id)) {
      throw new Error(`An extension with the id "${extension.id}" is already added.`);
    }
    this.extensions.push(extension);
    const activation = this.enqueue(async () => {
      await this.scope.value?.activate(extension, this.onExtensionError);
    });
    activation.catch(() => {});
    return toDisposable(() => {
      const at = this.extensions.indexOf(extension);
      if (at >= 0) this.extensions.splice(at, 1);
      if (!this.isDisposed) this.scope.value?.deactivate(extension.id);
    });
  }

  /** Opens the session file at `path` in place of the current one. */
  async switchSession(path: string, options: ReplaceOptions = {}): Promise<ReplaceResult> {
    const target = resolve(path);
    return this.replace(
      (current) => ({
        before: (scope) =>
          scope.emit(
            "session_before_switch",
            { reason: "resume", targetSessionFile: target },
            this.onExtensionError,
          ),
        prepare: async () => ({ session: await this.openSession(target), createdFile: undefined }),
        shutdownReason: "resume",
        startReason: current ? "resume" : "startup",
      }),
      options,
    );
  }

  /**
   * Starts a new session for `cwd`, written to `sessionDir` (default: the
   * folder of the open session, when it has the same cwd).
   */
  async newSession(
    cwd: string,
    options: ReplaceOptions & { sessionDir?: string | undefined } = {},
  ): Promise<ReplaceResult> {
    return this.replace((current) => {
      const sessionDir =
        options.sessionDir ??
        (current && current.services.cwd === cwd ? dirname(current.session.path) : undefined);
      if (sessionDir === undefined) {
        throw new ArborError("invalid-request", sessionErrors.noFolderGiven(cwd));
      }
      return {
        before: (scope) =>
          scope.emit(
            "session_before_switch",
            { reason: "new", targetSessionFile: undefined },
            this.onExtensionError,
          ),
        prepare: () => this.prepareCreated(() => this.files.createNew({ cwd, sessionDir })),
        shutdownReason: "new",
        startReason: "new",
      };
    }, options);
  }

  /**
   * Forks the open session into a new file in its folder. `at`: the new
   * file's leaf is `entryId`. `before` (a user message only, as Pi's
   * `/fork`): its leaf is the message's parent, and the message's text comes
   * back as `selectedText`.
   */
  async fork(
    entryId: string,
    options: ReplaceOptions & { position: "before" | "at" },
  ): Promise<ReplaceResult> {
    return this.replace((current) => {
      const source = requireSession(current, "fork");
      const node = source.index.nodes.get(entryId);
      if (!node) throw new ArborError("not-found", sessionErrors.noEntryToFork(entryId));
      let leafId: string | null = entryId;
      let selectedText: string | undefined;
      if (options.position === "before") {
        const entry = source.reader.entryOfNode(node);
        const message =
          entry.type === "message" ? (entry.message as { role?: unknown; content?: unknown }) : undefined;
        if (message?.role !== "user") {
          throw new ArborError("invalid-request", sessionErrors.forkBeforeNotUser(entryId));
        }
        leafId = node.parentId;
        selectedText = textOf(message.content);
      }
      return {
        before: (scope) =>
          scope.emit(
            "session_before_fork",
            { entryId, position: options.position, clone: false },
            this.onExtensionError,
          ),
        prepare: () =>
          this.prepareCreated(() =>
            this.files.createFork({ source, leafId, sessionDir: dirname(source.path) }),
          ),
        shutdownReason: "fork",
        startReason: "fork",
        selectedText,
      };
    }, options);
  }

  /**
   * Copies the open session up to a leaf (default the file's leaf: Pi's
   * `/clone`) into a new file and switches to it.
   */
  async clone(options: ReplaceOptions & { leafId?: string | undefined } = {}): Promise<ReplaceResult> {
    return this.replace((current) => {
      const source = requireSession(current, "clone");
      const leafId = options.leafId ?? source.index.leafId;
      if (leafId !== null && !source.index.nodes.has(leafId)) {
        throw new ArborError("not-found", manageErrors.noEntryToClone(leafId));
      }
      return {
        before: (scope) =>
          scope.emit(
            "session_before_fork",
            { entryId: leafId, position: "at", clone: true },
            this.onExtensionError,
          ),
        prepare: () =>
          this.prepareCreated(() =>
            this.files.createFork({ source, leafId, sessionDir: dirname(source.path) }),
          ),
        shutdownReason: "clone",
        startReason: "clone",
      };
    }, options);
  }

  /**
   * Closes the open session without opening another (its file is going
   * away): `session_shutdown` (reason `quit`), its contexts stale, disposed.
   * The runtime stays usable; the next switch starts as the first did.
   */
  async closeSession(): Promise<void> {
    this.assertUsable();
    await this.enqueue(async () => {
      const scope = this.scope.value;
      if (!scope) return;
      await this.shutDown(scope, { reason: "quit", targetSessionFile: undefined });
      this.scope.clear();
    });
  }

  /** Shuts the session down (`session_shutdown` with reason `quit`) and disposes everything. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.closed = true;
    await this.enqueue(async () => {
      const scope = this.scope.value;
      if (scope) await this.shutDown(scope, { reason: "quit", targetSessionFile: undefined });
    }).catch(() => {});
    this.dispose();
  }

  /**
   * `makePlan` runs in the queue, with the session current at that moment:
   * a replacement waiting behind another plans against the session that one
   * left, never against a session already closed.
   */
  private async replace(
    makePlan: (current: SessionScope | undefined) => Plan,
    options: ReplaceOptions,
  ): Promise<ReplaceResult> {
    this.assertUsable();
    const result = await this.enqueue(() => {
      this.assertUsable();
      return this.replaceNow(makePlan(this.scope.value));
    });
    if (result.cancelled || !options.withSession) return result;
    // Outside the queue: withSession may itself replace the session.
    const fresh = this.scope.value?.hostContext.context;
    if (fresh) await options.withSession(fresh);
    return result;
  }

  private async replaceNow(plan: Plan): Promise<ReplaceResult> {
    this.assertUsable();
    const old = this.scope.value;
    if (old) {
      const { cancelledBy } = await plan.before(old);
      if (cancelledBy !== undefined) return { cancelled: true, cancelledBy, selectedText: undefined };
    }
    const prepared = await plan.prepare();
    let services: CwdServices;
    try {
      this.assertUsable();
      services = this.createServices(prepared.session);
    } catch (error) {
      discard(prepared);
      throw error;
    }
    const previousSessionFile = old?.session.path;
    if (old) {
      await this.shutDown(old, { reason: plan.shutdownReason, targetSessionFile: prepared.session.path });
      this.scope.clear();
    }
    const scope = new SessionScope(prepared.session, services, this.actions);
    this.scope.value = scope;
    for (const extension of [...this.extensions]) await scope.activate(extension, this.onExtensionError);
    await scope.emit(
      "session_start",
      { reason: plan.startReason, previousSessionFile },
      this.onExtensionError,
    );
    await this.rebind?.({
      session: scope.session,
      services: scope.services,
      reason: plan.startReason,
      previousSessionFile,
      context: scope.hostContext.context,
    });
    return { ...NO_RESULT, selectedText: plan.selectedText };
  }

  /** `session_shutdown` to the session's extensions, then its contexts stale, then the host's `beforeInvalidate`. */
  private async shutDown(scope: SessionScope, event: SessionShutdownEvent): Promise<void> {
    await scope.emit("session_shutdown", event, this.onExtensionError);
    scope.markStale(event.reason);
    this.options.beforeInvalidate?.();
  }

  /** Writes a file, then opens it; a file that cannot be opened is removed again. */
  private async prepareCreated(create: () => Promise<string>): Promise<Prepared> {
    const path = await create();
    try {
      return { session: await this.openSession(path), createdFile: path };
    } catch (error) {
      removeCreated(path);
      throw error;
    }
  }

  private assertUsable(): void {
    if (this.isClosed) throw new ArborError("refused", sessionErrors.runtimeClosed);
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => {});
    return run;
  }
}

function requireSession(scope: SessionScope | undefined, action: string): OpenSession {
  if (!scope) throw new ArborError("refused", sessionErrors.noneOpenTo(action));
  return scope.session;
}

function discard(prepared: Prepared): void {
  prepared.session.dispose();
  if (prepared.createdFile) removeCreated(prepared.createdFile);
}

function removeCreated(path: string): void {
  // Only a file this replacement itself wrote a moment ago; never a user's file.
  try {
    rmSync(path, { force: true });
  } catch {
    // Left behind: it is a valid (if unused) session file.
  }
}

function reportExtensionError(error: unknown, where: { extensionId: string; during: string }): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`arbor: extension "${where.extensionId}" failed during ${where.during}: ${text}\n`);
}
