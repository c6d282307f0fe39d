/**
 * The segments of a session tree: maximal runs of entries between branch
 * points (an entry with more than one child ends its segment; each child
 * starts one, and so does each root), each with what it adds up to. Built in
 * one pass over the tree; kept up to date as entries are appended to the
 * index in place, in time proportional to what was appended: a new entry
 * extends the segment its parent ends, starts one under a branch point, or
 * splits a segment at a new branch point, which walks only the shorter of
 * the two halves (the longer one's sums are the whole's minus the shorter's).
 *
 * Which segment holds an entry is one lookup in a typed array by the entry's
 * line (no two nodes of an index share one): 4 bytes per line.
 */

import type { EntryReader } from "../session/entry-reader.ts";
import type { EntryFacts } from "../session/facts.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";
import { MARK_KINDS, type MarkKind, RunMarks, isOfKind } from "./run-facts.ts";
import { Tally } from "./tally.ts";

export class Segment {
  /** The segment's first entry; its id is the segment's id. */
  first: TreeNode;
  last: TreeNode;
  parent: Segment | null = null;
  /** In the order of the branch point's children (Pi's order). */
  children: Segment[] = [];
  readonly tally = new Tally();
  readonly marks = new RunMarks();

  constructor(
    first: TreeNode,
    /** Its position in the tree's list of segments. */
    readonly number: number,
  ) {
    this.first = first;
    this.last = first;
  }

  get id(): string {
    return this.first.id;
  }
}

export class SegmentTree {
  readonly roots: Segment[] = [];
  /** The `branch_summary` entries met, to find the segments their `fromId`s are on. */
  readonly branchSummaries: TreeNode[] = [];
  /** Every segment made, by its number. */
  private readonly segments: Segment[] = [];
  /** Each node's segment number plus one (0: none yet), by the node's line. */
  private slots = new Int32Array(0);
  /** `index.entries[0 .. added)` are in segments. */
  private added = 0;

  constructor(
    readonly index: SessionIndex,
    private readonly reader: EntryReader,
  ) {
    this.buildAll();
  }

  /** The segment holding an entry. */
  segmentOf(node: TreeNode): Segment | undefined {
    const slot = this.slots[node.line] ?? 0;
    return slot === 0 ? undefined : this.segments[slot - 1];
  }

  /**
   * Adds the entries appended to the index in place since the last call (an
   * index rebuilt by `extendSessionIndex` is a new object: build a new tree
   * for it). Returns whether there were any.
   */
  update(): boolean {
    const { entries, nodes } = this.index;
    if (this.added === entries.length) return false;
    this.growSlots();
    for (let i = this.added; i < entries.length; i++) {
      const node = nodes.get(entries[i]!.id);
      if (node && this.slots[node.line] === 0) this.attach(node);
    }
    this.added = entries.length;
    return true;
  }

  /** Segments in depth-first order, children in Pi's order. */
  preorder(): Segment[] {
    const order: Segment[] = [];
    const stack = [...this.roots].reverse();
    while (stack.length > 0) {
      const segment = stack.pop()!;
      order.push(segment);
      for (let i = segment.children.length - 1; i >= 0; i--) stack.push(segment.children[i]!);
    }
    return order;
  }

  /**
   * One pass in file order, where parents come before children: a node
   * starts a segment at a root or under a branch point, else it goes on its
   * parent's. Nodes are met without an id lookup each. A file whose order
   * does not allow that (a damaged one) is walked from its roots instead.
   */
  private buildAll(): void {
    this.growSlots();
    if (!this.buildInFileOrder()) {
      this.reset();
      this.buildFromRoots();
    }
    this.added = this.index.entries.length;
  }

  private buildInFileOrder(): boolean {
    let inOrder = true;
    // forEach, not a for-of: no iterator result per node before the loop is optimized.
    this.index.nodes.forEach((node) => {
      if (!inOrder) return;
      const parent = node.parent;
      if (parent === null) {
        this.take(this.open(node, null), node);
        return;
      }
      const above = this.segmentOf(parent);
      if (above === undefined) {
        inOrder = false;
        return;
      }
      if (parent.children.length === 1) {
        this.take(above, node);
        above.last = node;
      } else {
        this.take(this.open(node, above), node);
      }
    });
    if (!inOrder) return false;
    // Segments were opened in file order: put roots and children in Pi's order.
    const rootOrder = new Map(this.index.roots.map((id, i) => [id, i]));
    this.roots.sort((a, b) => rootOrder.get(a.id)! - rootOrder.get(b.id)!);
    for (const segment of this.segments) {
      if (segment.children.length < 2) continue;
      const order = segment.last.children;
      segment.children.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    }
    return true;
  }

  private reset(): void {
    this.roots.length = 0;
    this.segments.length = 0;
    this.branchSummaries.length = 0;
    this.slots.fill(0);
  }

  private buildFromRoots(): void {
    const { nodes, roots } = this.index;
    const stack: { start: TreeNode; parent: Segment | null }[] = [];
    for (let i = roots.length - 1; i >= 0; i--) stack.push({ start: nodes.get(roots[i]!)!, parent: null });
    while (stack.length > 0) {
      const { start, parent } = stack.pop()!;
      const segment = this.open(start, parent);
      let node = start;
      for (;;) {
        this.take(segment, node);
        if (node.children.length !== 1) break;
        node = nodes.get(node.children[0]!)!;
      }
      segment.last = node;
      for (let k = node.children.length - 1; k >= 0; k--) {
        stack.push({ start: nodes.get(node.children[k]!)!, parent: segment });
      }
    }
  }

  /** A slot for every line. */
  private growSlots(): void {
    const needed = this.index.lineCount + 1;
    if (this.slots.length >= needed) return;
    const slots = new Int32Array(Math.max(needed, this.slots.length * 2));
    slots.set(this.slots);
    this.slots = slots;
  }

  private make(first: TreeNode): Segment {
    const segment = new Segment(first, this.segments.length);
    this.segments.push(segment);
    return segment;
  }

  private open(first: TreeNode, parent: Segment | null): Segment {
    const segment = this.make(first);
    segment.parent = parent;
    (parent ? parent.children : this.roots).push(segment);
    return segment;
  }

  /** Adds a node at the end of `segment` (a node met for the first time). */
  private take(segment: Segment, node: TreeNode): void {
    const facts = this.assign(segment, node);
    if (facts.kind === "branch_summary" && facts.role === undefined) this.branchSummaries.push(node);
  }

  private assign(segment: Segment, node: TreeNode): EntryFacts {
    this.slots[node.line] = segment.number + 1;
    const facts = this.reader.factsOfNode(node);
    segment.tally.add(facts);
    segment.marks.note(node, facts);
    return facts;
  }

  /** Puts an appended node (its parent already placed) where a fresh build would. */
  private attach(node: TreeNode): void {
    const parent = node.parent;
    if (parent === null) {
      this.take(this.open(node, null), node);
      return;
    }
    const segment = this.segmentOf(parent)!;
    if (parent === segment.last && segment.children.length === 0) {
      // The parent was a leaf: the segment goes on.
      this.take(segment, node);
      segment.last = node;
      return;
    }
    // The parent is or becomes a branch point: the node starts a segment under it.
    const upper = parent === segment.last ? segment : this.split(segment, parent);
    this.take(this.open(node, upper), node);
    const order = parent.children;
    upper.children.sort((a, b) => order.indexOf(a.first.id) - order.indexOf(b.first.id));
  }

  /** The next node of `segment` after `node` (its child in the segment), or null at its end. */
  private nextIn(segment: Segment, node: TreeNode): TreeNode | null {
    if (node === segment.last) return null;
    for (const id of node.children) {
      const child = this.index.nodes.get(id);
      if (child && this.slots[child.line] === segment.number + 1) return child;
    }
    return null;
  }

  /**
   * Ends `segment` at `at` (a node inside it, not its last) and puts the rest
   * in a segment of its own under it. Returns the segment that now ends at
   * `at`. Only the shorter half is walked; it becomes the new object, so only
   * its nodes change segment.
   */
  private split(segment: Segment, at: TreeNode): Segment {
    const below = this.nextIn(segment, at)!;
    let up = at;
    let down = below;
    while (up !== segment.first && down !== segment.last) {
      up = up.parent!;
      down = this.nextIn(segment, down)!;
    }
    const whole = segment.marks.nodes.slice();
    if (up === segment.first) {
      const upper = this.splitOffUpper(segment, at, below);
      this.settleMarks(segment, upper, whole, "upper", at, below);
      return upper;
    }
    const lower = this.splitOffLower(segment, at, below);
    this.settleMarks(segment, lower, whole, "lower", at, below);
    return segment;
  }

  private splitOffUpper(segment: Segment, at: TreeNode, below: TreeNode): Segment {
    const upper = this.make(segment.first);
    const siblings = segment.parent ? segment.parent.children : this.roots;
    siblings[siblings.indexOf(segment)] = upper;
    upper.parent = segment.parent;
    upper.children.push(segment);
    segment.parent = upper;
    for (let node: TreeNode | null = segment.first; node !== null; ) {
      const next: TreeNode | null = node === at ? null : this.nextIn(segment, node);
      this.assign(upper, node);
      node = next;
    }
    upper.last = at;
    segment.first = below;
    segment.tally.addTally(upper.tally, -1);
    return upper;
  }

  private splitOffLower(segment: Segment, at: TreeNode, below: TreeNode): Segment {
    const lower = this.make(below);
    lower.parent = segment;
    lower.children = segment.children;
    for (const child of lower.children) child.parent = lower;
    segment.children = [lower];
    for (let node: TreeNode | null = below; node !== null; ) {
      const next = this.nextIn(segment, node);
      this.assign(lower, node);
      node = next;
    }
    lower.last = segment.last;
    segment.last = at;
    segment.tally.addTally(lower.tally, -1);
    return lower;
  }

  /**
   * The first and last prompt, answer and work entry of the half that was
   * not walked (`rest`, the old object), from the whole's and the walked
   * half's. Only when the walked half holds the rest's would-be end is the
   * rest searched, from the split point outwards: usually a turn's length.
   */
  private settleMarks(
    rest: Segment,
    walked: Segment,
    whole: readonly (TreeNode | null)[],
    walkedHalf: "upper" | "lower",
    at: TreeNode,
    below: TreeNode,
  ): void {
    for (const kind of MARK_KINDS) {
      const wholeFirst = whole[2 * kind]!;
      const wholeLast = whole[2 * kind + 1]!;
      const walkedFirst = walked.marks.first(kind);
      const walkedLast = walked.marks.last(kind);
      if (walkedHalf === "upper") {
        const last = walkedLast === wholeLast ? null : wholeLast;
        const first =
          walkedFirst === null ? wholeFirst : last === null ? null : this.findDown(rest, below, kind);
        rest.marks.set(kind, first, last);
      } else {
        const first = walkedFirst === wholeFirst ? null : wholeFirst;
        const last = walkedLast === null ? wholeLast : first === null ? null : this.findUp(rest, at, kind);
        rest.marks.set(kind, first, last);
      }
    }
  }

  private findDown(segment: Segment, from: TreeNode, kind: MarkKind): TreeNode | null {
    for (let node: TreeNode | null = from; node !== null; node = this.nextIn(segment, node)) {
      if (isOfKind(kind, this.reader.factsOfNode(node))) return node;
    }
    return null;
  }

  private findUp(segment: Segment, from: TreeNode, kind: MarkKind): TreeNode | null {
    for (
      let node: TreeNode | null = from;
      node !== null;
      node = node === segment.first ? null : node.parent
    ) {
      if (isOfKind(kind, this.reader.factsOfNode(node))) return node;
    }
    return null;
  }
}
