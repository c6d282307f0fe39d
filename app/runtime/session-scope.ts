/**
 * One session of a runtime and everything it owns: the open session, its
 * cwd-bound services, a context for every extension and one for the host.
 * Disposing it makes every context stale first, then disposes the rest.
 */

import { DisposableObject } from "../../shared/lifecycle/disposable.ts";
import type { StaleReason } from "./errors.ts";
import {
  type ArborExtension,
  ContextHost,
  emitExtensionEvent,
  type ExtensionErrorHandler,
  type ExtensionEventMap,
  type ExtensionEventName,
  type RuntimeActions,
} from "./extension.ts";
import type { OpenSession } from "./open-session.ts";
import type { CwdServices } from "./services.ts";

/** The id of the context `withSession` and the host receive. */
export const HOST_CONTEXT_ID = "arbor.host";

/** One session and everything it owns. */
export class SessionScope extends DisposableObject {
  readonly hosts: ContextHost[] = [];
  readonly hostContext: ContextHost;
  private staleReason: StaleReason = "quit";

  constructor(
    readonly session: OpenSession,
    readonly services: CwdServices,
    private readonly actions: RuntimeActions,
  ) {
    super();
    // Registered first so they are disposed last: contexts go before what they read.
    this.register(session);
    this.register(services);
    this.hostContext = this.register(new ContextHost(HOST_CONTEXT_ID, { session, services }, actions));
  }

  async activate(extension: ArborExtension, onError: ExtensionErrorHandler): Promise<void> {
    const host = this.register(new ContextHost(extension.id, this.target(), this.actions));
    this.hosts.push(host);
    try {
      await extension.activate(host.context);
    } catch (error) {
      onError(error, { extensionId: extension.id, during: "activate" });
    }
  }

  deactivate(extensionId: string): void {
    const at = this.hosts.findIndex((host) => host.extensionId === extensionId);
    if (at < 0) return;
    const [host] = this.hosts.splice(at, 1);
    host!.markStale("removed");
    this.disposables.delete(host!);
  }

  emit<E extends ExtensionEventName>(
    name: E,
    event: ExtensionEventMap[E],
    onError: ExtensionErrorHandler,
  ): Promise<{ cancelledBy: string | undefined }> {
    // The host's context (the one `withSession` gets) hears events too, after the extensions.
    return emitExtensionEvent([...this.hosts, this.hostContext], name, event, onError);
  }

  /** Every context goes stale with `reason` before anything is disposed. */
  markStale(reason: StaleReason): void {
    this.staleReason = reason;
    for (const host of this.hosts) host.markStale(reason);
    this.hostContext.markStale(reason);
  }

  override dispose(): void {
    this.markStale(this.staleReason);
    super.dispose();
  }

  private target() {
    return { session: this.session, services: this.services };
  }
}
