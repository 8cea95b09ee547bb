// New exchanges, pushed: /api/events streams the rows added after a cursor, as Server-Sent Events. The
// stream needs the token header, which EventSource cannot send, so it is read with fetch; on a dropped
// connection it reconnects from the last event's id (the cursor), never loading everything again.

import { apiUrl, authorized } from "./api.js";

const FIRST_DELAY_MS = 500;
const MOST_DELAY_MS = 5_000;

export function follow(cursor, { onRows, onState, onRefused }) {
  const stopping = new AbortController();
  let last = cursor;

  function take(block) {
    let kind = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue; // a comment: keep-alive
      const [field, ...rest] = line.split(":");
      const value = rest.join(":").replace(/^ /, "");
      if (field === "event") kind = value;
      else if (field === "data") data.push(value);
      else if (field === "id" && /^[0-9]+$/.test(value)) last = Number(value);
    }
    if (kind !== "exchanges" || data.length === 0) return;
    const document = JSON.parse(data.join("\n"));
    onRows(document.cursor, document.exchanges || []);
  }

  async function read() {
    const response = await fetch(apiUrl("events", [["cursor", String(last)]]), {
      headers: authorized({ Accept: "text/event-stream" }),
      credentials: "same-origin",
      cache: "no-store",
      signal: stopping.signal,
    });
    if (response.status === 403) return false;
    if (response.status === 409) {
      // A cursor of another run of the server (restarted, its token kept): start over from its info.
      location.reload();
      return new Promise(() => {});
    }
    if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
    onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      buffer = (buffer + value).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        take(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  (async () => {
    let delay = FIRST_DELAY_MS;
    while (!stopping.signal.aborted) {
      try {
        if (!(await read())) {
          onState("stopped");
          if (onRefused) onRefused();
          return;
        }
        delay = FIRST_DELAY_MS;
      } catch {
        if (stopping.signal.aborted) return;
      }
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MOST_DELAY_MS);
    }
  })();
  return { close: () => stopping.abort() };
}
