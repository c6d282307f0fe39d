/**
 * The extension API. An extension is activated once for every session a
 * window opens, with a context bound to that session: it subscribes to the
 * session's lifecycle events with `on`, reads the session through
 * `context.session`, and registers whatever it creates with the context, so
 * that all of it ends with the session. Once the session is closed, every
 * use of the context throws `StaleContextError`.
 *
 * Arbor's own features (following the file, recent sessions, the window
 * title, the library's "open" marks) are built on this API; see
 * `extensions/`.
 */

import { extensionErrors } from "../../shared/error-texts.ts";
import { firstUserText } from "../../shared/ipc/views.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import { type Disposable, DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import { StaleContextError, type StaleReason } from "./errors.ts";
import type { AppendOutcome, OpenSession, SessionAppendEvent, SessionReloadEvent } from "./open-session.ts";
import type { CwdServices } from "./services.ts";

/** Why a session started: the first one of a window, or how it replaced the one before. */
export type StartReason = "startup" | "resume" | "new" | "fork" | "clone";

/** Before another session replaces this one (open another file, start a new one). Cancellable. */
export interface BeforeSwitchEvent {
  reason: "resume" | "new";
  /** The file to be opened; unknown for a new session until it is written. */
  targetSessionFile: string | undefined;
}

/** Before a fork or clone of this session replaces it. Cancellable. */
export interface BeforeForkEvent {
  /** The entry forked before or at (`null`: cloning an empty session). */
  entryId: string | null;
  position: "before" | "at";
  /** True for a clone (a fork at the file's leaf). */
  clone: boolean;
}

/** This session is about to be closed. The context still works while handlers run. */
export interface SessionShutdownEvent {
  reason: StaleReason;
  targetSessionFile: string | undefined;
}

/** This session is now the window's session. */
export interface SessionStartEvent {
  reason: StartReason;
  previousSessionFile: string | undefined;
}

export interface ExtensionEventMap {
  session_before_switch: BeforeSwitchEvent;
  session_before_fork: BeforeForkEvent;
  session_shutdown: SessionShutdownEvent;
  session_start: SessionStartEvent;
}

export type ExtensionEventName = keyof ExtensionEventMap;

/** What a `session_before_*` handler returns to stop the replacement. */
export interface CancelDecision {
  cancel: boolean;
}

/**
 * Handlers run one at a time, in the order extensions were added and then
 * the order they subscribed; each is awaited. A `session_before_*` handler
 * cancels by returning (or resolving to) `{ cancel: true }`; other results
 * are ignored. A handler that throws is reported and does not cancel.
 */
export type ExtensionHandler<E extends ExtensionEventName> = (
  event: ExtensionEventMap[E],
  context: ExtensionContext,
) => unknown;

/** The session as an extension sees it; every member throws `StaleContextError` once the session is closed. */
export interface SessionAccess {
  readonly path: string;
  readonly index: SessionIndex;
  /** The whole entries of `index` (bodies read from the file on demand). */
  readonly reader: EntryReader;
  /** The header's cwd ("" when it names none). */
  readonly cwd: string;
  /** The session's name (`session_info`), if it has one. */
  readonly name: string | undefined;
  /** The preview of its first user message (at most 80 characters), if it has one. */
  readonly firstUserText: string | undefined;
  readonly mtimeMs: number;
  readonly services: CwdServices;
  /** Subscriptions are owned by the context: they end with the session. */
  onDidAppend(listener: (event: SessionAppendEvent) => void): Disposable;
  onDidReload(listener: (event: SessionReloadEvent) => void): Disposable;
  /** Starts following the file; ends when the result or the context is disposed. */
  follow(): Disposable;
  appendLabel(targetId: string, label: string | null): Promise<AppendOutcome>;
  appendSessionName(name: string): Promise<AppendOutcome>;
}

export interface ReplaceResult {
  /** A `session_before_*` handler cancelled: nothing changed. */
  cancelled: boolean;
  /** The extension that cancelled. */
  cancelledBy: string | undefined;
  /** Forking before a user message: that message's text (Pi puts it back in the editor). */
  selectedText: string | undefined;
}

export interface ReplaceOptions {
  /**
   * Runs after the new session has started and the host was rebound, with a
   * context for the new session: the place for work that must happen in the
   * session that replaces this one (the caller's own context is stale by then).
   */
  withSession?: ((context: ExtensionContext) => unknown) | undefined;
}

/** Replacing the window's session; available to extensions through their context. */
export interface RuntimeActions {
  switchSession(path: string, options?: ReplaceOptions): Promise<ReplaceResult>;
  newSession(
    cwd: string,
    options?: ReplaceOptions & { sessionDir?: string | undefined },
  ): Promise<ReplaceResult>;
  fork(entryId: string, options: ReplaceOptions & { position: "before" | "at" }): Promise<ReplaceResult>;
  /** A fork at `leafId` (default the file's leaf), as Pi's `/clone`. */
  clone(options?: ReplaceOptions & { leafId?: string | undefined }): Promise<ReplaceResult>;
}

export interface ExtensionContext {
  readonly extensionId: string;
  /** True once the session is closed (the only member that never throws). */
  readonly isStale: boolean;
  /** Aborted when the session is closed: pass it to long operations. */
  readonly signal: AbortSignal;
  readonly session: SessionAccess;
  readonly runtime: RuntimeActions;
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): Disposable;
  /** Makes the context own `disposable`: it is disposed when the session closes (at once if it has closed). */
  register<T extends Disposable>(disposable: T): T;
}

export interface ArborExtension {
  /** Stable and unique, e.g. `arbor.follower`. */
  readonly id: string;
  /** Called for every session the window opens, before its `session_start`. */
  activate(context: ExtensionContext): unknown;
}

/** What a context reads: the session and its services, while they are open. */
export interface ContextTarget {
  session: OpenSession;
  services: CwdServices;
}

/** Reports an error thrown by an extension (in `activate` or a handler); the runtime goes on. */
export type ExtensionErrorHandler = (error: unknown, where: { extensionId: string; during: string }) => void;

/**
 * One extension's context for one session: owns what the extension
 * registers, and turns every later use into `StaleContextError`.
 */
export class ContextHost extends DisposableObject {
  readonly context: ExtensionContext;
  private staleReason: StaleReason | null = null;
  private readonly handlers = new Map<ExtensionEventName, ExtensionHandler<ExtensionEventName>[]>();
  private readonly abort = new AbortController();

  constructor(
    readonly extensionId: string,
    private readonly target: ContextTarget,
    actions: RuntimeActions,
  ) {
    super();
    this.context = new BoundContext(this, actions);
  }

  /** The session and services, or `StaleContextError` when closed. */
  live(): ContextTarget {
    if (this.staleReason !== null || this.isDisposed) {
      throw new StaleContextError(
        extensionErrors.contextOf(this.extensionId),
        this.target.session.path,
        this.staleReason ?? "quit",
      );
    }
    return this.target;
  }

  get stale(): boolean {
    return this.staleReason !== null || this.isDisposed;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  subscribe<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): Disposable {
    this.live();
    const list = this.handlers.get(event) ?? [];
    this.handlers.set(event, list);
    const entry = handler as ExtensionHandler<ExtensionEventName>;
    list.push(entry);
    return this.own(
      toDisposable(() => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
      }),
    );
  }

  /** Owns `disposable`; on a stale context it is disposed at once (nothing else would) and the use throws. */
  own<T extends Disposable>(disposable: T): T {
    try {
      this.live();
    } catch (error) {
      disposable.dispose();
      throw error;
    }
    return this.register(disposable);
  }

  handlersFor<E extends ExtensionEventName>(event: E): ExtensionHandler<E>[] {
    return [...(this.handlers.get(event) ?? [])] as ExtensionHandler<E>[];
  }

  /** From now on every use throws; called just before the session is disposed. */
  markStale(reason: StaleReason): void {
    if (this.staleReason !== null) return;
    this.staleReason = reason;
    this.abort.abort(
      new StaleContextError(extensionErrors.contextOf(this.extensionId), this.target.session.path, reason),
    );
  }

  override dispose(): void {
    this.markStale("quit");
    this.handlers.clear();
    super.dispose();
  }
}

class BoundContext implements ExtensionContext {
  readonly session: SessionAccess;
  readonly runtime: RuntimeActions;

  constructor(
    private readonly host: ContextHost,
    actions: RuntimeActions,
  ) {
    this.session = new BoundSession(host);
    const guard =
      <A extends unknown[], R>(action: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        try {
          host.live();
        } catch (error) {
          return Promise.reject(error);
        }
        return action(...args);
      };
    this.runtime = {
      switchSession: guard(actions.switchSession),
      newSession: guard(actions.newSession),
      fork: guard(actions.fork),
      clone: guard(actions.clone),
    };
  }

  get extensionId(): string {
    return this.host.extensionId;
  }

  get isStale(): boolean {
    return this.host.stale;
  }

  get signal(): AbortSignal {
    return this.host.signal;
  }

  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): Disposable {
    return this.host.subscribe(event, handler);
  }

  register<T extends Disposable>(disposable: T): T {
    return this.host.own(disposable);
  }
}

class BoundSession implements SessionAccess {
  constructor(private readonly host: ContextHost) {}

  get path(): string {
    return this.host.live().session.path;
  }

  get index(): SessionIndex {
    return this.host.live().session.index;
  }

  get reader(): EntryReader {
    return this.host.live().session.reader;
  }

  get cwd(): string {
    return this.host.live().services.cwd;
  }

  // Both from the saved view while the session has one: it was opened without building its index.
  get name(): string | undefined {
    const session = this.host.live().session;
    const saved = session.savedView;
    return saved ? (saved.content.name ?? undefined) : session.index.sessionName;
  }

  get firstUserText(): string | undefined {
    const session = this.host.live().session;
    const saved = session.savedView;
    return (saved ? saved.content.firstUserText : firstUserText(session.index, session.reader)) ?? undefined;
  }

  get mtimeMs(): number {
    return this.host.live().session.mtimeMs;
  }

  get services(): CwdServices {
    return this.host.live().services;
  }

  onDidAppend(listener: (event: SessionAppendEvent) => void): Disposable {
    return this.host.own(this.host.live().session.onDidAppend(listener));
  }

  onDidReload(listener: (event: SessionReloadEvent) => void): Disposable {
    return this.host.own(this.host.live().session.onDidReload(listener));
  }

  follow(): Disposable {
    return this.host.own(this.host.live().session.follow());
  }

  appendLabel(targetId: string, label: string | null): Promise<AppendOutcome> {
    try {
      return this.host.live().session.appendLabel(targetId, label);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  appendSessionName(name: string): Promise<AppendOutcome> {
    try {
      return this.host.live().session.appendSessionName(name);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * Runs `event`'s handlers of every context in order, awaiting each. For a
 * cancellable event, stops at the first `{ cancel: true }` and says whose.
 */
export async function emitExtensionEvent<E extends ExtensionEventName>(
  hosts: readonly ContextHost[],
  name: E,
  event: ExtensionEventMap[E],
  onError: ExtensionErrorHandler,
): Promise<{ cancelledBy: string | undefined }> {
  const cancellable = name === "session_before_switch" || name === "session_before_fork";
  for (const host of hosts) {
    if (host.stale) continue;
    for (const handler of host.handlersFor(name)) {
      try {
        const result = await handler(event, host.context);
        if (cancellable && isCancel(result)) return { cancelledBy: host.extensionId };
      } catch (error) {
        onError(error, { extensionId: host.extensionId, during: name });
      }
    }
  }
  return { cancelledBy: undefined };
}

function isCancel(result: unknown): boolean {
  return typeof result === "object" && result !== null && (result as CancelDecision).cancel === true;
}
