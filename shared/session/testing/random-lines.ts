/**
 * Random entry lines for the skim's tests (`skim.test.ts`, `line-scanner.test.ts`):
 * valid lines of Pi's shape with random members, strings of awkward
 * characters and random formatting, and random damage to them.
 */

import { Rng } from "./generate-session.ts";

/** A seeded source of numbers in [0, 1) (mulberry32, as `Rng` of generate-session.ts). */
export function mulberry32(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

const PIECES = [
  "a",
  "Z",
  "0",
  " ",
  "\n",
  "\t",
  '"',
  "\\",
  "/",
  "é",
  "✓",
  "🌳",
  "\u2028",
  "\u0001",
  "\u001f",
  "{",
  "}",
];

function randomString(random: () => number, max: number): string {
  let text = "";
  const length = Math.floor(random() * max);
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth > 3 || pick < 0.3) return randomString(random, 12);
  if (pick < 0.4) return Math.floor(random() * 2000) - 1000;
  if (pick < 0.45) return random() * 1e6;
  if (pick < 0.5) return [true, false, null][Math.floor(random() * 3)];
  if (pick < 0.7)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return randomObject(random, depth + 1);
}

function randomObject(random: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const keys = ["type", "id", "parentId", "timestamp", "message", "role", "content", randomString(random, 6)];
  const count = Math.floor(random() * 6);
  for (let i = 0; i < count; i++)
    object[keys[Math.floor(random() * keys.length)]!] = randomValue(random, depth);
  return object;
}

export function randomEntryLine(random: () => number): string {
  const entry: Record<string, unknown> = {
    type: "message",
    id: Math.floor(random() * 0xffffffff)
      .toString(16)
      .padStart(8, "0"),
    parentId: random() < 0.2 ? null : "abcd1234",
    timestamp: new Date(1_700_000_000_000 + Math.floor(random() * 1e9)).toISOString(),
    message: {
      role: random() < 0.5 ? "user" : "assistant",
      content: randomValue(random, 1),
      extra: randomObject(random, 2),
    },
    ...randomObject(random, 1),
  };
  let line = JSON.stringify(entry);
  // Formatting must not matter: add white space between tokens sometimes.
  if (random() < 0.3) line = JSON.stringify(entry, null, random() < 0.5 ? 1 : "\t").replace(/\n/g, " ");
  return line;
}

/** `bytes` with one to three random edits: bytes removed, junk bytes inserted, or the line cut short. */
export function damage(random: () => number, bytes: Uint8Array): Uint8Array {
  const copy = Array.from(bytes);
  const edits = 1 + Math.floor(random() * 3);
  const junk = [
    0x00, 0x09, 0x0d, 0x20, 0x22, 0x2c, 0x3a, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x65, 0x2d, 0x80, 0xc3,
    0xff, 0xed, 0xa0, 0xf4,
  ];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (copy.length + 1));
    const kind = random();
    if (kind < 0.4) copy.splice(at, 1);
    else if (kind < 0.8) copy.splice(at, 0, junk[Math.floor(random() * junk.length)]!);
    else copy.length = at; // truncation, as a half-written line
  }
  return Uint8Array.from(copy);
}
