/** Renders the whole explorer over a fake client, for component tests. */

import { act, render, screen, waitFor } from "@testing-library/react";
import type { ExportResult } from "../../../shared/ipc/contract.ts";
import { generateSession } from "../../../shared/session/testing/generate-session.ts";
import { App } from "../explorer/app.tsx";
import { type Controller, createController } from "../state/controller.ts";
import { ControllerProvider } from "../state/hooks.tsx";
import { createStores } from "../state/stores.ts";
import {
  createFakeClient,
  type FakeClient,
  type FakeClientOptions,
  type FakeSessionInput,
} from "./fake-client.ts";

export interface Explorer {
  client: FakeClient;
  controller: Controller;
  clipboard: string[];
  /** The graph node element of an entry (or chain) id. */
  node(id: string): HTMLElement | null;
  /** Ids of the graph nodes drawn, in document order. */
  drawnIds(): string[];
  preview(): HTMLElement;
  /** Waits until the context preview shows the context of `leafId`. */
  waitForContext(leafId: string): Promise<HTMLElement>;
  unmount(): void;
}

export function generatedSessions(seeds: number[], entryCount?: number): FakeSessionInput[] {
  return seeds.map((seed) => ({
    sessionId: `s${seed}`,
    text: generateSession(entryCount === undefined ? { seed } : { seed, entryCount }).text,
  }));
}

export async function renderExplorer(
  sessions: FakeSessionInput[],
  options: {
    search?: string;
    open?: string;
    client?: FakeClientOptions;
    /** Runs before the explorer starts (to make requests fail, say). */
    prepare?: (client: FakeClient) => void;
    /** `ControllerOptions.searchAsTypedBelow`: a small session can stand for a large one. */
    searchAsTypedBelow?: number;
    /** `ControllerOptions.saveFile`: where exports go instead of a download. */
    saveFile?: (file: ExportResult) => void;
    /**
     * The entry graph's size on screen, which decides the default view (branch-map/default-view.ts). None by
     * default: the entry graph shows, as the tests written before the map expect.
     */
    graphViewport?: { width: number; height: number };
  } = {},
): Promise<Explorer> {
  const client = createFakeClient(sessions, options.client);
  options.prepare?.(client);
  const stores = createStores();
  const clipboard: string[] = [];
  const controller = createController(client, stores, {
    location: { search: options.search ?? "", href: `http://arbor.test/${options.search ?? ""}` },
    writeClipboard: async (text) => {
      clipboard.push(text);
    },
    ...(options.searchAsTypedBelow === undefined ? {} : { searchAsTypedBelow: options.searchAsTypedBelow }),
    ...(options.saveFile ? { saveFile: options.saveFile } : {}),
    graphViewport: () => options.graphViewport ?? { width: 0, height: 0 },
  });
  const result = render(
    <ControllerProvider controller={controller}>
      <App />
    </ControllerProvider>,
  );
  await act(() => controller.start());
  if (options.open) await act(() => controller.openSession(options.open!));
  const explorer: Explorer = {
    client,
    controller,
    clipboard,
    node: (id) =>
      result.container.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`),
    drawnIds: () =>
      [...result.container.querySelectorAll<HTMLElement>(".react-flow__node")].map(
        (node) => node.dataset.id!,
      ),
    preview: () => screen.getByRole("region", { name: "Context preview" }),
    async waitForContext(leafId) {
      let region: HTMLElement | null = null;
      await waitFor(() => {
        region = screen.getByRole("region", { name: "Context preview" });
        if (region.dataset.leafId !== leafId || region.getAttribute("aria-busy") === "true") {
          throw new Error(`The preview shows ${region.dataset.leafId ?? "nothing"}, not ${leafId}.`);
        }
      });
      return region!;
    },
    unmount() {
      controller.dispose();
      result.unmount();
    },
  };
  return explorer;
}

/** React Flow's viewport, read from its viewport element's transform. */
export function flowViewport(container: ParentNode = document): { x: number; y: number; zoom: number } {
  const style = container.querySelector<HTMLElement>(".react-flow__viewport")!.style.transform;
  const match = /translate\(([-\d.e]+)px, ?([-\d.e]+)px\) scale\(([-\d.e]+)\)/.exec(style);
  if (!match) throw new Error(`unexpected viewport transform: ${style}`);
  return { x: Number(match[1]), y: Number(match[2]), zoom: Number(match[3]) };
}
