/**
 * The wire form of the contract's results and events: what a request's
 * result and an event's payload are as they cross either transport. It is
 * applied at the transport boundary only: the handlers return `SessionView`s,
 * `app/ipc/bind.ts` encodes what leaves the main process (an answer, an
 * event), and each client decodes what arrives, so the renderer sees
 * `SessionView`s again, equal to what was sent. Node lists travel columnar
 * (wire-nodes.ts) and arrive as columns (node-table.ts).
 *
 * A view whose nodes are known as their wire form's JSON text (a saved view,
 * encoded-nodes.ts) is sent as that text: spliced into the WebSocket frame by
 * `stringifyWire` (wire-json.ts), or handed to Electron as a string.
 */

import type {
  ArborEvents,
  EventName,
  RequestName,
  RequestResult,
  SessionDelta,
  SessionView,
} from "./contract.ts";
import { decodeNodes, NodeTable } from "./node-table.ts";
import { WireJson } from "./wire-json.ts";
import { encodeNodes, type WireNodes } from "./wire-nodes.ts";

/**
 * A view's nodes on the wire: columns, or (a saved view, whose wire form was
 * read from disk and never parsed) that form's JSON text, as a string or, on
 * the sending side, spliced into the frame as it is (`WireJson`).
 */
export type WireSessionView = Omit<SessionView, "nodes"> & { nodes: WireNodes | WireJson | string };
export type WireSessionDelta = Omit<SessionDelta, "added" | "changed"> & {
  added: WireNodes;
  changed: WireNodes;
};

/** A view with more fields (a fork's `selectedText`) on the wire: those travel as they are. */
export type WireViewWith<V extends SessionView> = Omit<V, "nodes"> & { nodes: WireSessionView["nodes"] };

/** What a request's result is on the wire. */
export type WireResult<N extends RequestName> =
  RequestResult<N> extends SessionView
    ? WireViewWith<RequestResult<N>>
    : RequestResult<N> extends SessionView | null
      ? WireSessionView | null
      : RequestResult<N>;

/** What an event's payload is on the wire. */
export type WireEvent<E extends EventName> = E extends "session.appended"
  ? { sessionId: string; delta: WireSessionDelta }
  : E extends "session.reloaded"
    ? Omit<ArborEvents[E], "view"> & { view: WireSessionView | null }
    : ArborEvents[E];

/**
 * How node lists already in their wire form as JSON text (a saved view's)
 * travel: `spliced` into the frame's text by `stringifyWire` (the WebSocket),
 * or as a `string` the client parses (Electron's structured clone copies a
 * string at once, where a tree of 100k objects takes long).
 */
export type EncodedNodesForm = "spliced" | "string";

export function encodeSessionView(view: SessionView, form: EncodedNodesForm = "string"): WireSessionView {
  const { nodes, ...fields } = view;
  const json = nodes.wireJson;
  if (json !== null) return { ...fields, nodes: form === "spliced" ? new WireJson(json) : json };
  return { ...fields, nodes: encodeNodes(nodes.toArray()) };
}

/** The view as sent; its nodes stay columns, each node's object made when something asks for it. */
export function decodeSessionView(wire: WireSessionView): SessionView {
  const { nodes, ...fields } = wire;
  return { ...fields, nodes: new NodeTable(nodes instanceof WireJson ? nodes.json : nodes) };
}

export function encodeSessionDelta(delta: SessionDelta): WireSessionDelta {
  return { ...delta, added: encodeNodes(delta.added), changed: encodeNodes(delta.changed) };
}

export function decodeSessionDelta(wire: WireSessionDelta): SessionDelta {
  return { ...wire, added: decodeNodes(wire.added), changed: decodeNodes(wire.changed) };
}

interface Codec<Plain, Wire> {
  encode(value: Plain, form: EncodedNodesForm): Wire;
  decode(value: Wire): Plain;
}

const plain: Codec<never, never> = { encode: (value) => value, decode: (value) => value };
const view: Codec<SessionView, WireSessionView> = { encode: encodeSessionView, decode: decodeSessionView };
/** A view with more fields: `encodeSessionView` and `decodeSessionView` pass every other field through. */
function viewWith<V extends SessionView>(): Codec<V, WireViewWith<V>> {
  return {
    encode: (value, form) => encodeSessionView(value, form) as WireViewWith<V>,
    decode: (value) => decodeSessionView(value as WireSessionView) as V,
  };
}
const viewOrNull: Codec<SessionView | null, WireSessionView | null> = {
  encode: (value, form) => (value === null ? null : encodeSessionView(value, form)),
  decode: (value) => (value === null ? null : decodeSessionView(value)),
};

/** Every request's result codec: a request added to the contract must say how its result travels. */
const RESULT_CODECS: { [N in RequestName]: Codec<RequestResult<N>, WireResult<N>> } = {
  "app.info": plain,
  "app.setTheme": plain,
  "library.list": plain,
  "library.rescan": plain,
  "library.search": plain,
  "session.open": view,
  "session.current": viewOrNull,
  "session.context": plain,
  "session.contextPage": plain,
  "session.entry": plain,
  "session.text": plain,
  "session.search": plain,
  "session.new": view,
  // Managing sessions (issue 19)
  "session.setLabel": plain,
  "session.rename": plain,
  "session.continueFrom": plain,
  "session.archive": plain,
  "session.unarchive": plain,
  "session.addNote": plain,
  "session.editContext": plain,
  "session.undo": plain,
  "session.fork": viewWith(),
  "session.clone": view,
  "session.trash": plain,
  "session.restore": plain,
  "session.export": plain,
  "session.openInPi": plain,
  "session.import": plain,
  "session.branches": plain,
  "session.branchFacts": plain,
  "session.compare": plain,
};

/** Every event's payload codec. */
const EVENT_CODECS: { [E in EventName]: Codec<ArborEvents[E], WireEvent<E>> } = {
  "app.themeChanged": plain,
  "app.menuCommand": plain,
  "library.progress": plain,
  "library.changed": plain,
  "library.sessionChanged": plain,
  "session.appended": {
    encode: (payload) => ({ sessionId: payload.sessionId, delta: encodeSessionDelta(payload.delta) }),
    decode: (payload) => ({ sessionId: payload.sessionId, delta: decodeSessionDelta(payload.delta) }),
  },
  "session.reloaded": {
    encode: (payload, form) => ({ ...payload, view: viewOrNull.encode(payload.view, form) }),
    decode: (payload) => ({ ...payload, view: viewOrNull.decode(payload.view) }),
  },
  "session.switched": plain,
  "session.closed": plain,
};

/** `form`: how nodes already in wire form travel on this transport (see `EncodedNodesForm`). */
export function encodeResult<N extends RequestName>(
  name: N,
  result: RequestResult<N>,
  form: EncodedNodesForm = "string",
): WireResult<N> {
  return RESULT_CODECS[name].encode(result, form);
}

export function decodeResult<N extends RequestName>(name: N, result: WireResult<N>): RequestResult<N> {
  return RESULT_CODECS[name].decode(result);
}

export function encodeEvent<E extends EventName>(
  name: E,
  payload: ArborEvents[E],
  form: EncodedNodesForm = "string",
): WireEvent<E> {
  return EVENT_CODECS[name].encode(payload, form);
}

export function decodeEvent<E extends EventName>(name: E, payload: WireEvent<E>): ArborEvents[E] {
  return EVENT_CODECS[name].decode(payload);
}
