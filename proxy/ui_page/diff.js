// A diff of two exchanges as the API's diff document says it (docs/ui.md): what differs between the
// requests, and the answers' differences in the tiers `cassette diff` uses. "Only what changed" by
// default; the toggle asks the server for the volatile tier too. Every value is set as text.

import { el, clear } from "./dom.js";

const TIERS = ["breaking", "additive", "data", "volatile"];

export function diffView(doc, { title, all, onToggle, openExchange, ids }) {
  const view = el("section", { class: "diff" }, el("h3", { text: title }));
  view.append(side("a", doc.a, ids?.[0], openExchange), side("b", doc.b, ids?.[1], openExchange));
  view.append(tierCounts(doc.counts));
  if (onToggle) view.append(everyTier(all, onToggle));
  view.append(el("p", { class: "verdict", text: doc.drifted ? "the answers differ in meaning" :
    "the answers mean the same" }));
  view.append(changes("Response", doc.changes || [], true), changes("Request", doc.request || [], false));
  return view;
}

// The differences counted by tier, every tier named.
export function tierCounts(counts = {}) {
  return el("p", { class: "tiers" }, ...TIERS.map((tier) =>
    el("span", { class: `tier ${tier}`, text: `${tier} ${counts[tier] ?? 0}` })));
}

// "Only what changed" unless ticked: the volatile tier asked for too.
export function everyTier(all, onToggle) {
  const box = el("input", { type: "checkbox", class: "all-tiers" });
  box.checked = Boolean(all);
  box.addEventListener("change", () => onToggle(box.checked));
  return el("label", { class: "toggle" }, box, " show every tier (volatile too)");
}

function side(name, about, id, openExchange) {
  const line = el("p", { class: `diff-side side-${name}` }, el("b", { text: `${name}: ` }));
  if (id !== undefined && id !== null && openExchange) {
    line.append(el("a", { href: "#", class: "open-side", text: `#${id}`, onclick: (event) => {
      event.preventDefault();
      openExchange(id);
    } }), " ");
  }
  line.append(el("code", { text: about?.request ?? "" }), ` → ${about?.status ?? "no answer"}`);
  return line;
}

function changes(name, items, tiered) {
  const section = el("div", { class: `changes ${name.toLowerCase()}` }, el("h4", { text: `${name}: ${items.length}` }));
  if (items.length === 0) {
    section.append(el("p", { class: "empty", text: "no difference" }));
    return section;
  }
  const table = el("table", { class: "changes-table" },
    el("tr", {}, ...(tiered ? ["tier"] : []).concat(["where", "a", "b"]).map((h) => el("th", { text: h }))));
  for (const item of items) {
    const row = el("tr", { class: tiered ? `change ${item.tier}` : "change" });
    if (tiered) row.append(el("td", { class: "tier", text: item.tier }));
    row.append(el("td", {}, el("code", { text: item.where })), value(item, "a"), value(item, "b"));
    table.append(row);
  }
  section.append(table);
  return section;
}

// One side's value in a cell: `missing` when that side lacks the place, else its JSON as text.
export function value(item, key) {
  if (!(key in item)) return el("td", { class: "absent", text: "missing" });
  const shown = typeof item[key] === "string" ? item[key] : JSON.stringify(item[key]);
  return el("td", {}, el("code", { text: shown }));
}

export function showDiffIn(node, doc, options) {
  clear(node).append(diffView(doc, options));
}
