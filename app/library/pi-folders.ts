/**
 * Pi's naming of session folders: one folder per project under the session
 * root, `--<cwd without its leading separator, with / \ and : as ->--`
 * (Pi's `getDefaultSessionDir`). Lossy (a "-" in a folder name may have been
 * a separator), so a folder is matched against known cwds, never decoded.
 */

/** The folder name Pi gives the sessions of `cwd`. */
export function piSessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}
