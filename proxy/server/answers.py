"""Turning a recording into an HTTP answer: shared by replay and by `record --mode new_episodes`."""

from __future__ import annotations

import logging
from collections import OrderedDict

from proxy.core.model.bodies import body_to_bytes, dump_json, error_document
from proxy.core.model.domain import response_fault
from proxy.core.model.exchange import Response
from proxy.core.model.hop_by_hop import end_to_end
from proxy.core.model.links import OriginRewriter
from proxy.core.replay.book import Answer, NearMiss, Recording
from proxy.core.replay.matching import Difference
from proxy.core.replay.simulation.answers import Simulated
from proxy.server.wire import Outgoing, json_answer

log = logging.getLogger(__name__)
NO_MATCH_HEADER = "X-Commerce-Proxy"


class AnswerCache:
    """Each recording's answer as served at an origin, encoded to wire bytes once per (recording, origin).

    Memory stays flat: the answers of the `MAX_ORIGINS` origins used most recently are kept, so clients
    sending thousands of distinct Host headers cost no more than a few.
    """

    MAX_ORIGINS = 8

    def __init__(self) -> None:
        self._by_origin: OrderedDict[str, dict[int, Outgoing]] = OrderedDict()

    def response(self, recording: Recording, origin: str) -> Outgoing:
        """The recorded answer with links moved from the recorded upstream to `origin`."""
        built_at = self._by_origin.get(origin)
        if built_at is None:
            built_at = self._by_origin[origin] = {}
            if len(self._by_origin) > self.MAX_ORIGINS:
                self._by_origin.popitem(last=False)
        else:
            self._by_origin.move_to_end(origin)
        built = built_at.get(id(recording))
        if built is None:
            exchange = recording.exchange
            head = exchange.request.method == "HEAD"
            built = built_at[id(recording)] = _build(exchange.response, recording.upstream, origin, head)
        return built


def _build(response: Response, upstream: str | None, origin: str, head: bool = False) -> Outgoing:
    """The recorded answer as it goes out. A HEAD answer keeps its recorded Content-Length: the length
    of the GET's body it stands for (RFC 9110, 9.3.2), not of its own empty one."""
    fault = response_fault(response)
    if fault is not None:  # a cassette the loader refuses never gets here; nothing outside it goes out
        log.error("a recorded answer outside the cassette format is not sent: %s", fault)
        detail = f"the recorded answer is outside the cassette format ({fault.where[-1]}); see the log"
        return json_answer(500, error_document(500, "Not replayable", detail))
    dropped = {"content-length"}
    if response.body.decoded_from:
        dropped.add("content-encoding")  # the stored body is already decoded
    headers = end_to_end(response.headers, frozenset(dropped))
    body = response.body
    if upstream:
        rewriter = OriginRewriter(upstream, origin)
        if rewriter.needed:
            headers = rewriter.headers(headers)
            if body.kind == "json":
                return Outgoing(
                    response.status, tuple(headers), dump_json(rewriter.json(body.value)), response.reason
                )
    length = _recorded_length(response) if head and body.kind == "empty" else None
    return Outgoing(response.status, tuple(headers), body_to_bytes(body), response.reason, length=length)


def _recorded_length(response: Response) -> int | None:
    """The Content-Length a recorded answer gave, when it is one whole number (else None)."""
    values = [value.strip() for name, value in response.headers if name.lower() == "content-length"]
    return int(values[0]) if len(set(values)) == 1 and values[0].isdigit() else None


def serve_answer(answer: Answer, cache: AnswerCache, origin: str) -> Outgoing:
    """The recorded answer for a hit; a sequence that ran out is logged once, then repeats."""
    if answer.first_repeat:
        recording = answer.recording
        log.info(
            "%s %s: recorded answers used up; repeating the last one (%s #%d)",
            recording.exchange.request.method,
            recording.exchange.request.target,
            recording.cassette,
            recording.index,
        )
    return cache.response(answer.recording, origin)


def serve_simulated(simulated: Simulated, upstream: str | None, origin: str) -> Outgoing:
    """A simulated answer, its links moved from the recordings' upstream to us, logged as simulated."""
    log.info("simulated: %s", simulated.summary)
    return _build(simulated.response, upstream, origin)


def no_match_response(
    method: str, target: str, near: list[NearMiss], reason: str | None = None, logged: bool = True
) -> Outgoing:
    """404 in the API's error shape, naming the closest recordings and how they differ (and logging
    it, unless a watcher such as the pytest plugin explains the miss where it is seen).

    With `--simulate`, `reason` says why the simulator could not answer either.
    """
    closest = []
    for miss in near:
        entry: dict[str, object] = {
            "cassette": miss.recording.cassette,
            "index": miss.recording.index,
            "differences": [_difference(difference) for difference in miss.differences],
        }
        if miss.unnamed:
            entry["more_differences"] = miss.unnamed
        closest.append(entry)
    detail = f"{method} {target} matches no recorded exchange"
    if reason:
        detail += f" and cannot be simulated: {reason}"
    summary = "; ".join(
        f"#{miss.recording.index} differs in " + ", ".join(d.where for d in miss.differences[:3])
        for miss in near
    )
    if logged:
        log.warning("no match: %s%s", detail, f" (closest: {summary})" if summary else "")
    document = error_document(404, "No recorded exchange matches", detail, meta={"closest": closest})
    return json_answer(404, document, headers={NO_MATCH_HEADER: "no-match"})


def _difference(difference: Difference) -> dict[str, str]:
    return {"where": difference.where, "expected": difference.expected, "found": difference.found}
