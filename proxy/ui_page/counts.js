// Counts per severity, rule and endpoint for the current filter; clicking one filters by it (and
// clicking the one in force takes it off).

import { el, clear } from "./dom.js";

const GROUPS = [
  ["severities", "severity", "Severity"],
  ["rules", "rule", "Rules"],
  ["endpoints", "endpoint", "Endpoints"],
];

// Entries shown in each group, the largest counts first: traffic can name endpoints without end (a
// path per slug), and a column of every one grew the document with the traffic.
export const MOST_SHOWN = 50;
const MOST_CHOICES = 1000; // names offered as the filter boxes' completions

export function showCounts(nav, document, filter, { toggle }) {
  clear(nav);
  if (document.total === null) { // still being counted: no number until it is the right one
    nav.append(el("h2", {}, "Matching ", el("span", { id: "matching", class: "counting", text: "counting…" })));
    return;
  }
  nav.append(el("h2", {}, "Matching ", el("span", { id: "matching", text: document.total }), " "));
  for (const [key, field, title] of GROUPS) {
    const entries = Object.entries(document[key] || {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const shown = entries.slice(0, MOST_SHOWN);
    const inForce = entries.find(([name]) => filter[field] === name);
    if (inForce && !shown.includes(inForce)) shown.push(inForce); // the one in force stays in view
    const list = el("ul", { class: `counts ${key}`, "data-field": field });
    for (const [name, count] of shown) {
      const active = filter[field] === name;
      const button = el("button", {
        type: "button", class: active ? "active" : "", "data-value": name, title: `${field} = ${name}`,
        "aria-pressed": active ? "true" : "false", onclick: () => toggle(field, name),
      }, el("span", { class: "name", text: name }), el("span", { class: "count", text: count }));
      list.append(el("li", {}, button));
    }
    if (entries.length === 0) list.append(el("li", { class: "empty", text: "none" }));
    if (entries.length > shown.length) {
      const more = entries.length - shown.length;
      list.append(el("li", { class: "more", text: `and ${more.toLocaleString("en-US")} more: type one in the ${field} box` }));
    }
    nav.append(el("h3", { text: title }), list);
  }
}

export function fillChoices(datalist, names) {
  const known = new Set([...datalist.options].map((option) => option.value));
  for (const name of names) {
    if (known.size >= MOST_CHOICES) return;
    if (!known.has(name)) {
      known.add(name);
      datalist.append(el("option", { value: name }));
    }
  }
}
