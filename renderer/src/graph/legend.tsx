/** The graph's legend: a toolbar button with a popover of what stripes, fills, marks and edges mean. */

import { useMemo, useState } from "react";
import { type LegendItem, markItems, shadeItems, stripeItems } from "./legend-entries.ts";

function Items({ title, items }: { title: string; items: LegendItem[] }) {
  return (
    <section>
      <h3>{title}</h3>
      <ul>
        {items.map((item) => (
          <li key={`${item.className}|${item.name}`}>
            <span className={item.className} aria-hidden="true" />
            <span className="legend-name">{item.name}</span>
            <span className="muted">{item.meaning}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function LegendButton() {
  // Its samples are drawn only while it is open: closed, the page holds no sample nodes beside the graph's.
  const [open, setOpen] = useState(false);
  const sections = useMemo(
    () => [
      { title: "Stripe: the kind of entry", items: stripeItems() },
      { title: "Fill: the selected entry's context", items: shadeItems() },
      { title: "Marks and edges", items: markItems() },
    ],
    [],
  );
  return (
    <details
      className="legend"
      onToggle={(event) => setOpen(event.currentTarget.open)}
      onKeyDown={(event) => {
        const menu = event.currentTarget;
        if (event.key !== "Escape" || !menu.open) return;
        event.preventDefault();
        menu.open = false;
        menu.querySelector("summary")?.focus();
      }}
    >
      <summary title="What the colours, stripes and marks mean">Legend</summary>
      {open ? (
        <div className="legend-popover">
          {sections.map((section) => (
            <Items key={section.title} title={section.title} items={section.items} />
          ))}
        </div>
      ) : null}
    </details>
  );
}
