// Two files of an offline view compared (docs/ui.md): two cassettes as `cassette diff` pairs them, or a
// cassette and a `verify` report of it (its recorded answers against the live ones). "Only what changed"
// by default; the toggle asks for the volatile tier too. Every value is set as text.

import * as api from "./api.js";
import { el, clear } from "./dom.js";
import { tierCounts, everyTier, value } from "./diff.js";

const COMPARABLE = new Set(["cassette", "verify"]);

// The files that can be compared: the view's cassettes and verify reports.
export async function comparable() {
  const { sources } = await api.sources();
  return (sources || []).filter((source) => COMPARABLE.has(source.kind));
}

export function showCompare(pane, sources, { close, say }) {
  clear(pane);
  pane.hidden = false;
  const pick = (name, chosen) => el("select", { name, class: `compare-${name}` },
    ...sources.map((source, place) => {
      const option = el("option", { value: source.name, text: `${source.name} (${source.kind})` });
      option.selected = place === chosen;
      return option;
    }));
  const a = pick("a", 0);
  const b = pick("b", Math.min(1, sources.length - 1));
  const output = el("div", { class: "compare-output", "aria-live": "polite" });
  const form = el("form", { class: "compare" }, el("label", {}, "a ", a), el("label", {}, "b ", b),
    el("button", { type: "submit", class: "act-compare", text: "compare" }));
  const run = async (all) => {
    try {
      const doc = await api.cassetteDiff(a.value, b.value, all);
      clear(output).append(compareView(doc, a.value, b.value, all, run));
      say("");
    } catch (error) {
      clear(output);
      say(error.message, true);
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(false);
  });
  pane.append(el("button", { type: "button", class: "close", text: "close", onclick: close }),
    el("h2", { text: "Compare files" }),
    el("p", { class: "note", text: "Two cassettes, or a cassette and a verify report of it (verify --format json -o FILE)." }),
    form, output);
  pane.scrollTop = 0;
}

function compareView(doc, a, b, all, run) {
  const counts = doc.counts || {};
  const added = doc.added || [];
  const removed = doc.removed || [];
  const drifted = ["breaking", "additive", "data"].some((tier) => counts[tier]) || added.length || removed.length;
  const view = el("section", { class: "diff compared" }, el("h3", {}, el("code", { text: a }), " → ",
    el("code", { text: b })));
  const verify = doc.verify;
  if (verify) {
    const liveSide = verify.live === "a" ? "a" : "b";
    view.append(el("p", { class: "note", text: `${liveSide}: the live answers verify got; ` +
      `${liveSide === "a" ? "b" : "a"}: the recorded ones` }));
    for (const note of verify.notes || []) view.append(el("p", { class: "note verify-note", text: note }));
  }
  view.append(tierCounts(counts), everyTier(all, (checked) => run(checked)),
    el("p", { class: "verdict", text: drifted ? "they differ in meaning" : "they mean the same" }));
  view.append(changes(doc.changes || []));
  if (removed.length) view.append(only(`only in a: ${removed.length}`, "removed", removed, "index_a"));
  if (added.length) view.append(only(`only in b: ${added.length}`, "added", added, "index_b"));
  const skipped = verify?.skipped || [];
  if (skipped.length) {
    view.append(el("h4", { text: `not sent by verify: ${skipped.length}` }), el("ul", { class: "skipped" },
      ...skipped.map((item) => el("li", {}, `#${item.index} `, el("code", { text: item.request }), " ",
        el("span", { text: item.reason })))));
  }
  return view;
}

function changes(items) {
  const section = el("div", { class: "changes response" }, el("h4", { text: `changes: ${items.length}` }));
  if (items.length === 0) {
    section.append(el("p", { class: "empty", text: "no difference" }));
    return section;
  }
  const table = el("table", { class: "changes-table" },
    el("tr", {}, ...["exchange", "tier", "where", "a", "b"].map((h) => el("th", { text: h }))));
  let pair = "";
  for (const item of items) {
    const here = `#${item.index_a} → #${item.index_b} ${item.request ?? ""}`;
    if (here !== pair) {
      pair = here;
      table.append(el("tr", { class: "pair" }, el("td", { colspan: "5" }, el("code", { text: here }))));
    }
    table.append(el("tr", { class: `change ${item.tier}` },
      el("td", { text: `#${item.index_a}` }), el("td", { class: "tier", text: item.tier }),
      el("td", {}, el("code", { text: item.where })), value(item, "a"), value(item, "b")));
  }
  section.append(table);
  return section;
}

function only(title, kind, items, key) {
  return el("div", { class: `only ${kind}` }, el("h4", { text: title }), el("ul", {},
    ...items.map((item) => el("li", {}, `#${item[key]} `, el("code", { text: item.request })))));
}
