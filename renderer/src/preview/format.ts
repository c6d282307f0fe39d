/** Small formatting shared by the preview and its exports (shared/export: the CLI exports too). */

export { base64Bytes, formatBytes } from "../../../shared/export/bytes.ts";
