/** How each entry on the selected path stands in its context: the graph's shading. Pure. */

import type { ContextView, TreeNodeView } from "../../../shared/ipc/contract.ts";
import type { IndexedNodes } from "../../../shared/graph/index.ts";
import { growthSince } from "../../../shared/ipc/session-nodes-grown.ts";
import type { SessionNodes } from "../../../shared/ipc/session-nodes.ts";
import type { ContextShade, ShadeLookup } from "./stores.ts";

/** No context: nothing is shaded. */
export const NO_SHADES: ShadeLookup = { get: () => undefined };

const OFF_PATH = 0;
const ON_PATH = 1;
/** On the path, before the compaction in effect: summarised away, unless kept. */
const BEFORE_COMPACTION = 2;

/** On the path and giving the context a message (`ContextView.pathRuns`); a flag over the others. */
const GIVES = 4;

/**
 * The shade of each entry on the context's path, walked along the session
 * view's parent positions: a leaf 100k entries deep costs one typed array,
 * not a list of its path's ids sent along or a map of them. Which entries
 * give the context a message comes as run lengths along the same walk
 * (`pathRuns`), so a context sent in pages shades as one sent whole.
 *
 * With `basis`, `tree` indexes `basis.nodes`; shades before (`basis.previous`,
 * made the same way over the list these nodes grew from) are grown when the
 * new leaf hangs below their leaf through new entries only, under the same
 * compaction, and the runs beyond those entries are the runs before: only the
 * new entries are walked. Following a live session asks for the leaf's context
 * several times a second, and its path is the whole session.
 */
export function contextShades(
  context: ContextView,
  tree: IndexedNodes<TreeNodeView>,
  basis?: { nodes: SessionNodes; previous?: ShadeLookup },
): ShadeLookup {
  const { indexOf } = tree;
  const leaf = context.leafId === null ? undefined : indexOf.get(context.leafId);
  if (leaf === undefined) return NO_SHADES;
  const compactionId = context.compaction?.entryId ?? null;
  const edited = new Map<string, ContextShade>(
    context.edits.map((edit) => [edit.targetId, edit.drop ? "dropped" : "edited"]),
  );
  const previous = basis?.previous instanceof PathShades ? basis.previous : undefined;
  const grown =
    previous && basis ? grownPlace(previous, context, tree, basis.nodes, leaf, compactionId) : null;
  const place = grown ?? walkedPlace(context, tree, leaf);
  return new PathShades(
    basis?.nodes,
    indexOf,
    place,
    leaf,
    context.pathRuns,
    compactionId,
    edited,
    grown !== null,
  );
}

/** Every entry's place, walked from the leaf up. */
function walkedPlace(context: ContextView, tree: IndexedNodes<TreeNodeView>, leaf: number): Uint8Array {
  const { indexOf, parent } = tree;
  const place = new Uint8Array(tree.count);
  const runs = runReader(context.pathRuns);
  for (let i = leaf; i !== -1 && place[i] === OFF_PATH; i = parent[i]!) place[i] = runs.next();
  const compaction = context.compaction === null ? undefined : indexOf.get(context.compaction.entryId);
  if (compaction !== undefined && place[compaction] !== OFF_PATH) {
    for (let i = parent[compaction]!; i !== -1 && (place[i]! & ON_PATH) !== 0; i = parent[i]!) {
      place[i] = (place[i]! & GIVES) | BEFORE_COMPACTION;
    }
  }
  return place;
}

/**
 * The places before with the new entries between the new leaf and the old
 * one walked, when that is all that changed (see `contextShades`); else null.
 */
function grownPlace(
  previous: PathShades,
  context: ContextView,
  tree: IndexedNodes<TreeNodeView>,
  nodes: SessionNodes,
  leaf: number,
  compactionId: string | null,
): Uint8Array | null {
  if (previous.nodes === undefined || previous.compactionId !== compactionId) return null;
  // Positions are kept only in a list grown from the one before.
  if (previous.nodes !== nodes && growthSince(nodes, previous.nodes) === null) return null;
  const oldCount = previous.place.length;
  const added: number[] = [];
  for (let i = leaf; i !== previous.leaf; i = tree.parent[i]!) {
    if (i < oldCount) return null;
    added.push(i);
  }
  const place = new Uint8Array(tree.count);
  place.set(previous.place);
  const runs = runReader(context.pathRuns);
  for (const i of added) place[i] = runs.next();
  // What is left of the runs must be the runs before, as they start: the old path then keeps its shades.
  return runs.leftAre(previous.runs) ? place : null;
}

/** The path's runs read from the leaf up: each entry's place in turn. */
function runReader(runs: readonly number[]) {
  let run = 0;
  let left = runs[0] ?? 0;
  return {
    next(): number {
      while (left === 0 && run < runs.length - 1) left = runs[++run]!;
      const place = ON_PATH | (run % 2 === 0 && left > 0 ? GIVES : 0);
      if (left > 0) left--;
      return place;
    },
    /** Whether what is left to read is `before` read from its start (no runs reads as one of none). */
    leftAre(before: readonly number[]): boolean {
      const rest = Math.max(1, runs.length) - run;
      if (run % 2 !== 0 || left !== (before[0] ?? 0) || rest !== Math.max(1, before.length)) return false;
      for (let k = 1; k < before.length; k++) if (runs[run + k] !== before[k]) return false;
      return true;
    },
  };
}

/** The shades of a context's path, by each entry's place in the view's list. */
class PathShades implements ShadeLookup {
  constructor(
    /** The list the places are positions of, when known (shades of a later list of it can grow from these). */
    readonly nodes: SessionNodes | undefined,
    private readonly indexOf: ReadonlyMap<string, number>,
    readonly place: Uint8Array,
    readonly leaf: number,
    readonly runs: readonly number[],
    readonly compactionId: string | null,
    private readonly edited: ReadonlyMap<string, ContextShade>,
    /** Whether these grew from the shades before (for tests and the curious). */
    readonly grown: boolean,
  ) {}

  get(entryId: string): ContextShade | undefined {
    const i = this.indexOf.get(entryId);
    const place = this.place;
    if (i === undefined || place[i] === OFF_PATH) return undefined;
    const edit = this.edited.get(entryId);
    if (edit !== undefined) return edit;
    if ((place[i]! & GIVES) !== 0) return "context";
    return (place[i]! & BEFORE_COMPACTION) !== 0 ? "summarised" : "path";
  }
}
