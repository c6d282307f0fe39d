/** Small hand-made sessions for tests that need a particular shape (long chains, given texts). */

export interface HandEntry {
  id: string;
  parentId?: string | null;
  [field: string]: unknown;
}

let clock = Date.UTC(2026, 5, 1);

export function sessionText(entries: HandEntry[], header: Record<string, unknown> = {}): string {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "019a0000-0000-7000-8000-000000000001",
      timestamp: new Date(clock).toISOString(),
      cwd: "/home/dev/hand-made",
      ...header,
    }),
  ];
  let previous: string | null = null;
  for (const entry of entries) {
    clock += 1000;
    const parentId = entry.parentId === undefined ? previous : entry.parentId;
    lines.push(
      JSON.stringify({ type: "message", timestamp: new Date(clock).toISOString(), ...entry, parentId }),
    );
    previous = entry.id;
  }
  return `${lines.join("\n")}\n`;
}

export function user(id: string, text: string, parentId?: string | null): HandEntry {
  return {
    id,
    ...(parentId !== undefined ? { parentId } : {}),
    message: { role: "user", content: text, timestamp: clock },
  };
}

export function assistant(id: string, text: string, parentId?: string | null): HandEntry {
  return {
    id,
    ...(parentId !== undefined ? { parentId } : {}),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "anthropic",
      model: "claude-test",
      stopReason: "stop",
      timestamp: clock,
    },
  };
}

/** A user/assistant conversation of `turns` pairs in one line: ids u0, a0, u1, a1, ... */
export function conversation(turns: number): HandEntry[] {
  const entries: HandEntry[] = [];
  for (let i = 0; i < turns; i++) {
    entries.push(user(`u${i}`, `Question number ${i}`), assistant(`a${i}`, `Answer number ${i}`));
  }
  return entries;
}
