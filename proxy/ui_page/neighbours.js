// The previous exchange of an endpoint: the rows of that endpoint are in id order, so a search over
// windows of 500 (at most log2(n / 500) + 1 requests) finds the last one before an id.

import { window_, MAX_LIMIT } from "./api.js";

export async function previousOfEndpoint(endpoint, id) {
  const filter = [["endpoint", endpoint]];
  let low = 0;
  let high = (await window_(filter, 0, 1)).total; // offsets [low, high) may hold it
  let best = null;
  while (low < high) {
    const offset = Math.max(low, Math.floor((low + high) / 2) - Math.floor(MAX_LIMIT / 2));
    const rows = (await window_(filter, offset, MAX_LIMIT)).exchanges;
    if (rows.length === 0) break;
    const before = rows.filter((row) => row.id < id);
    if (before.length > 0) best = before[before.length - 1].id;
    if (before.length === 0) high = offset;
    else if (before.length < rows.length) break;
    else low = offset + rows.length;
  }
  return best;
}
