/**
 * Validation of every request's parameters, run by both transports before a
 * handler sees them. Strict objects: unknown keys are refused, so nothing a
 * renderer adds (a path, say) slips through.
 */

import { z } from "zod";
import { requestErrors } from "../error-texts.ts";
import {
  ArborError,
  COMPARE_DETAIL_MAX_TURNS,
  CONTEXT_PAGE_MAX_MESSAGES,
  type RequestName,
  type RequestParams,
  SESSION_SEARCH_MAX_LIMIT,
  THEME_PREFERENCES,
} from "./contract.ts";
import { EXPORT_FORMATS, MAX_IMPORT_BYTES } from "./session-management.ts";
import { MAX_ENTRY_DEPTH } from "../session/nesting.ts";
import { TEXT_PAGE_MAX_CHARS } from "./text-pages.ts";

const ENTRY_ID = z.string().min(1).max(200);
const HANDLE = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "not an id issued by Arbor");
const NONE = z.strictObject({});
/** The user confirmed writing into a session a Pi may be writing. */
const CONFIRM = z.boolean().optional();

export const requestSchemas: { [N in RequestName]: z.ZodType<RequestParams<N>> } = {
  "app.info": NONE,
  "app.setTheme": z.strictObject({ theme: z.enum(THEME_PREFERENCES) }),
  "library.list": NONE,
  "library.rescan": NONE,
  "library.search": z.strictObject({
    query: z.string().max(1000),
    limit: z.number().int().min(1).max(1000).optional(),
  }) as z.ZodType<RequestParams<"library.search">>,
  "session.open": z.strictObject({ sessionId: HANDLE }),
  "session.current": NONE,
  "session.context": z.strictObject({
    leafId: ENTRY_ID.nullable(),
    llm: z.boolean().optional(),
  }) as z.ZodType<RequestParams<"session.context">>,
  "session.contextPage": z.strictObject({
    leafId: ENTRY_ID.nullable(),
    llm: z.boolean(),
    from: z.number().int().min(0).max(100_000_000),
    count: z.number().int().min(1).max(CONTEXT_PAGE_MAX_MESSAGES),
  }),
  "session.entry": z.strictObject({ entryId: ENTRY_ID }),
  "session.text": z.strictObject({
    of: z.union([
      z.strictObject({ entryId: ENTRY_ID }),
      z.strictObject({ leafId: ENTRY_ID.nullable(), llm: z.boolean() }),
    ]),
    path: z.array(z.union([z.string().max(200), z.number().int().min(0)])).max(MAX_ENTRY_DEPTH + 8),
    offset: z.number().int().min(0),
    length: z.number().int().min(1).max(TEXT_PAGE_MAX_CHARS),
  }) as z.ZodType<RequestParams<"session.text">>,
  "session.search": z.strictObject({
    query: z.string().max(1000),
    limit: z.number().int().min(1).max(SESSION_SEARCH_MAX_LIMIT).optional(),
  }) as z.ZodType<RequestParams<"session.search">>,
  "session.new": z.strictObject({ projectId: HANDLE }),
  // Managing sessions (issue 19)
  "session.setLabel": z.strictObject({
    targetId: ENTRY_ID,
    label: z.string().max(200).nullable(),
    confirmLive: CONFIRM,
  }) as z.ZodType<RequestParams<"session.setLabel">>,
  "session.rename": z.strictObject({ name: z.string().max(500), confirmLive: CONFIRM }) as z.ZodType<
    RequestParams<"session.rename">
  >,
  "session.continueFrom": z.strictObject({
    entryId: ENTRY_ID,
    summary: z.string().max(100_000).optional(),
    confirmLive: CONFIRM,
  }) as z.ZodType<RequestParams<"session.continueFrom">>,
  "session.archive": z.strictObject({ entryId: ENTRY_ID, confirmLive: CONFIRM }) as z.ZodType<
    RequestParams<"session.archive">
  >,
  "session.unarchive": z.strictObject({ entryId: ENTRY_ID, confirmLive: CONFIRM }) as z.ZodType<
    RequestParams<"session.unarchive">
  >,
  "session.addNote": z.strictObject({
    text: z.string().min(1).max(100_000),
    at: ENTRY_ID.optional(),
    confirmLive: CONFIRM,
  }) as z.ZodType<RequestParams<"session.addNote">>,
  "session.editContext": z.strictObject({
    targetId: ENTRY_ID,
    replacement: z.strictObject({ content: z.string().max(1_000_000) }).nullable(),
    at: ENTRY_ID.optional(),
    confirmLive: CONFIRM,
  }) as z.ZodType<RequestParams<"session.editContext">>,
  "session.undo": z.strictObject({ entryId: ENTRY_ID.optional(), confirmLive: CONFIRM }) as z.ZodType<
    RequestParams<"session.undo">
  >,
  "session.fork": z.strictObject({ entryId: ENTRY_ID, position: z.enum(["before", "at"]) }),
  "session.clone": z.strictObject({ leafId: ENTRY_ID.optional() }) as z.ZodType<
    RequestParams<"session.clone">
  >,
  "session.trash": z.strictObject({ sessionId: HANDLE, confirmLive: CONFIRM }) as z.ZodType<
    RequestParams<"session.trash">
  >,
  "session.restore": z.strictObject({ trashId: HANDLE }),
  "session.export": z.strictObject({
    sessionId: HANDLE.optional(),
    leafId: ENTRY_ID.nullable().optional(),
    format: z.enum(EXPORT_FORMATS),
  }) as z.ZodType<RequestParams<"session.export">>,
  "session.openInPi": z.strictObject({ sessionId: HANDLE.optional() }) as z.ZodType<
    RequestParams<"session.openInPi">
  >,
  "session.import": z.strictObject({
    projectId: HANDLE,
    // Measured in UTF-8 bytes by the handler, which says so in a sentence; this only bounds the work.
    content: z
      .string()
      .max(MAX_IMPORT_BYTES * 4)
      .optional(),
    fileName: z.string().max(500).optional(),
  }) as z.ZodType<RequestParams<"session.import">>,
  "session.branches": NONE,
  "session.branchFacts": z.union([
    z.strictObject({ leafId: ENTRY_ID }),
    z.strictObject({ segmentId: ENTRY_ID }),
  ]),
  "session.compare": z.strictObject({
    left: z.strictObject({ leafId: ENTRY_ID }),
    right: z.strictObject({ leafId: ENTRY_ID, sessionId: HANDLE.optional() }),
    detail: z
      .strictObject({
        fromTurn: z.number().int().min(0).max(10_000_000),
        turns: z.number().int().min(0).max(COMPARE_DETAIL_MAX_TURNS),
      })
      .optional(),
  }) as z.ZodType<RequestParams<"session.compare">>,
};

/** Checks a request's name and parameters; throws `ArborError("invalid-request")` with what is wrong. */
export function validateRequest<N extends RequestName>(name: string, params: unknown): RequestParams<N> {
  if (!Object.hasOwn(requestSchemas, name)) {
    throw new ArborError("invalid-request", requestErrors.unknown(name));
  }
  const schema = requestSchemas[name as N];
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` (${issue.path.join(".")})` : "";
    throw new ArborError(
      "invalid-request",
      requestErrors.invalidParameters(name, where, issue?.message ?? "invalid"),
    );
  }
  return result.data;
}
