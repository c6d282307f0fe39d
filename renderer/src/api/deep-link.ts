/**
 * Deep links: `?session=<sessionId>&leaf=<entry id>` opens that session with
 * that entry selected and revealed. Other query parameters of the page (the
 * serve token, say) are never copied into a link.
 */

export interface DeepLink {
  sessionId: string;
  leafId: string | null;
}

export function parseDeepLink(search: string): DeepLink | null {
  const params = new URLSearchParams(search);
  const sessionId = params.get("session");
  if (!sessionId) return null;
  const leafId = params.get("leaf");
  return { sessionId, leafId: leafId ? leafId : null };
}

/** A link to `leafId` in `sessionId`, on the page at `base` (its query and hash are dropped). */
export function buildDeepLink(base: string, sessionId: string, leafId: string | null): string {
  const url = new URL(base);
  url.search = "";
  url.hash = "";
  url.searchParams.set("session", sessionId);
  if (leafId !== null) url.searchParams.set("leaf", leafId);
  return url.toString();
}
