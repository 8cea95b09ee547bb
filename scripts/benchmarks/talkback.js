// talkback (npm) as a benchmark peer: record from the upstream, or replay its tapes.
// Usage: node talkback.js UPSTREAM_URL PORT TAPES_DIR record|overwrite|replay
const talkback = require("talkback");
const [upstream, port, tapes, mode] = process.argv.slice(2);
const modes = { record: talkback.Options.RecordMode.NEW, overwrite: talkback.Options.RecordMode.OVERWRITE, replay: talkback.Options.RecordMode.DISABLED };
const server = talkback({
  host: upstream,
  port: Number(port),
  path: tapes,
  record: modes[mode],
  fallbackMode: talkback.Options.FallbackMode.NOT_FOUND,
  silent: true,
  summary: false,
  // Match on method, path, query and body, as the other tools do; not on client-specific headers.
  ignoreHeaders: ["authorization", "user-agent", "host", "connection", "accept", "accept-encoding", "content-length"],
});
server.start(() => console.log(`talkback ${mode} on ${port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGINT", () => server.close(() => process.exit(0)));
