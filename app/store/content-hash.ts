/**
 * The hash that names a session file's bytes for what Arbor saves of them
 * (saved parses and views) and checks those saves for damage: SHA-256, which
 * CPUs with SHA extensions compute at well over 1 GB/s (SHA-1 there is a
 * third as fast). An open of a 40 MB session hashes it whole.
 */

import { createHash, type Hash } from "node:crypto";

export const DIGEST_HEX_LENGTH = 64;

export function contentHash(): Hash {
  return createHash("sha256");
}
