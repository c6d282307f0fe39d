/** The session runtime: one per window, owning its session and everything bound to it. */

export * from "./errors.ts";
export * from "./extension.ts";
export * from "./extensions/follower.ts";
export * from "./extensions/open-marks.ts";
export * from "./extensions/recent-sessions.ts";
export * from "./extensions/window-title.ts";
export * from "./open-session.ts";
export * from "./services.ts";
export * from "./session-files.ts";
export * from "./session-runtime.ts";
export * from "./file-session.ts";
