/**
 * The theme: chosen in the window (light, dark, or the system's), kept by the
 * main process in Arbor's preferences so every window and the next launch
 * share it, and followed when it is chosen elsewhere (another window, the
 * desktop app's View menu). The operating system's own preference is
 * watched for "system".
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { ThemePreference } from "../../../../shared/ipc/contract.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf } from "./kit.ts";

export interface AppearancePart {
  readonly actions: Pick<Controller, "setTheme">;
  /** Follows the main process's theme and the system's colour scheme. */
  subscribe(): void;
  /** Reads the chosen theme once at start. */
  load(): Promise<void>;
}

export function createAppearance(kit: ControllerKit): AppearancePart {
  const { client } = kit;
  const { appearance } = kit.stores;
  /** Each choice's own: an answer to an older choice does not undo a newer one. */
  let choiceSerial = 0;

  async function setTheme(theme: ThemePreference) {
    const serial = ++choiceSerial;
    const before = appearance.getState().theme;
    appearance.setState({ theme });
    try {
      const chosen = await client.request("app.setTheme", { theme });
      if (serial === choiceSerial && !kit.isDisposed()) appearance.setState({ theme: chosen.theme });
    } catch (error) {
      if (serial !== choiceSerial || kit.isDisposed()) return;
      appearance.setState({ theme: before });
      kit.notify("error", screenErrors.themeNotChanged(messageOf(error)));
    }
  }

  return {
    actions: { setTheme },
    subscribe() {
      kit.own(client.on("app.themeChanged", ({ theme }) => appearance.setState({ theme })));
      if (typeof matchMedia !== "function") return;
      const scheme = matchMedia("(prefers-color-scheme: dark)");
      const follow = () => appearance.setState({ systemDark: scheme.matches });
      follow();
      scheme.addEventListener("change", follow);
      kit.own(() => scheme.removeEventListener("change", follow));
    },
    async load() {
      try {
        const { theme } = await client.request("app.info", {});
        if (!kit.isDisposed() && choiceSerial === 0) appearance.setState({ theme });
      } catch {
        // Without an answer the window follows the system, as before any choice.
      }
    },
  };
}
