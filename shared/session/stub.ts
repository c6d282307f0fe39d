/**
 * Stubs for the structure-first reader: the small fields of an entry that the
 * tree index needs (the entry's short primitive fields, and its message's role),
 * kept while the parsed body is dropped, to be read again from the file when
 * someone looks at it. Parsing stays `JSON.parse`, so a line is accepted or
 * dropped exactly as Pi accepts or drops it; only what is retained changes.
 */

import { KNOWN_ROLES } from "./types.ts";

/** Strings longer than this are left out of a stub unless the index needs their key. */
const STUB_STRING_LIMIT = 512;

/** Keys whose string values the index needs, whatever their length. */
const ALWAYS_KEPT: ReadonlySet<string> = new Set([
  "type",
  "id",
  "parentId",
  "timestamp",
  "targetId",
  "label",
  "name",
  "role",
]);

/**
 * A skimmed stub's object. Made by a constructor, its fields live in the object
 * itself (V8 sizes such objects from the first few it makes): added to a `{}`,
 * the fifth and later would take a second allocation (40 B an entry).
 */
export class SkimStub {}

/** Stands for an object or array value the stub does not hold. */
export const DEFERRED_VALUE: Readonly<Record<string, never>> = Object.freeze({});

export function stubOf(value: Record<string, unknown>): Record<string, unknown> {
  const stub: Record<string, unknown> = {};
  for (const key in value) {
    if (key === "__proto__") continue; // an own key from JSON.parse; assigning it would set the prototype
    const field = value[key];
    if (key === "message" && typeof field === "object" && field !== null && !Array.isArray(field)) {
      stub.message = messageStub((field as { role?: unknown }).role);
    } else {
      copyPrimitive(stub, key, field);
    }
  }
  return stub;
}

/**
 * A message's stub: `{ role }` only, one frozen object per role shared by
 * every stub (100k messages would otherwise keep 100k of them).
 */
export function messageStub(role: unknown): Readonly<Record<string, unknown>> {
  if (typeof role !== "string") {
    return Object.freeze(
      role === undefined ? {} : { role: typeof role === "object" && role !== null ? DEFERRED_VALUE : role },
    );
  }
  let stub = MESSAGE_STUBS.get(role);
  if (stub === undefined) {
    stub = Object.freeze({ role });
    // Only Pi's own roles are kept: a file's invented ones (any number, any length) must not stay pinned.
    if (KNOWN_ROLES.has(role)) MESSAGE_STUBS.set(role, stub);
  }
  return stub;
}

const MESSAGE_STUBS = new Map<string, Readonly<Record<string, unknown>>>();

/** Whether a stub keeps a string field of `length` (the skim counts bytes, a parsed value characters). */
export function keepsString(key: string, length: number): boolean {
  return length <= STUB_STRING_LIMIT || ALWAYS_KEPT.has(key);
}

function copyPrimitive(stub: Record<string, unknown>, key: string, field: unknown): void {
  if (typeof field === "string") {
    if (keepsString(key, field.length)) stub[key] = field;
  } else if (typeof field === "object" && field !== null) {
    stub[key] = DEFERRED_VALUE;
  } else {
    stub[key] = field;
  }
}
