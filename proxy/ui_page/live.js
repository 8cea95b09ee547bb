// New exchanges, pushed: /api/events streams the rows added after a cursor. The browser's EventSource
// reconnects on its own and sends the last event's id (the cursor), so a reconnecting page resumes
// where it was without loading everything again.

import { apiUrl } from "./api.js";

export function follow(cursor, { onRows, onState }) {
  const source = new EventSource(apiUrl("events", [["cursor", String(cursor)]]));
  source.addEventListener("open", () => onState("live"));
  source.addEventListener("error", () => onState(source.readyState === EventSource.CLOSED ? "stopped" : "reconnecting"));
  source.addEventListener("exchanges", (event) => {
    const document = JSON.parse(event.data);
    onRows(document.cursor, document.exchanges || []);
  });
  return source;
}
