/**
 * The window runtime the shell uses: one `ArborHost` (app/ipc/host.ts: a
 * SessionRuntime with Arbor's extensions, the handler object, over the
 * session library all windows share) per window, its events forwarded to that window, its window-title
 * extension setting that window's title. No Electron import: tested in Node.
 */

import { replacements, sessionErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import {
  type ArborHostOptions,
  createArborHost,
  createSharedHostParts,
  type SharedHostParts,
} from "../ipc/host.ts";
import type { CreateWindowRuntime } from "./window-runtime.ts";

export type HostRuntimeOptions = Omit<ArborHostOptions, "transport" | "setTitle">;

export function createHostWindowRuntimes(options: HostRuntimeOptions): CreateWindowRuntime {
  // The windows share one library (one writer of its cache) and one set of open marks; they live as long as the app.
  let shared: SharedHostParts | undefined;
  return (context) => {
    shared ??= options.shared ?? createSharedHostParts(options);
    const host = createArborHost({ ...options, shared, transport: "electron", setTitle: context.setTitle });
    const events = host.events.subscribe((name, payload) => context.emit(name, payload));
    return {
      handlers: host.handlers,
      async switchToFile(path) {
        const result = await host.runtime.switchSession(path);
        if (result.cancelled) {
          throw new ArborError("refused", sessionErrors.cancelled(replacements.open, result.cancelledBy));
        }
      },
      async newSession() {
        const cwd = host.runtime.services?.cwd;
        if (!host.runtime.session || cwd === undefined) {
          throw new ArborError("refused", sessionErrors.openFirstForNew);
        }
        const result = await host.runtime.newSession(cwd);
        if (result.cancelled) {
          throw new ArborError("refused", sessionErrors.cancelled(replacements.new, result.cancelledBy));
        }
      },
      close() {
        events.dispose();
        return host.close();
      },
    };
  };
}
