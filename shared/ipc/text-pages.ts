/**
 * Long texts travel in pages. An answer that carries an entry or a context
 * (`session.entry`, `session.context`) has each string longer than
 * `TEXT_BLOCK_MAX_CHARS` cut to that length, and once the answer holds
 * `ANSWER_TEXT_MAX_CHARS` of long strings, each further one cut to
 * `TEXT_CUT_SHORT_CHARS`: a 300 MB tool result costs the answer 256 KB, not
 * one 300 MB frame. Each cut is listed (`TextCut`: where, how long in all,
 * how much is shown) and `session.text` returns the rest a page at a time.
 *
 * Copy on write: only the objects on the way to a cut string are copied; an
 * answer without long strings is returned as it is.
 */

/** Where a string is inside an answer: keys and array indices from the answer's root. */
export type TextPath = (string | number)[];

/** A string of an answer cut short: `shown` of its `length` characters are there; `session.text` has the rest. */
export interface TextCut {
  path: TextPath;
  length: number;
  shown: number;
}

/** The most characters of one string an answer carries. */
export const TEXT_BLOCK_MAX_CHARS = 256 * 1024;
/** The most characters of long strings one answer carries before it cuts them shorter. */
export const ANSWER_TEXT_MAX_CHARS = 4 * 1024 * 1024;
/** What is left of a long string once the answer's budget is spent. */
export const TEXT_CUT_SHORT_CHARS = 4 * 1024;
/** The most characters one `session.text` answer carries (at most 3 MB as UTF-8). */
export const TEXT_PAGE_MAX_CHARS = 1024 * 1024;

/** A cutter for one answer: its budget is shared by every value it cuts. */
export class TextCutter {
  readonly cuts: TextCut[] = [];
  private spent = 0;

  /** `value` with its long strings cut; the cuts are listed under `prefix` + the path inside `value`. */
  cut<T>(value: T, prefix: TextPath): T {
    return this.visit(value, [...prefix]) as T;
  }

  private visit(value: unknown, path: TextPath): unknown {
    if (typeof value === "string") return this.cutString(value, path);
    if (typeof value !== "object" || value === null) return value;
    let copy: Record<string, unknown> | unknown[] | null = null;
    const source = value as Record<string, unknown>;
    const keys: readonly (string | number)[] = Array.isArray(value)
      ? value.map((_, i) => i)
      : Object.keys(value);
    for (const key of keys) {
      const child = source[key as string];
      if (typeof child !== "object" && typeof child !== "string") continue;
      path.push(key);
      const visited = this.visit(child, path);
      path.pop();
      if (visited === child) continue;
      copy ??= Array.isArray(value) ? [...value] : { ...source };
      (copy as Record<string, unknown>)[key as string] = visited;
    }
    return copy ?? value;
  }

  private cutString(text: string, path: TextPath): string {
    if (text.length <= TEXT_CUT_SHORT_CHARS) return text;
    const room = this.spent >= ANSWER_TEXT_MAX_CHARS ? TEXT_CUT_SHORT_CHARS : TEXT_BLOCK_MAX_CHARS;
    const shown = Math.min(text.length, room);
    this.spent += shown;
    if (shown === text.length) return text;
    this.cuts.push({ path: [...path], length: text.length, shown });
    return text.slice(0, shown);
  }
}

/** The string at `path` inside `value`, or undefined when there is none. */
export function stringAt(value: unknown, path: TextPath): string | undefined {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key as string];
  }
  return typeof current === "string" ? current : undefined;
}

/** The page of `text` from `offset`, at most `length` characters (and `TEXT_PAGE_MAX_CHARS`). */
export function textPage(text: string, offset: number, length: number): { text: string; length: number } {
  const end = Math.min(text.length, offset + Math.min(length, TEXT_PAGE_MAX_CHARS));
  return { text: text.slice(Math.min(offset, text.length), end), length: text.length };
}
