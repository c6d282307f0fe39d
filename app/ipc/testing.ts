/**
 * Test support for the window's services and their handler table: hosts
 * over a session root in a temp folder (closed after each test), the events
 * a host sends, and requests made as a window makes them.
 */

import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import {
  ArborError,
  type ArborEvents,
  type EventName,
  type RequestName,
  type RequestParams,
  type RequestResult,
  type SessionListItem,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { applySessionDelta } from "../../shared/ipc/session-delta.ts";
import { decodeResult } from "../../shared/ipc/wire.ts";
import { ownedByTest } from "../../shared/lifecycle/testing.ts";
import { encodedCwd, tempFolder } from "../runtime/testing.ts";
import { type DispatchOptions, type DispatchResult, dispatch } from "./bind.ts";
import { type ArborHost, type ArborHostOptions, createArborHost } from "./host.ts";

export interface HostFixture {
  /** The temp folder of the running test. */
  readonly folder: string;
  /** Its session root (Pi's `sessions` folder). */
  readonly root: string;
  /** Where `writeSampleSession` puts the sample: a project of cwd `/work/project` under `root`. */
  readonly samplePath: string;
  /** A host over `root` (the demo library on unless `demo: false`), closed after the test. */
  host(options?: Partial<Omit<ArborHostOptions, "transport" | "version">>): ArborHost;
  /** Closes `host` after the test. */
  track(host: ArborHost): ArborHost;
}

/** A fresh temp folder for every test of the file, and the hosts made in it closed after each. */
export function hostsInTempFolder(prefix = "arbor-handlers-"): HostFixture {
  let folder: ReturnType<typeof tempFolder> | undefined;
  const hosts: ArborHost[] = [];
  beforeEach(() => {
    folder = tempFolder(prefix);
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
    folder?.cleanup();
  });
  const path = () => {
    if (!folder) throw new Error("The host fixture is used outside a test.");
    return folder.path;
  };
  const fixture: HostFixture = {
    get folder() {
      return path();
    },
    get root() {
      return join(path(), "sessions");
    },
    get samplePath() {
      return join(path(), "sessions", encodedCwd("/work/project"), "2026-01-01T12-00-00-000Z_sample.jsonl");
    },
    host(options = {}) {
      return fixture.track(
        createArborHost({
          transport: "serve",
          version: "0.1.0",
          dataDir: join(path(), "data"),
          roots: [fixture.root],
          demo: true,
          ...options,
        }),
      );
    },
    track(host) {
      hosts.push(host);
      return host;
    },
  };
  return fixture;
}

/** Every event `host` sends from now on, in order. */
export function collect(host: ArborHost): { name: EventName; payload: unknown }[] {
  const seen: { name: EventName; payload: unknown }[] = [];
  ownedByTest(host.events.subscribe((name, payload) => seen.push({ name, payload })));
  return seen;
}

/** The next `name` event `host` sends. */
export function waitForEvent<E extends EventName>(host: ArborHost, name: E): Promise<ArborEvents[E]> {
  return new Promise((resolve) => {
    const subscription = ownedByTest(
      host.events.subscribe((event, payload) => {
        if (event !== name) return;
        subscription.dispose();
        resolve(payload as ArborEvents[E]);
      }),
    );
  });
}

/** Every row of a listing, project after project. */
export const items = (listing: { projects: { sessions: SessionListItem[] }[] }): SessionListItem[] =>
  listing.projects.flatMap((project) => project.sessions);

/** The view a window holds: `start`, then each `session.appended` delta of `host` applied to it in turn. */
export function followedView(host: ArborHost, start: SessionView): { current: SessionView } {
  const followed = { current: start };
  ownedByTest(
    host.events.subscribe((name, payload) => {
      if (name !== "session.appended") return;
      const { delta } = payload as ArborEvents["session.appended"];
      expect(delta.baseBytes).toBe(followed.current.bytes);
      followed.current = applySessionDelta(followed.current, delta);
    }),
  );
  return followed;
}

/**
 * A request as a window makes it: through `dispatch` (the binding, where
 * errors are translated); an error is thrown as the `ArborError` its payload makes.
 */
export async function request<N extends RequestName>(
  handlers: ArborHost["handlers"],
  name: N,
  params: RequestParams<N>,
  options: DispatchOptions = {},
): Promise<RequestResult<N>> {
  // Through JSON, as on any wire.
  const outcome = JSON.parse(
    JSON.stringify(await dispatch(handlers, name, params, options)),
  ) as DispatchResult;
  if ("error" in outcome) throw ArborError.from(outcome.error);
  return decodeResult(name, outcome.result as never);
}
