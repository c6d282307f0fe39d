/**
 * Validation of every request's parameters, run by both transports before a
 * handler sees them. Strict objects: unknown keys are refused, so nothing a
 * renderer adds (a path, say) slips through.
 */

import { z } from "zod";
import {
  ArborError,
  COMPARE_DETAIL_MAX_TURNS,
  type RequestName,
  type RequestParams,
  SESSION_SEARCH_MAX_LIMIT,
  THEME_PREFERENCES,
} from "./contract.ts";

const ENTRY_ID = z.string().min(1).max(200);
const HANDLE = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "not an id issued by Arbor");
const NONE = z.strictObject({});

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
  "session.entry": z.strictObject({ entryId: ENTRY_ID }),
  "session.search": z.strictObject({
    query: z.string().max(1000),
    limit: z.number().int().min(1).max(SESSION_SEARCH_MAX_LIMIT).optional(),
  }) as z.ZodType<RequestParams<"session.search">>,
  "session.setLabel": z.strictObject({
    targetId: ENTRY_ID,
    label: z.string().max(200).nullable(),
  }),
  "session.rename": z.strictObject({ name: z.string().max(500) }),
  "session.fork": z.strictObject({ entryId: ENTRY_ID, position: z.enum(["before", "at"]) }),
  "session.clone": NONE,
  "session.new": z.strictObject({ projectId: HANDLE }),
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
    throw new ArborError("invalid-request", `Unknown request "${name}".`);
  }
  const schema = requestSchemas[name as N];
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` (${issue.path.join(".")})` : "";
    throw new ArborError(
      "invalid-request",
      `Invalid parameters for "${name}"${where}: ${issue?.message ?? "invalid"}.`,
    );
  }
  return result.data;
}
