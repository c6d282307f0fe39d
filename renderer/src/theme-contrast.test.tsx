/**
 * WCAG 2.2 contrast of the colour pairs styles.css actually paints, in the
 * light and the dark theme: text at least 4.5:1 (AA for normal text: all of
 * Arbor's text is 10-14px), and the accent used as a focus ring, a selection
 * ring or a pressed button's fill at least 3:1 against what it sits on
 * (1.4.11, non-text contrast). Reads the stylesheet itself, so a new colour
 * value or a rule that stops using its custom property is checked too.
 */

import { describe, expect, it } from "vitest";

// Vitest hands CSS modules over empty (even with ?raw), and renderer/ is typed and linted without Node
// (tsconfig.web.json, biome.json): this test, which runs in Node like every unit test, asks Node for fs.
const { readFileSync } = (
  globalThis as unknown as {
    process: { getBuiltinModule(id: "node:fs"): { readFileSync(path: URL, encoding: "utf8"): string } };
  }
).process.getBuiltinModule("node:fs");
const css = readFileSync(new URL("./styles.css", import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");

type Theme = Map<string, string>;

const DARK_RULE = ':root[data-theme="dark"]';

/** The custom properties declared in the first `:root { }` (or `:root[...] { }`) block of `source`. */
function customProperties(source: string): Theme {
  const body = /:root(?:\[[^\]]*\])?\s*\{([^}]*)\}/.exec(source)?.[1];
  if (body === undefined) throw new Error("styles.css: no :root block where one was expected");
  return new Map([...body.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

const light = customProperties(css);
const darkStart = css.indexOf(DARK_RULE);
if (darkStart < 0) throw new Error(`styles.css: no "${DARK_RULE}" block`);
// The dark theme overrides some properties; the rest are the light theme's.
const dark: Theme = new Map([...light, ...customProperties(css.slice(darkStart))]);
const themes = { light, dark };

/** The value `property` has in the (unnested) rule whose selector list includes `selector`. */
function declared(selector: string, property: string): string {
  for (const rule of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const selectors = rule[1]!.split(",").map((part) => part.trim());
    if (!selectors.includes(selector)) continue;
    const value = new RegExp(`(?:^|[;\\s])${property}\\s*:\\s*([^;]+);`).exec(rule[2]!)?.[1];
    if (value !== undefined) return value.trim();
  }
  throw new Error(`styles.css: no rule for "${selector}" sets ${property}`);
}

/** A colour as `#rrggbb`: a hex literal, or a custom property looked up in the theme. */
function resolve(value: string, theme: Theme): string {
  const variable = /^var\((--[\w-]+)\)$/.exec(value)?.[1];
  if (variable !== undefined) {
    const inner = theme.get(variable);
    if (inner === undefined) throw new Error(`styles.css: ${variable} is used but not declared`);
    return resolve(inner, theme);
  }
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value)?.[1];
  if (hex === undefined) throw new Error(`not a colour this test understands: "${value}"`);
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex}`.toLowerCase();
}

/** WCAG relative luminance of an sRGB colour. */
function relativeLuminance(hex: string): number {
  const [red, green, blue] = [1, 3, 5].map((start) => {
    const channel = Number.parseInt(hex.slice(start, start + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [
    number,
    number,
  ];
  return (lighter + 0.05) / (darker + 0.05);
}

const TEXT = 4.5;
const NON_TEXT = 3;

interface Pair {
  what: string;
  foreground: string;
  background: string;
  minimum: number;
}

const surfaces = ["var(--bg)", "var(--panel)", "var(--panel-2)"];
const nodeShades = [
  "var(--shade-context)",
  "var(--shade-summarised)",
  "var(--shade-edited)",
  "var(--shade-dropped)",
  "var(--shade-path)",
];
const across = (what: string, foreground: string, backgrounds: string[], minimum = TEXT): Pair[] =>
  backgrounds.map((background) => ({ what, foreground, background, minimum }));
const filled = (selector: string): Pair => ({
  what: `${selector} text on its fill`,
  foreground: declared(selector, "color"),
  background: declared(selector, "background"),
  minimum: TEXT,
});

const pairs: Pair[] = [
  // Pressed toggles ("Agent messages" / "What the model sees", Follow leaf), selected tabs, primary buttons.
  filled('button[aria-pressed="true"]'),
  filled('button[aria-selected="true"]'),
  filled("button.primary"),
  filled(".badge.label"),
  filled(".badge.live"),
  // Body text on the page, the panels, a button, an open session row, the toast, a search hit, graph nodes.
  ...across("text", "var(--text)", [...surfaces, "var(--accent-soft)", "var(--match)", ...nodeShades]),
  // Secondary text: session metadata (also in the open row), "(no text)" in a node, facts, the status line.
  ...across("muted text", "var(--muted)", [...surfaces, "var(--accent-soft)", ...nodeShades]),
  // Links and "Show more lines" sit on panels and inside tool calls (--panel-2).
  ...across(".link-button", declared(".link-button", "color"), surfaces),
  ...across(".collapsible .more", declared(".collapsible .more", "color"), surfaces),
  ...across("error text", "var(--error)", [...surfaces, ...nodeShades]),
  ...across(".toast.error", declared(".toast.error", "color"), [declared(".toast.error", "background")]),
  // Coloured badges keep the badge's own background.
  ...[".badge.warning", ".badge.error", ".badge.ok", ".badge.tool"].flatMap((selector) =>
    across(selector, declared(selector, "color"), [declared(".badge", "background")]),
  ),
  ...across("warning text", "var(--warning)", ["var(--panel)"]),
  // Role names in the context preview and inspector (the side panel).
  ...["user", "assistant", "toolResult", "bashExecution", "compactionSummary", "custom"].flatMap((role) =>
    across(`role ${role}`, declared(`.role-name.role-${role}`, "color"), ["var(--panel)"]),
  ),
  // Non-text: the focus outline, the selected node's ring and a pressed button's fill against what is around them.
  ...across("accent as a focus ring, selection ring or fill", "var(--accent)", surfaces, NON_TEXT),
];

describe("theme contrast (WCAG AA)", () => {
  it("computes ratios the way WCAG does", () => {
    expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrastRatio("#ffffff", "#777777")).toBe(contrastRatio("#777777", "#ffffff"));
  });

  it("reads both themes from styles.css", () => {
    expect(light.get("--accent")).toMatch(/^#/);
    expect(dark.get("--accent")).not.toBe(light.get("--accent"));
    expect(light.get("--on-accent")).toBeDefined();
    expect(dark.get("--on-accent")).toBeDefined();
  });

  for (const [name, theme] of Object.entries(themes)) {
    it.each(pairs)(`${name}: $what, $foreground on $background`, ({ foreground, background, minimum }) => {
      const ratio = contrastRatio(resolve(foreground, theme), resolve(background, theme));
      expect(ratio, `${resolve(foreground, theme)} on ${resolve(background, theme)}`).toBeGreaterThanOrEqual(
        minimum,
      );
    });
  }
});
