/**
 * Saves a file the main process made (an export) as the browser's download:
 * a Blob behind a temporary `<a download>`. The same works in the desktop
 * app, where Electron asks where to save it.
 */

import type { ExportResult } from "../../../shared/ipc/contract.ts";

/** How long the Blob's URL stays valid: the download has started long before. */
const REVOKE_AFTER_MS = 60_000;

export function downloadFile(file: ExportResult): void {
  const url = URL.createObjectURL(new Blob([file.content], { type: file.mimeType }));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
