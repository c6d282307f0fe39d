/** The transports' small adapters and deep links (Node environment). */

import { describe, expect, it } from "vitest";
import { ArborError } from "../../../shared/ipc/contract.ts";
import { diffSessionViews } from "../../../shared/ipc/session-delta.ts";
import { encodeEvent, encodeResult } from "../../../shared/ipc/wire.ts";
import { plainView } from "../../../shared/ipc/testing/session-view.ts";
import { readSession } from "../../../shared/session/index.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { conversation, sessionText } from "../testing/sessions.ts";
import { serveToken, type TokenStorage, webSocketUrl, withoutToken } from "./client.ts";
import { buildDeepLink, parseDeepLink } from "./deep-link.ts";
import { type ArborBridge, createElectronClient } from "./electron-client.ts";

describe("the Electron client", () => {
  it("answers with the result, and rejects with an ArborError for an error outcome", async () => {
    const bridge: ArborBridge = {
      request: async (name) =>
        (name === "app.info"
          ? { result: { version: "1", transport: "electron" } }
          : { error: { code: "not-found", message: "No such session." } }) as never,
      on: () => () => {},
      openDroppedFile: async () => ({
        opened: false,
        error: { code: "refused", message: "Not a session file." },
      }),
    };
    const client = createElectronClient(bridge);
    await expect(client.request("app.info", {})).resolves.toEqual({ version: "1", transport: "electron" });
    const failure = await client.request("session.open", { sessionId: "x" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ArborError);
    expect(failure).toMatchObject({ code: "not-found", message: "No such session." });
    await expect(client.openDroppedFile({} as File)).rejects.toMatchObject({ code: "refused" });
  });
});

describe("the Electron client decodes the wire form", () => {
  it("of a session view in an answer, and of a delta and a view in events", async () => {
    const index = readSession(sessionText(conversation(4)));
    const view = sessionViewOf("s1", index);
    const listeners = new Map<string, (payload: unknown) => void>();
    const bridge: ArborBridge = {
      request: async (name) => ({ result: encodeResult(name, view as never) }) as never,
      on: (name, listener) => {
        listeners.set(name, listener as (payload: unknown) => void);
        return () => listeners.delete(name);
      },
      openDroppedFile: async () => ({ opened: true }),
    };
    const client = createElectronClient(bridge);
    expect(plainView(await client.request("session.current", {}))).toEqual(plainView(view));
    const seen: unknown[] = [];
    client.on("session.reloaded", (payload) => seen.push(payload));
    client.on("session.appended", (payload) => seen.push(payload));
    const reloaded = { sessionId: "s1", reason: "rewritten" as const, view };
    listeners.get("session.reloaded")!(JSON.parse(JSON.stringify(encodeEvent("session.reloaded", reloaded))));
    const grown = sessionViewOf("s1", readSession(sessionText(conversation(5))));
    const appended = { sessionId: "s1", delta: diffSessionViews(view, grown) };
    listeners.get("session.appended")!(JSON.parse(JSON.stringify(encodeEvent("session.appended", appended))));
    const [gotReloaded, gotAppended] = seen as [typeof reloaded, typeof appended];
    expect({ ...gotReloaded, view: plainView(gotReloaded.view) }).toEqual({
      ...reloaded,
      view: plainView(view),
    });
    expect(gotAppended).toEqual(appended);
    expect(seen).toHaveLength(2);
  });
});

describe("the serve transport", () => {
  it("connects to /ws on the page's host, passing the token on", () => {
    expect(webSocketUrl({ protocol: "http:", host: "127.0.0.1:4711" }, "abc-_9")).toBe(
      "ws://127.0.0.1:4711/ws?token=abc-_9",
    );
    expect(webSocketUrl({ protocol: "https:", host: "h" }, null)).toBe("wss://h/ws");
  });

  it("keeps the token of the printed URL in the origin's storage, for loads without it", () => {
    const kept = new Map<string, string>();
    const storage: TokenStorage = {
      getItem: (key) => kept.get(key) ?? null,
      setItem: (key, value) => void kept.set(key, value),
    };
    expect(serveToken("?session=s", storage)).toBeNull();
    expect(serveToken("?token=t1&session=s", storage)).toBe("t1");
    expect(serveToken("?session=s&leaf=a", storage)).toBe("t1");
    // A new launch's URL replaces the old token.
    expect(serveToken("?token=t2", storage)).toBe("t2");
    expect(serveToken("", storage)).toBe("t2");
    const refusing: TokenStorage = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    expect(serveToken("?token=t3", refusing)).toBe("t3");
    expect(serveToken("", refusing)).toBeNull();
    expect(serveToken("?token=t4", null)).toBe("t4");
  });

  it("takes the token out of the address, keeping the rest", () => {
    expect(withoutToken("?token=t&session=s&leaf=a")).toBe("?session=s&leaf=a");
    expect(withoutToken("?token=t")).toBe("");
    expect(withoutToken("")).toBe("");
  });
});

describe("deep links", () => {
  it("round-trip a session and an entry, and never carry the page's other parameters", () => {
    const link = buildDeepLink("http://127.0.0.1:4711/?token=secret#x", "s_1", "abc123");
    expect(link).toBe("http://127.0.0.1:4711/?session=s_1&leaf=abc123");
    expect(parseDeepLink(new URL(link).search)).toEqual({ sessionId: "s_1", leafId: "abc123" });
    expect(parseDeepLink("?token=t")).toBeNull();
    expect(parseDeepLink("?session=s")).toEqual({ sessionId: "s", leafId: null });
  });
});
