/**
 * Follows the open session's file: starts on `session_start`, stops on
 * `session_shutdown`. What the follower reads arrives as the session's
 * `onDidAppend` / `onDidReload` events.
 */

import { MutableDisposable } from "../../../shared/lifecycle/disposable.ts";
import type { ArborExtension } from "../extension.ts";

export const FOLLOWER_EXTENSION_ID = "arbor.follower";

export function createFollowerExtension(): ArborExtension {
  return {
    id: FOLLOWER_EXTENSION_ID,
    activate(context) {
      const following = context.register(new MutableDisposable());
      context.on("session_start", () => {
        following.value = context.session.follow();
      });
      context.on("session_shutdown", () => {
        following.clear();
      });
    },
  };
}
