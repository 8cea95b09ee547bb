"""The code under test in the example suite: a small client of the commerce API, as a user writes one.

It knows nothing of commerce-proxy: the tests give it the base URL a fixture yields.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class ApiError(Exception):
    """The service answered with an error status."""

    def __init__(self, status: int, document: Any) -> None:
        super().__init__(f"HTTP {status}: {document}")
        self.status = status
        self.document = document


class CatalogClient:
    """Signs in with client credentials, then reads lists (every page), entries and features."""

    def __init__(
        self, base_url: str, client_id: str = "sandbox-client", secret: str = "sandbox-secret"
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.secret = secret
        self.token: str | None = None

    def call(
        self, method: str, target: str, body: Any = None, form: dict[str, str] | None = None
    ) -> tuple[dict[str, str], Any]:
        """One request; the answer's headers and JSON document (ApiError on 4xx/5xx)."""
        url = target if target.startswith("http") else self.base_url + target
        headers = {"Accept": "application/json"}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return dict(answer.headers.items()), json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, json.loads(error.read() or b"null")) from None

    def sign_in(self) -> None:
        form = {"grant_type": "client_credentials", "client_id": self.client_id, "client_secret": self.secret}
        _, document = self.call("POST", "/oauth/access_token", form=form)
        self.token = document["access_token"]

    def every(self, collection: str, page_size: int = 25) -> list[dict[str, Any]]:
        """Every record of a list, following links.next until it runs out."""
        records: list[dict[str, Any]] = []
        target: str | None = f"/v2/{collection}?page[limit]={page_size}"
        while target:
            _, page = self.call("GET", target)
            records.extend(page["data"])
            target = page["links"].get("next")
        return records

    def entry(self, slug: str, entry_id: str) -> tuple[str, dict[str, Any]]:
        """A custom API entry and its ETag."""
        headers, document = self.call("GET", f"/v2/extensions/{slug}/{entry_id}")
        return headers["ETag"], document["data"]

    def rename_feature(self, feature_id: str, name: str) -> dict[str, Any]:
        """A partial update: only the name is sent, everything else must stay as it was."""
        body = {"data": {"id": feature_id, "type": "subscription_feature", "attributes": {"name": name}}}
        _, document = self.call("PUT", f"/v2/subscriptions/features/{feature_id}", body=body)
        return document["data"]
