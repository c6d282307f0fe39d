/** The short notices (copied, saved, failed) that come and go by themselves, and the reload notice's dismissal. */

import type { StoreApi } from "zustand/vanilla";
import type { LiveState } from "../stores.ts";
import type { Controller } from "./api.ts";
import type { Lifetime } from "./kit.ts";

export interface NoticesPart {
  readonly actions: Pick<Controller, "notify" | "dismissReloadNotice">;
}

export function createNotices(live: StoreApi<LiveState>, lifetime: Pick<Lifetime, "later">): NoticesPart {
  /** Each notice's own: a newer one is not taken down by an older one's timer. */
  let noticeSerial = 0;

  function notify(kind: "info" | "error", text: string) {
    live.setState({ notice: { kind, text, serial: ++noticeSerial } });
    const serial = noticeSerial;
    lifetime.later(kind === "error" ? 8000 : 3000, () => {
      if (live.getState().notice?.serial === serial) live.setState({ notice: null });
    });
  }

  return {
    actions: {
      notify,
      dismissReloadNotice: () => live.setState({ reloadNotice: null }),
    },
  };
}
