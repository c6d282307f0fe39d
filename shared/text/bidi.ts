/**
 * Bidirectional control characters in text a user did not write themselves
 * (a session's name, a message, a label): shown, never applied. U+202E
 * (right-to-left override) would make `\u202Etxt.exe` read as `exe.txt` and
 * let a name pose as another. Each control is replaced by a visible marker
 * (`⟨RLO⟩`) where text can only be text (a window title, Markdown, an
 * export), or split out (`bidiSegments`) where the window can style it.
 */

const CONTROL_NAMES: Readonly<Record<string, { short: string; name: string }>> = {
  "\u061C": { short: "ALM", name: "arabic letter mark" },
  "\u200E": { short: "LRM", name: "left-to-right mark" },
  "\u200F": { short: "RLM", name: "right-to-left mark" },
  "\u202A": { short: "LRE", name: "left-to-right embedding" },
  "\u202B": { short: "RLE", name: "right-to-left embedding" },
  "\u202C": { short: "PDF", name: "pop directional formatting" },
  "\u202D": { short: "LRO", name: "left-to-right override" },
  "\u202E": { short: "RLO", name: "right-to-left override" },
  "\u2066": { short: "LRI", name: "left-to-right isolate" },
  "\u2067": { short: "RLI", name: "right-to-left isolate" },
  "\u2068": { short: "FSI", name: "first strong isolate" },
  "\u2069": { short: "PDI", name: "pop directional isolate" },
};

const CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function hasBidiControls(text: string): boolean {
  return CONTROL.test(text);
}

/** The text with each bidirectional control as a visible marker (`⟨RLO⟩`); the same string when it has none. */
export function showBidiControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (control) => `⟨${CONTROL_NAMES[control]!.short}⟩`);
}

export type BidiSegment =
  | { kind: "text"; text: string }
  | { kind: "control"; short: string; codePoint: string; name: string };

/** The text cut at each bidirectional control, for a view that marks them (one text segment when there are none). */
export function bidiSegments(text: string): BidiSegment[] {
  if (!CONTROL.test(text)) return [{ kind: "text", text }];
  const segments: BidiSegment[] = [];
  let from = 0;
  for (const match of text.matchAll(CONTROLS)) {
    const at = match.index;
    if (at > from) segments.push({ kind: "text", text: text.slice(from, at) });
    const control = match[0];
    const { short, name } = CONTROL_NAMES[control]!;
    const codePoint = `U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    segments.push({ kind: "control", short, codePoint, name });
    from = at + control.length;
  }
  if (from < text.length) segments.push({ kind: "text", text: text.slice(from) });
  return segments;
}
