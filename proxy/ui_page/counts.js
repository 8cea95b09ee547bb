// Counts per severity, rule and endpoint for the current filter; clicking one filters by it (and
// clicking the one in force takes it off).

import { el, clear } from "./dom.js";

const GROUPS = [
  ["severities", "severity", "Severity"],
  ["rules", "rule", "Rules"],
  ["endpoints", "endpoint", "Endpoints"],
];

export function showCounts(nav, document, filter, { toggle }) {
  clear(nav);
  if (document.total === null) { // still being counted: no number until it is the right one
    nav.append(el("h2", {}, "Matching ", el("span", { id: "matching", class: "counting", text: "counting…" })));
    return;
  }
  nav.append(el("h2", {}, "Matching ", el("span", { id: "matching", text: document.total }), " "));
  for (const [key, field, title] of GROUPS) {
    const entries = Object.entries(document[key] || {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const list = el("ul", { class: `counts ${key}`, "data-field": field });
    for (const [name, count] of entries) {
      const active = filter[field] === name;
      const button = el("button", {
        type: "button", class: active ? "active" : "", "data-value": name, title: `${field} = ${name}`,
        "aria-pressed": active ? "true" : "false", onclick: () => toggle(field, name),
      }, el("span", { class: "name", text: name }), el("span", { class: "count", text: count }));
      list.append(el("li", {}, button));
    }
    if (entries.length === 0) list.append(el("li", { class: "empty", text: "none" }));
    nav.append(el("h3", { text: title }), list);
  }
}

export function fillChoices(datalist, names) {
  const known = new Set([...datalist.options].map((option) => option.value));
  for (const name of names) if (!known.has(name)) datalist.append(el("option", { value: name }));
}
