/**
 * The renderer's imperative shell: every user action and every IPC event
 * goes through here and ends as `setState` on the vanilla stores. It owns
 * its subscriptions and timers and lets go of all of them in `dispose()`.
 * Requests carry a serial so an answer that arrives after a newer request
 * was made (a slow context, a session opened twice) is dropped.
 *
 * The work is split by concern into the parts in `controller/` (library,
 * open session, navigation, search, context preview, labels and links,
 * notices); each owns its serials and subscribes to the events that concern
 * it. This composes them and hands each the few calls it makes of another.
 */

import type { ArborClient } from "../../../shared/ipc/contract.ts";
import { createBranches } from "../branch-map/branches-part.ts";
import { graphPanelSize } from "../branch-map/default-view.ts";
import type { Controller, ControllerOptions } from "./controller/api.ts";
import { createAppearance } from "./controller/appearance.ts";
import { createContextPreview } from "./controller/context-preview.ts";
import { createKit, createLifetime } from "./controller/kit.ts";
import { createLabels } from "./controller/labels.ts";
import { createLibrary } from "./controller/library.ts";
import { createNavigator } from "./controller/navigator.ts";
import { createNotices } from "./controller/notices.ts";
import { createSearch } from "./controller/search.ts";
import { createSession } from "./controller/session.ts";
import { createSessionManage } from "./controller/session-manage.ts";
import { createGraphSelectors } from "./graph-model.ts";
import type { Stores } from "./stores.ts";

export type { Controller, ControllerOptions } from "./controller/api.ts";
export { messageOf } from "./controller/kit.ts";
export { RECENT_HIGHLIGHT_MS } from "./controller/session-updates.ts";

export function createController(
  client: ArborClient,
  stores: Stores,
  options: ControllerOptions = {},
): Controller {
  const lifetime = createLifetime();
  const notices = createNotices(stores.live, lifetime);
  const selectors = createGraphSelectors(options.whenIdle);
  const kit = createKit(client, stores, options, { lifetime, selectors, notify: notices.actions.notify });

  const navigation = createNavigator(kit);
  const library = createLibrary(kit);
  const session = createSession(kit, { navigator: navigation, rows: library });
  const preview = createContextPreview(kit);
  const search = createSearch(kit, navigation);
  const manage = createSessionManage(kit, {
    switchBy: session.switchBy,
    openSession: session.actions.openSession,
    // The label editor is the labels part's, made below (it writes through this part's setLabel).
    beginLabel: (entryId) => labels.actions.beginLabel(entryId),
  });
  const labels = createLabels(kit, manage.actions.setLabel);
  const appearance = createAppearance(kit);
  const branches = createBranches(kit, {
    navigator: navigation,
    select: navigation.actions.select,
    viewport: options.graphViewport ?? graphPanelSize,
  });

  return {
    stores,
    selectors,
    model: kit.model,
    transport: options.transport ?? "serve",
    manage: manage.actions,
    branches,
    async start() {
      // Each part follows its own events (one store's listeners run in the order they subscribed).
      for (const part of [library, session, preview, search, appearance, manage]) part.subscribe();
      await Promise.all([library.actions.loadLibrary(), session.showFirst(), appearance.load()]);
    },
    dispose: lifetime.dispose,
    ...library.actions,
    ...session.actions,
    ...navigation.actions,
    ...search.actions,
    ...preview.actions,
    ...labels.actions,
    ...notices.actions,
    ...appearance.actions,
  };
}
