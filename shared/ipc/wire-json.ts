/**
 * JSON text spliced into a frame as it is: a saved view's nodes, already in
 * their wire form as JSON text (app/store/saved-view.ts), go into the
 * WebSocket frame without being parsed and written again.
 */

/** JSON text that `stringifyWire` writes as it is, where it is the value of a plain object's property. */
export class WireJson {
  constructor(readonly json: string) {}

  toJSON(): never {
    throw new Error(
      "WireJson is written by stringifyWire, as a plain object's property; not by JSON.stringify.",
    );
  }
}

/** Unguessable, so no string a session holds can stand for a splice. */
const SPLICE_MARK = (() => {
  const words = crypto.getRandomValues(new Uint32Array(4));
  return `\u0000arbor-wire-json-${Array.from(words, (word) => word.toString(36)).join("-")}`;
})();

/** `JSON.stringify(value)`, with the JSON text of each `WireJson` in it written in its place. */
export function stringifyWire(value: unknown): string {
  const texts: string[] = [];
  const text = JSON.stringify(withMarks(value, texts));
  if (texts.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const mark = JSON.stringify(`${SPLICE_MARK}:${i}`);
    const at = text.indexOf(mark, from);
    if (at === -1) throw new Error("stringifyWire: a splice mark went missing");
    parts.push(text.slice(from, at), texts[i]!);
    from = at + mark.length;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/**
 * `value` with each `WireJson` that is the value of a plain object's property
 * replaced by a mark, its text pushed to `texts` in the order
 * `JSON.stringify` writes them. Only the objects on the way to one are
 * copied. Arrays are not looked into (a node list's columns hold 100k
 * values each): a `WireJson` in one is refused by its `toJSON`.
 */
function withMarks(value: unknown, texts: string[]): unknown {
  if (value instanceof WireJson) {
    texts.push(value.json);
    return `${SPLICE_MARK}:${texts.length - 1}`;
  }
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value);
  let changed = false;
  for (const entry of entries) {
    const marked = withMarks(entry[1], texts);
    if (marked !== entry[1]) {
      entry[1] = marked;
      changed = true;
    }
  }
  return changed ? Object.fromEntries(entries) : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
