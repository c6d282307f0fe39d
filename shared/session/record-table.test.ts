/**
 * The parse records by column: rows pushed by the parser read back exactly
 * as the records they were, the table grows past any start size, and a
 * truncation, slice or snapshot never changes rows another table holds.
 */

import { describe, expect, it } from "vitest";
import { parseSessionBytes } from "./parse.ts";
import { type EntryRecord, RecordTable } from "./record-table.ts";
import { generateSession } from "./testing/generate-session.ts";

/** Every row of a real parse, as objects. */
function recordsOf(text: string, mode: "full" | "structure" | "structure-with-facts"): EntryRecord[] {
  return [...parseSessionBytes(text, { mode }).records];
}

function rowsOf(table: RecordTable): EntryRecord[] {
  return [...table];
}

describe("RecordTable", () => {
  const text = generateSession({ seed: 7 }).text;
  const lines = text.split("\n");

  it("reads back each row of a parse by column, in line order, the same as at(row)", () => {
    for (const mode of ["full", "structure", "structure-with-facts"] as const) {
      const table = parseSessionBytes(text, { mode }).records;
      expect(table.length).toBeGreaterThan(20);
      let previousLine = 0;
      for (let row = 0; row < table.length; row++) {
        const record = table.at(row);
        expect(record.line).toBeGreaterThan(previousLine);
        previousLine = record.line;
        expect(table.line(row)).toBe(record.line);
        expect(table.offset(row)).toBe(record.offset);
        expect(table.byteLength(row)).toBe(record.byteLength);
        expect(table.piIndex(row)).toBe(record.piIndex);
        expect(table.deferred(row)).toBe(record.deferred);
        expect(table.facts(row)).toBe(record.facts);
        expect(table.value(row)).toBe(record.value);
        // The columns say where the line is: its bytes are the line of the text.
        const bytes = new TextEncoder()
          .encode(text)
          .subarray(record.offset, record.offset + record.byteLength);
        expect(new TextDecoder().decode(bytes)).toBe(lines[record.line - 1]);
        expect(record.value.id).toBe(JSON.parse(lines[record.line - 1]!).id);
      }
      expect(table.deferred(0)).toBe(mode !== "full");
      expect(table.someDeferred()).toBe(mode !== "full");
      expect(table.facts(0) !== undefined).toBe(mode === "structure-with-facts");
    }
  });

  it("grows from its smallest size past tens of thousands of rows (several chunks), keeping every row", () => {
    const records = recordsOf(text, "structure-with-facts");
    for (const capacity of [1, 100, 50_000]) {
      const table = new RecordTable(capacity);
      const rounds = Math.ceil(50_000 / records.length);
      for (let round = 0; round < rounds; round++) for (const record of records) table.pushRecord(record);
      expect(table.length).toBe(records.length * rounds);
      for (let row = 0; row < table.length; row += 997) {
        expect(table.at(row)).toEqual(records[row % records.length]);
      }
      expect(table.at(table.length - 1)).toEqual(records[records.length - 1]);
      expect(() => table.at(table.length)).toThrow(RangeError);
      expect(() => table.line(-1)).toThrow(RangeError);
    }
  });

  it("cuts, slices and snapshots across chunks", () => {
    const records = recordsOf(text, "structure");
    const all: EntryRecord[] = [];
    while (all.length < 40_000) all.push(...records);
    const table = RecordTable.of(all);
    const snapshot = table.snapshot();
    expect(rowsOf(table.slice(16_000, 17_000))).toEqual(all.slice(16_000, 17_000));
    // Cut at a chunk's end, pushed onto (a new chunk), cut inside the first chunk, changed: the snapshot stays.
    table.truncate(16_384);
    table.pushRecord(all[0]!);
    expect(table.at(16_384)).toEqual(all[0]);
    table.truncate(16_383);
    table.setValue(5, { type: "custom", id: "changed" });
    expect(table.length).toBe(16_383);
    expect(table.value(5)).toEqual({ type: "custom", id: "changed" });
    expect(rowsOf(table.slice(6))).toEqual(all.slice(6, 16_383));
    expect(rowsOf(snapshot)).toEqual(all);
    table.truncate(0);
    expect(table.length).toBe(0);
    expect(table.someDeferred()).toBe(false);
    expect(snapshot.someDeferred()).toBe(true);
  });

  it("keeps numbers past 32 bits: offsets of files over 4 GB, and widens a count column that needs it", () => {
    const table = new RecordTable();
    const value = { type: "message", id: "a" };
    table.push(value, 3, 5 * 2 ** 30 + 7, 120, 2, true, undefined);
    table.push(value, 2 ** 32 + 5, 2 ** 53 - 1, 2 ** 33, 2 ** 32 + 1, false, undefined);
    expect(table.at(0)).toEqual({
      value,
      line: 3,
      offset: 5 * 2 ** 30 + 7,
      byteLength: 120,
      piIndex: 2,
      deferred: true,
      facts: undefined,
    });
    expect([table.line(1), table.offset(1), table.byteLength(1), table.piIndex(1)]).toEqual([
      2 ** 32 + 5,
      2 ** 53 - 1,
      2 ** 33,
      2 ** 32 + 1,
    ]);
    expect(table.line(0)).toBe(3);
    expect(table.deferred(1)).toBe(false);
  });

  it("keeps any numbers, in any order: lines far apart, long lines, offsets going back", () => {
    const table = new RecordTable();
    const value = { type: "message", id: "a" };
    const rows: [number, number, number, number][] = [
      [2, 0, 10, 1],
      [300, 11, 70_000, 2],
      [301, 5, 3, 1],
      [100_000, 2 ** 40, 2 ** 20, 400],
      [1, 0.5, 0, 0],
      // Not whole, in columns still narrow: each widens to doubles.
      [2, 1, 2.5, 1.25],
    ];
    for (const [line, offset, byteLength, piIndex] of rows) {
      table.push(value, line, offset, byteLength, piIndex, false, undefined);
    }
    for (const [row, [line, offset, byteLength, piIndex]] of rows.entries()) {
      expect([table.line(row), table.offset(row), table.byteLength(row), table.piIndex(row)]).toEqual([
        line,
        offset,
        byteLength,
        piIndex,
      ]);
    }
  });

  it("truncates to drop the last rows, and pushes after the cut", () => {
    const records = recordsOf(text, "structure");
    const table = RecordTable.of(records);
    table.truncate(records.length - 2);
    expect(table.length).toBe(records.length - 2);
    expect(() => table.value(records.length - 2)).toThrow(RangeError);
    table.pushRecord(records[0]!);
    expect(table.at(records.length - 2)).toEqual(records[0]);
    expect(rowsOf(table)).toEqual([...records.slice(0, -2), records[0]]);
    expect(() => table.truncate(table.length + 1)).toThrow(RangeError);
  });

  it("slices and appends rows into tables of their own", () => {
    const records = recordsOf(text, "structure-with-facts");
    const table = RecordTable.of(records);
    const head = table.slice(0, 5);
    const tail = table.slice(5);
    expect(rowsOf(head)).toEqual(records.slice(0, 5));
    expect(rowsOf(tail)).toEqual(records.slice(5));
    head.append(tail);
    expect(rowsOf(head)).toEqual(records);
    head.setValue(0, { type: "custom", id: "changed" });
    expect(table.value(0)).toBe(records[0]!.value);
    expect(rowsOf(table.slice(7, 3))).toEqual([]);
  });

  it("gives a snapshot that keeps its rows while the table goes on: pushed onto, changed, cut", () => {
    const records = recordsOf(text, "structure-with-facts");
    const table = RecordTable.of(records.slice(0, 10));
    const snapshot = table.snapshot();
    // Pushes go on after the snapshot's rows, through a growth of the columns too.
    for (const record of records.slice(10)) table.pushRecord(record);
    expect(rowsOf(snapshot)).toEqual(records.slice(0, 10));
    // A shared row changed, or the table cut below the snapshot's rows and pushed onto.
    const changed = { type: "custom", id: "changed" };
    table.setValue(3, changed);
    table.truncate(5);
    table.pushRecord(records[20]!);
    expect(rowsOf(snapshot)).toEqual(records.slice(0, 10));
    expect(table.value(3)).toBe(changed);
    expect(table.at(5)).toEqual(records[20]);
    // The snapshot is a table like any other: writing it leaves the original alone.
    const again = table.snapshot();
    again.pushRecord(records[21]!);
    again.setValue(0, changed);
    expect(table.length).toBe(6);
    expect(table.value(0)).toBe(records[0]!.value);
    expect(again.at(6)).toEqual(records[21]);
  });
});
