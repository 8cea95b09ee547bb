// The exchange pane: request and response heads and bodies, and each finding with its citation and
// where/expected/found. Everything recorded is set as text (textContent), never as markup.

import { el, clear, bytes } from "./dom.js";

export function showExchange(pane, doc, { openExchange, close, hrefFor, actions }) {
  clear(pane);
  pane.hidden = false;
  const closer = el("button", { type: "button", class: "close", text: "close", onclick: close });
  const title = el("h2", {}, el("span", { class: "method", text: doc.method }), " ",
    el("span", { class: "path", text: doc.path }));
  const more = actions ? (finding) => actions.findingButtons(doc, finding) : () => null;
  pane.append(closer, title, ...(actions ? actions.bar(doc) : []), facts(doc),
    findings(doc.findings || [], openExchange, hrefFor, more),
    part("Request", null, doc.request), part("Response", statusLine(doc.response), doc.response));
  pane.scrollTop = 0;
}

export function showMissing(pane, id, close) {
  clear(pane);
  pane.hidden = false;
  pane.append(el("button", { type: "button", class: "close", text: "close", onclick: close }),
    el("p", { class: "empty", text: `No exchange #${id}.` }));
}

function facts(doc) {
  const list = el("dl", { class: "facts" });
  const add = (name, value) => {
    if (value === null || value === undefined || value === "") return;
    list.append(el("dt", { text: name }), el("dd", { text: value }));
  };
  add("exchange", `#${doc.id}`);
  if (doc.cassette) add("recording", doc.index === null ? doc.cassette : `${doc.cassette}#${doc.index}`);
  add("status", doc.status);
  add("endpoint", doc.endpoint);
  add("time", doc.time);
  add("duration", doc.duration_ms === null || doc.duration_ms === undefined ? null : `${doc.duration_ms} ms`);
  add("size", bytes(doc.size));
  if (doc.answered) {
    add("answered by", doc.answered.by);
    add("from recording", doc.answered.recording);
    add("why", doc.answered.detail);
  }
  return list;
}

function findings(items, openExchange, hrefFor, more) {
  const section = el("section", { class: "findings" }, el("h3", { text: `Findings (${items.length})` }));
  if (items.length === 0) section.append(el("p", { class: "empty", text: "None: every rule in force holds." }));
  for (const finding of items) {
    const item = el("article", { class: `finding ${severityClass(finding.severity)}` },
      el("h4", {}, el("span", { class: `badge ${severityClass(finding.severity)}`, text: finding.severity }), " ",
        el("code", { class: "rule", text: finding.rule })),
      el("p", { class: "message", text: finding.message }), more(finding));
    const details = el("dl");
    for (const name of ["where", "expected", "found"]) {
      const value = finding[name];
      if (value === null || value === undefined || value === "") continue;
      details.append(el("dt", { text: name }), el("dd", {}, el("code", { text: text(value) })));
    }
    if (finding.section) details.append(el("dt", { text: "documented in" }), el("dd", { text: finding.section }));
    if (finding.citation) details.append(el("dt", { text: "read it" }), el("dd", { text: finding.citation }));
    if (finding.compared_with !== null && finding.compared_with !== undefined) {
      const other = Number(finding.compared_with);
      const link = el("a", { href: hrefFor(other), class: "compared", text: `exchange #${other}` });
      link.addEventListener("click", (event) => {
        event.preventDefault();
        openExchange(other);
      });
      details.append(el("dt", { text: "compared with" }), el("dd", {}, link));
    }
    item.append(details);
    section.append(item);
  }
  return section;
}

// The status and the reason phrase as recorded ("200 OK"; a reason may be anything: set as text).
function statusLine(response) {
  if (!response) return null;
  return response.reason ? `${response.status} ${response.reason}` : response.status;
}

function part(name, status, side) {
  const section = el("section", { class: "part" }, el("h3", { text: status ? `${name}: ${status}` : name }));
  if (!side) {
    section.append(el("p", { class: "empty", text: "not recorded" }));
    return section;
  }
  const headers = el("table", { class: "headers" });
  for (const [header, value] of side.headers || []) {
    headers.append(el("tr", {}, el("th", { text: header }), el("td", { text: value })));
  }
  section.append(headers, body(side.body));
  return section;
}

export function body(b) {
  if (!b || b.kind === "empty") return el("p", { class: "body empty", text: "no body" });
  const charset = b.charset ? ` in ${b.charset}` : "";
  const note = el("p", { class: "body-note", text: `${b.kind}${charset}, ${bytes(b.size)}` });
  if (b.kind === "binary") {
    if (b.truncated) note.append(`; the first ${bytes(hexLength(b.hex))} shown`);
    return el("div", { class: "body" }, note, el("pre", { class: "hex", text: hexDump(b.hex || "") }));
  }
  if (b.truncated) note.append("; truncated");
  return el("div", { class: "body" }, note, el("pre", { class: b.kind, text: b.text ?? "" }));
}

function hexLength(hex) {
  return Math.floor((hex || "").replace(/\s/g, "").length / 2);
}

// 16 bytes a line: offset, bytes in hex, and the printable ones as text.
export function hexDump(hex) {
  const digits = hex.replace(/\s/g, "");
  const lines = [];
  for (let start = 0; start < digits.length; start += 32) {
    const chunk = digits.slice(start, start + 32);
    const pairs = chunk.match(/../g) || [];
    const printable = pairs.map((pair) => {
      const code = Number.parseInt(pair, 16);
      return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : ".";
    }).join("");
    lines.push(`${(start / 2).toString(16).padStart(8, "0")}  ${pairs.join(" ").padEnd(47)}  ${printable}`);
  }
  return lines.join("\n");
}

function text(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function severityClass(severity) {
  return ["error", "warning", "info"].includes(severity) ? severity : "other";
}
