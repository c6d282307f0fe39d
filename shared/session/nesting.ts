/**
 * Entries nested too deep to handle. `JSON.parse` reads any depth, but
 * `JSON.stringify`, structured cloning and every recursive walk (an answer's
 * encoding, a view of the entry) overflow the stack somewhere past a few
 * thousand levels: one entry nested 100,000 levels deep would break every
 * answer it is part of. Such an entry is kept in the tree (its id, parent,
 * type and role) with its deep fields replaced by a note, and the reader
 * reports a `too-deep` problem on its line.
 *
 * Only lines long enough to nest that deep are checked: each level costs at
 * least two characters, so a line of fewer than `DEPTH_CHECK_MIN_CHARS`
 * cannot, and the check walks the parsed value's containers (not its text).
 */

/** The deepest nesting Arbor shows (the entry object itself is level 1). Pi's own entries stay below 20. */
export const MAX_ENTRY_DEPTH = 500;

/** A line of fewer characters cannot nest deeper than `MAX_ENTRY_DEPTH`. */
export const DEPTH_CHECK_MIN_CHARS = 2 * MAX_ENTRY_DEPTH;

/** Marks an entry whose deep fields were replaced: it must not be written out as if whole (a fork). */
export const NESTED_TOO_DEEP: unique symbol = Symbol("arbor.nestedTooDeep");

export const NESTING_TEXT = {
  note: `[Arbor: this part of the entry is nested more than ${MAX_ENTRY_DEPTH} levels deep and cannot be shown]`,
  problem: (fields: readonly string[]) =>
    `The entry is nested more than ${MAX_ENTRY_DEPTH} levels deep (in ${fields.join(", ")}); ` +
    "Arbor shows it without those fields, and Pi could not send it to a model.",
} as const;

/** Whether `value` holds containers nested more than `limit` levels (`value` itself is level 1). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

export interface BoundedEntry {
  entry: Record<string, unknown>;
  /** The fields replaced by a note (`message.content`, `details`): empty when the entry was within bounds. */
  replaced: string[];
}

/**
 * The entry with every field nested deeper than `MAX_ENTRY_DEPTH` replaced
 * by a note (a message's fields one by one; `content` by a text block, so the
 * message keeps Pi's shape). `text`: the line's text, whose length says
 * whether a check is needed at all. An entry within bounds is returned as it is.
 */
export function boundEntryDepth(entry: Record<string, unknown>, textLength: number): BoundedEntry {
  if (textLength < DEPTH_CHECK_MIN_CHARS || !nestsDeeperThan(entry, MAX_ENTRY_DEPTH)) {
    return { entry, replaced: [] };
  }
  const replaced: string[] = [];
  const bounded: Record<string, unknown> = {};
  for (const key of Object.keys(entry)) {
    const value = entry[key];
    if (key === "message" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      bounded[key] = boundFields(value as Record<string, unknown>, MAX_ENTRY_DEPTH - 2, replaced, "message.");
    } else if (nestsDeeperThan(value, MAX_ENTRY_DEPTH - 1)) {
      replaced.push(key);
      setOwn(bounded, key, NESTING_TEXT.note);
    } else {
      setOwn(bounded, key, value);
    }
  }
  Object.defineProperty(bounded, NESTED_TOO_DEEP, { value: true, enumerable: true });
  return { entry: bounded, replaced };
}

function boundFields(
  object: Record<string, unknown>,
  limit: number,
  replaced: string[],
  prefix: string,
): Record<string, unknown> {
  const bounded: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (!nestsDeeperThan(value, limit)) {
      setOwn(bounded, key, value);
      continue;
    }
    replaced.push(prefix + key);
    setOwn(bounded, key, key === "content" ? [{ type: "text", text: NESTING_TEXT.note }] : NESTING_TEXT.note);
  }
  return bounded;
}

/** `object[key] = value`, also for a `__proto__` key (an own key from JSON.parse, not the prototype). */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Whether `entry` is one whose deep fields were replaced (see `boundEntryDepth`). */
export function isNestedTooDeep(entry: object): boolean {
  return Object.hasOwn(entry, NESTED_TOO_DEEP);
}
