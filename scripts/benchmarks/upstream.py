"""The throughput benchmark's upstream: nginx from Debian serving PAGES static, documented list pages of
about 4 KB, chosen by the page offset (it is not the bottleneck), and the targets wrk rotates over. The
matrix (matrix.py) gives it other documents: list pages and custom API entries of other sizes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from common import Process, free_port, wait_until_up

PAGES = 20
RECORDS_PER_PAGE = 10


def page_document(number: int, base: str) -> dict[str, object]:
    """A documented list page of about 4 KB: the envelope, its links and meta, ten product records."""
    offset = number * RECORDS_PER_PAGE
    records = [
        {
            "id": f"00000000-0000-4000-8000-{offset + index:012d}",
            "type": "product",
            "attributes": {
                "name": f"Product {offset + index}",
                "sku": f"SKU-{offset + index:06d}",
                "description": "A product of the benchmark catalogue, described at some length. " * 3,
                "status": "live",
            },
            "meta": {
                "timestamps": {
                    "created_at": "2026-01-01T00:00:00.000Z",
                    "updated_at": "2026-01-02T00:00:00.000Z",
                }
            },
        }
        for index in range(RECORDS_PER_PAGE)
    ]
    total = PAGES * RECORDS_PER_PAGE
    link = f"{base}/v2/products?page[limit]={RECORDS_PER_PAGE}&page[offset]="
    return {
        "data": records,
        "links": {
            "current": f"{link}{offset}",
            "first": f"{link}0",
            "last": f"{link}{total - RECORDS_PER_PAGE}",
            "prev": f"{link}{offset - RECORDS_PER_PAGE}" if offset else None,
            "next": f"{link}{offset + RECORDS_PER_PAGE}" if offset + RECORDS_PER_PAGE < total else None,
        },
        "meta": {
            "page": {"limit": RECORDS_PER_PAGE, "offset": offset, "current": number + 1, "total": PAGES},
            "results": {"total": total, "all": total},
        },
    }


def targets() -> list[str]:
    return [
        f"/v2/products?page[limit]={RECORDS_PER_PAGE}&page[offset]={number * RECORDS_PER_PAGE}"
        for number in range(PAGES)
    ]


def pages_documents(base: str) -> dict[str, object]:
    """The throughput part's documents: the PAGES list pages, by target."""
    return {target: page_document(number, base) for number, target in enumerate(targets())}


LISTS = "products|brands|categories"  # the lists the upstream serves pages of


def served_file(target: str) -> str:
    """Where nginx finds a target's document under its pages folder: a list page by its list and page
    offset, a custom API entry (`/v2/extensions/...`) by its path."""
    offset = re.search(r"page(?:\[|%5B)offset(?:\]|%5D)=(\d+)", target)
    listed = re.match(rf"/v2/({LISTS})\?", target)
    if listed and offset:
        return f"{listed.group(1)}/{offset.group(1)}.json"
    if re.fullmatch(r"/v2/extensions/[\w-]+/[\w-]+", target):
        return target.lstrip("/") + ".json"
    raise ValueError(f"the benchmark upstream cannot serve {target}")


class Nginx:
    """The upstream: nginx from Debian, one worker, static files chosen by the page offset or the path."""

    def __init__(self, work: Path, documents: Callable[[str], dict[str, object]] = pages_documents) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        prefix = work / "nginx"
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        pages = prefix / "pages"
        pages.mkdir(exist_ok=True)
        self.documents = documents(self.url)
        for target, document in self.documents.items():
            path = pages / served_file(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(document))
        (prefix / "nginx.conf").write_text(
            f"""worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/tmp; proxy_temp_path {prefix}/tmp; fastcgi_temp_path {prefix}/tmp;
  uwsgi_temp_path {prefix}/tmp; scgi_temp_path {prefix}/tmp;
  keepalive_requests 1000000;
  map $args $offset_file {{
    default "none";
    "~page(\\[|%5B)offset(\\]|%5D)=(?<off>\\d+)" "$off";
  }}
  server {{
    listen 127.0.0.1:{self.port};
    etag off;
    location ~ ^/v2/(?<list>{LISTS})$ {{
      default_type application/json;
      root {pages};
      try_files /$list/$offset_file.json =404;
    }}
    location /v2/extensions/ {{
      default_type application/json;
      root {pages};
      try_files $uri.json =404;
    }}
    location / {{ return 404; }}
  }}
}}
"""
        )
        (prefix / "tmp").mkdir(exist_ok=True)
        # nginx's worker runs as an unprivileged user when started as root: it must reach the pages.
        for folder in (work, prefix, pages, *(path for path in pages.rglob("*") if path.is_dir())):
            folder.chmod(0o755)
        self.process = Process(
            "nginx",
            ["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
            work / "nginx.log",
        )
        wait_until_up(self.url + next(iter(self.documents)), self.process)

    def stop(self) -> None:
        self.process.stop()
