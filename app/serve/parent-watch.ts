/**
 * Stops a process whose parent went away. `npm run serve` and `npm start`
 * run Arbor under `npm` and a shell: a SIGTERM to npm ends npm and the shell
 * but not their child, which would keep the port and the session files open
 * with nobody to stop it. The child notices that it was re-parented instead.
 */

/** Calls `onParentGone` once when this process's parent changes; returns a function that stops watching. */
export function watchParent(onParentGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onParentGone();
  }, intervalMs);
  // The watch alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
