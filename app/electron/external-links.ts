/**
 * Which links leave the app for the user's browser: plain web pages only.
 * Anything else a page might try to hand `shell.openExternal` (file:,
 * javascript:, custom schemes that start other programs, smb: shares,
 * credentials tucked into the URL) is refused.
 */

const MAX_URL_LENGTH = 2048;

/** The URL to open in the browser, normalised, or null when it must not leave the app. */
export function externalLinkTarget(url: string): string | null {
  if (url.length > MAX_URL_LENGTH) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  if (parsed.username !== "" || parsed.password !== "") return null;
  if (parsed.hostname === "") return null;
  return parsed.href;
}
