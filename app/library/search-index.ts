/**
 * The full-text index: one MiniSearch document per session file, holding the
 * distinct terms of its searchable texts (see `forEachSearchText`). It
 * answers "which sessions contain all these words (as prefixes)", ranked by
 * BM25; the entries and snippets are then found by reading those files
 * (`search-file.ts`). Per-entry postings for a gigabyte of sessions would
 * cost far more memory than the few thousand terms per session kept here.
 */

import MiniSearch, { type Options } from "minisearch";

interface SessionDocument {
  id: number;
  terms: string;
}

const splitTerms = (text: string): string[] => text.split(" ");
const sameTerm = (term: string): string => term;

const OPTIONS: Options<SessionDocument> = {
  idField: "id",
  fields: ["terms"],
  storeFields: [],
  extractField: (document: SessionDocument, field: string) => (field === "id" ? document.id : document.terms),
  tokenize: splitTerms,
  processTerm: sameTerm,
  searchOptions: {
    prefix: true,
    fuzzy: false,
    combineWith: "AND",
    tokenize: splitTerms,
    processTerm: sameTerm,
  },
};

export interface SessionMatch {
  docId: number;
  score: number;
}

export class SessionSearchIndex {
  private constructor(private readonly mini: MiniSearch<SessionDocument>) {}

  static create(): SessionSearchIndex {
    return new SessionSearchIndex(new MiniSearch<SessionDocument>(OPTIONS));
  }

  /** Loads an index saved with `toJSON`; `null` if the text is not one. */
  static load(json: string): SessionSearchIndex | null {
    try {
      return new SessionSearchIndex(MiniSearch.loadJSON<SessionDocument>(json, OPTIONS));
    } catch {
      return null;
    }
  }

  get documentCount(): number {
    return this.mini.documentCount;
  }

  has(docId: number): boolean {
    return this.mini.has(docId);
  }

  /** Adds or replaces the document of `docId`. */
  set(docId: number, terms: readonly string[]): void {
    if (this.mini.has(docId)) this.mini.discard(docId);
    if (terms.length > 0) this.mini.add({ id: docId, terms: terms.join(" ") });
  }

  remove(docId: number): void {
    if (this.mini.has(docId)) this.mini.discard(docId);
  }

  /** Sessions holding every term (as a prefix of one of theirs), best first. */
  match(terms: readonly string[]): SessionMatch[] {
    if (terms.length === 0) return [];
    return this.mini
      .search(terms.join(" "))
      .map((result) => ({ docId: result.id as number, score: result.score }));
  }

  toJSON(): string {
    return JSON.stringify(this.mini);
  }
}
