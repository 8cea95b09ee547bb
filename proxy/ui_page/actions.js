// The exchange's actions (docs/ui.md): copy as curl, diff with a marked exchange, with the one a finding
// compares with or with the previous exchange of the same endpoint, accept a finding into the baseline,
// delete or edit (offline), resend (record, spy). Each calls one API route; what comes back is shown as
// text in the pane's output area, above the exchange.

import * as api from "./api.js";
import { el, clear } from "./dom.js";
import { diffView } from "./diff.js";
import { previousOfEndpoint } from "./neighbours.js";


export class Actions {
  constructor({ mode, say, openExchange, changed }) {
    this.mode = mode; // what the server is: offline edits, record/spy resends
    this.say = say;
    this.openExchange = openExchange;
    this.changed = changed; // (id) after an edit: reload the window and the counts, reopen
    this.marked = null;
    this.output = null;
  }

  // The bar under the exchange's title, and the area its answers go to.
  bar(doc) {
    this.output = el("div", { class: "action-output", "aria-live": "polite" });
    const button = (label, cls, run) => el("button", { type: "button", class: cls, text: label,
      onclick: () => this.run(run) });
    const bar = el("div", { class: "actions" },
      button("copy as curl", "act-curl", () => this.curl(doc.id)),
      button(this.marked === doc.id ? "marked for diff" : "mark for diff", "act-mark", () => this.mark(doc.id)));
    if (this.marked !== null && this.marked !== doc.id) {
      bar.append(button(`diff with #${this.marked}`, "act-diff-marked", () => this.diff(this.marked, doc.id)));
    }
    if (doc.endpoint) {
      bar.append(button("diff with previous of endpoint", "act-diff-previous", () => this.previous(doc)));
    }
    if (this.mode === "offline" && doc.cassette) {
      bar.append(button("delete", "act-delete", () => this.remove(doc)), this.editForm(doc));
    }
    if (this.mode === "record" || this.mode === "spy") {
      bar.append(button("resend", "act-resend", () => this.resend(doc.id)));
    }
    return [bar, this.output];
  }

  // Buttons for one finding: accept it into the baseline, diff with the exchange it compares with.
  findingButtons(doc, finding) {
    const span = el("span", { class: "finding-actions" },
      el("button", { type: "button", class: "act-accept", text: "accept into baseline",
        onclick: () => this.run(() => this.accept(doc.id, finding.rule)) }));
    if (finding.compared_with !== null && finding.compared_with !== undefined) {
      const other = Number(finding.compared_with);
      span.append(el("button", { type: "button", class: "act-diff-compared", text: `diff with #${other}`,
        onclick: () => this.run(() => this.diff(other, doc.id)) }));
    }
    return span;
  }

  async run(action) {
    try {
      await action();
    } catch (error) {
      this.say(error.message, true);
    }
  }

  show(...nodes) {
    if (this.output) clear(this.output).append(...nodes);
  }

  async curl(id) {
    const { command } = await api.curl(id);
    const text = el("pre", { class: "curl", text: command });
    let copied = "copied to the clipboard";
    try {
      await navigator.clipboard.writeText(command);
    } catch {
      copied = "select it to copy (the clipboard is not available here)";
    }
    this.show(el("h3", { text: "curl" }), el("p", { class: "note", text: copied }), text);
    this.say(`curl for #${id}: ${copied}`);
  }

  mark(id) {
    this.marked = id;
    this.say(`#${id} marked: open another exchange and choose "diff with #${id}"`);
    this.openExchange(id);
  }

  async diff(a, b, all = false) {
    const doc = await api.diff(a, b, all);
    this.show(diffView(doc, {
      title: `diff #${a} → #${b}`, all, ids: [a, b], openExchange: this.openExchange,
      onToggle: (checked) => this.run(() => this.diff(a, b, checked)),
    }));
  }

  async previous(doc) {
    const found = await previousOfEndpoint(doc.endpoint, doc.id);
    if (found === null) {
      this.say(`no exchange of ${doc.endpoint} before #${doc.id}`);
      return;
    }
    await this.diff(found, doc.id);
  }

  async accept(id, rule) {
    const done = await api.acceptFinding(id, rule);
    if (this.mode === "offline") await this.changed(id); // indexed again without what it accepted
    this.say(`${rule} accepted into ${done.path}: ${done.added} added, ${done.total} in the baseline`);
  }

  async remove(doc) {
    const done = await api.deleteExchange(doc.id, doc.identity);
    await this.changed(null);
    this.edited(done);
  }

  editForm(doc) {
    const id = doc.id;
    const field = el("input", { name: "field", size: "14", placeholder: "resp.json.PATH", class: "edit-field" });
    const value = el("input", { name: "value", size: "14", placeholder: "value", class: "edit-value" });
    const unset = el("input", { type: "checkbox", name: "unset", class: "edit-unset" });
    const form = el("form", { class: "edit" }, field, value, el("label", {}, unset, " unset"),
      el("button", { type: "submit", class: "act-edit", text: "edit" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = field.value.trim();
      if (!name) return;
      this.run(async () => {
        const done = await api.editExchange(id, doc.identity, name, value.value, unset.checked);
        await this.changed(id);
        this.edited(done);
      });
    });
    return form;
  }

  edited(done) {
    const list = (items) => el("ul", {}, ...items.map((f) =>
      el("li", {}, el("code", { text: f.rule }), ` ${f.severity}: `, el("span", { text: f.message }))));
    this.say(done.summary);
    this.show(el("h3", { text: "edited" }), el("p", { class: "summary", text: done.summary }),
      el("h4", { text: `new findings: ${(done.added || []).length}` }), list(done.added || []),
      el("h4", { text: `findings gone: ${(done.removed || []).length}` }), list(done.removed || []));
  }

  async resend(id) {
    const done = await api.resend(id);
    this.show(el("p", { class: "resent", text: `resent: the upstream answered ${done.status}` }),
      diffView(done.diff, { title: `recorded #${id} → live answer` }));
  }
}

