/** The graph toolbar's "archived" box: archived branches shown dimmed, or hidden as by default (Shift+A). */

import { useController, useSession } from "../state/hooks.tsx";

export function ArchivedToggle() {
  const controller = useController();
  const showArchived = useSession((s) => s.showArchived);
  return (
    <label className="checkbox" title="Show archived branches, dimmed (Shift+A)">
      <input
        type="checkbox"
        aria-label="Show archived"
        checked={showArchived}
        onChange={(event) => controller.setShowArchived(event.target.checked)}
      />
      archived
    </label>
  );
}
