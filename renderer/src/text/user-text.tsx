/**
 * Text from a session (a name, a label, a preview) as the window shows it:
 * isolated from what surrounds it (`<bdi>`: right-to-left text cannot reorder
 * the label or number beside it), and with every bidirectional control shown
 * as a marked `RLO`-style tag instead of applied (shared/text/bidi.ts).
 */

import { memo } from "react";
import { bidiSegments, hasBidiControls } from "../../../shared/text/bidi.ts";

export const UserText = memo(function UserText({ text, className }: { text: string; className?: string }) {
  if (!hasBidiControls(text)) return <bdi className={className}>{text}</bdi>;
  return (
    <bdi className={className}>
      {bidiSegments(text).map((segment, i) =>
        segment.kind === "text" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the segments of one string, in order; they never move.
          <span key={i}>{segment.text}</span>
        ) : (
          <abbr
            // biome-ignore lint/suspicious/noArrayIndexKey: as above.
            key={i}
            className="bidi-control"
            title={`${segment.codePoint} ${segment.name}: a direction control in the text, shown and not applied`}
          >
            {segment.short}
          </abbr>
        ),
      )}
    </bdi>
  );
});
