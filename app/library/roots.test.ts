import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { piAgentDir, piSessionRoot, resolveSessionRoots } from "./roots.ts";
import { tempFolder } from "./testing.ts";

interface PiConfig {
  getAgentDir(): string;
  getSessionsDir(): string;
  expandTildePath(path: string): string;
}

// Pi 1.6's dist/config.js loads on Node 20 by path; its settings manager does not (it pulls in undici).
const piConfig = (await import(
  new URL("../../node_modules/@earendil-works/pi-coding-agent/dist/config.js", import.meta.url).href
)) as PiConfig;

let folder: ReturnType<typeof tempFolder>;
let home: string;

beforeEach(() => {
  folder = tempFolder();
  home = join(folder.path, "home");
  mkdirSync(home);
});
afterEach(() => folder.cleanup());

const PI_VARIABLES = ["HOME", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"] as const;

/**
 * Pi's agent dir and session root (settings aside), computed by Pi's own
 * config.js with `env` and HOME set in this process's environment (Pi reads
 * both at call time; os.homedir() reads HOME), then restored.
 */
function piConfigUnder(env: Partial<Record<(typeof PI_VARIABLES)[number], string>>) {
  const saved = PI_VARIABLES.map((name) => [name, process.env[name]] as const);
  try {
    for (const name of PI_VARIABLES) delete process.env[name];
    Object.assign(process.env, { HOME: home, ...env });
    const fromEnv = process.env.PI_CODING_AGENT_SESSION_DIR;
    return {
      agentDir: piConfig.getAgentDir(),
      sessionRoot: fromEnv ? piConfig.expandTildePath(fromEnv) : piConfig.getSessionsDir(),
    };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

function writeSettings(agentDir: string, text: string): void {
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), text);
}

describe("session roots, found as Pi 1.6 finds them", () => {
  it("defaults to ~/.pi/agent/sessions", () => {
    const root = piSessionRoot({ env: {}, homeDir: home });
    expect(root).toEqual({
      path: join(home, ".pi", "agent", "sessions"),
      source: "default",
      note: undefined,
    });
    expect(root.path).toBe(piConfigUnder({}).sessionRoot);
  });

  it("$PI_CODING_AGENT_DIR moves the agent folder, with ~ expanded as Pi expands it", () => {
    for (const value of [
      join(folder.path, "agent"),
      "~/custom-agent",
      "~",
      pathToFileURL(join(folder.path, "url")).href,
    ]) {
      const env = { PI_CODING_AGENT_DIR: value };
      const pi = piConfigUnder(env);
      expect(piAgentDir({ env, homeDir: home }), value).toBe(pi.agentDir);
      expect(piSessionRoot({ env, homeDir: home }), value).toMatchObject({
        path: pi.sessionRoot,
        source: "default",
      });
    }
  });

  it("an empty variable counts as unset, as in Pi", () => {
    const env = { PI_CODING_AGENT_DIR: "", PI_CODING_AGENT_SESSION_DIR: "" };
    expect(piSessionRoot({ env, homeDir: home }).path).toBe(piConfigUnder(env).sessionRoot);
    expect(piSessionRoot({ env, homeDir: home }).source).toBe("default");
  });

  it("sessionDir in <agentDir>/settings.json comes before the default", () => {
    const agentDir = join(folder.path, "agent");
    writeSettings(agentDir, JSON.stringify({ theme: "dark", sessionDir: "~/pi-sessions" }));
    const root = piSessionRoot({ env: { PI_CODING_AGENT_DIR: agentDir }, homeDir: home });
    expect(root).toEqual({ path: join(home, "pi-sessions"), source: "settings", note: undefined });
  });

  it("settings.json is read from the default agent folder too, byte order mark and all", () => {
    writeSettings(
      join(home, ".pi", "agent"),
      `\ufeff${JSON.stringify({ sessionDir: join(folder.path, "s") })}`,
    );
    expect(piSessionRoot({ env: {}, homeDir: home })).toMatchObject({
      path: join(folder.path, "s"),
      source: "settings",
    });
  });

  it("$PI_CODING_AGENT_SESSION_DIR comes before settings.json", () => {
    const agentDir = join(folder.path, "agent");
    writeSettings(agentDir, JSON.stringify({ sessionDir: join(folder.path, "from-settings") }));
    const env = { PI_CODING_AGENT_DIR: agentDir, PI_CODING_AGENT_SESSION_DIR: "~/from-env" };
    const root = piSessionRoot({ env, homeDir: home });
    expect(root).toEqual({ path: join(home, "from-env"), source: "env", note: undefined });
    expect(root.path).toBe(piConfigUnder(env).sessionRoot);
  });

  it("a settings file that is not JSON, or a sessionDir that is no string, is ignored with a note", () => {
    const agentDir = join(folder.path, "agent");
    const env = { PI_CODING_AGENT_DIR: agentDir };
    writeSettings(agentDir, "{ not json");
    const broken = piSessionRoot({ env, homeDir: home });
    expect(broken).toMatchObject({ path: join(agentDir, "sessions"), source: "default" });
    expect(broken.note).toContain("not valid JSON");
    writeSettings(agentDir, JSON.stringify({ sessionDir: 7 }));
    expect(piSessionRoot({ env, homeDir: home }).note).toContain("not a string");
    writeSettings(agentDir, JSON.stringify({ sessionDir: "" }));
    expect(piSessionRoot({ env, homeDir: home })).toMatchObject({ source: "default", note: undefined });
  });

  it("a relative sessionDir is resolved against Arbor's folder, with a note on how Pi differs", () => {
    const agentDir = join(folder.path, "agent");
    writeSettings(agentDir, JSON.stringify({ sessionDir: "rel/sessions" }));
    const root = piSessionRoot({ env: { PI_CODING_AGENT_DIR: agentDir }, homeDir: home, cwd: folder.path });
    expect(root.path).toBe(join(folder.path, "rel", "sessions"));
    expect(root.note).toContain("relative");
  });

  it("the user's folders follow Pi's root, duplicates dropped", () => {
    const env = { PI_CODING_AGENT_SESSION_DIR: join(folder.path, "pi") };
    const roots = resolveSessionRoots([join(folder.path, "mine"), join(folder.path, "pi"), "~/more"], {
      env,
      homeDir: home,
    });
    expect(roots.map((root) => [root.path, root.source])).toEqual([
      [join(folder.path, "pi"), "env"],
      [join(folder.path, "mine"), "folder"],
      [join(home, "more"), "folder"],
    ]);
  });
});
