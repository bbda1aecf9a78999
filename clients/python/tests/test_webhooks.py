"""Webhook endpoints through the SDK and verification of a real delivery from the running server:
accepted as it came, refused with a tampered body, a wrong secret or a timestamp over five minutes old."""

from __future__ import annotations

import base64
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks.webhooks import Webhook

from quire import Quire, WebhookVerificationError, verify_webhook

from .conftest import SCOPES, Server


class Receiver:
    def __init__(self) -> None:
        self.deliveries: list[tuple[bytes, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["content-length"]))
                outer.deliveries.append((body, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/hook"

    def wait_for(self, count: int, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.deliveries) < count:
            assert time.monotonic() < deadline, f"{len(self.deliveries)} of {count} deliveries arrived"
            time.sleep(0.1)


def test_a_real_delivery_verifies_and_tampering_a_wrong_secret_or_an_old_timestamp_do_not(
    server: Server, sample_pdf: object
) -> None:
    receiver = Receiver()
    # An account of its own: the session's other tests run jobs on the shared one, and their
    # job.succeeded events would reach this endpoint too.
    with Quire(server.admin_key, base_url=server.url, tus_store=None) as admin:
        account = admin.accounts.create("py-sdk-webhooks", plan="business")
        key = admin.keys.create(account.id, SCOPES, name="py-sdk-webhooks").key
    assert key
    with Quire(key, base_url=server.url, tus_store=None) as quire:
        endpoint = quire.webhooks.create(receiver.url, ["job.succeeded"], description="py-sdk")
        secret = endpoint.secret
        assert secret and secret.startswith("whsec_")
        assert quire.webhooks.get(endpoint.id).secret is None
        assert endpoint.id in [e.id for e in quire.webhooks.list().data]
        job = quire.jobs.wait(quire.jobs.create("rotate", sample_pdf, {"angle": 90}).id)  # type: ignore[arg-type]
        receiver.wait_for(1)
        body, headers = receiver.deliveries[0]

        event = verify_webhook(body, headers, secret)
        assert (event.type, event.data.id, event.data.status) == ("job.succeeded", job.id, "succeeded")

        with pytest.raises(WebhookVerificationError):
            verify_webhook(body.replace(b'"succeeded"', b'"failed"', 1), headers, secret)
        wrong = "whsec_" + base64.b64encode(b"x" * 32).decode()
        with pytest.raises(WebhookVerificationError):
            verify_webhook(body, headers, wrong)
        # Signed right, with the real secret, but six minutes ago: only the age is wrong.
        old = datetime.now(timezone.utc) - timedelta(minutes=6)
        stale = {**headers, "webhook-timestamp": str(int(old.timestamp())),
                 "webhook-signature": Webhook(secret).sign(headers["webhook-id"], old, body.decode())}
        with pytest.raises(WebhookVerificationError, match="too old"):
            verify_webhook(body, stale, secret)

        # Redelivery: one more attempt with the same webhook-id.
        deliveries = quire.webhooks.deliveries(endpoint.id).data
        assert deliveries[0].id == headers["webhook-id"] and deliveries[0].status == "succeeded"
        quire.webhooks.retry_delivery(endpoint.id, deliveries[0].id)
        receiver.wait_for(2)
        assert receiver.deliveries[1][1]["webhook-id"] == headers["webhook-id"]

        rotated = quire.webhooks.rotate_secret(endpoint.id, grace_period_seconds=60)
        assert rotated.secret and rotated.secret != secret
        assert quire.webhooks.update(endpoint.id, status="disabled").status == "disabled"
        assert quire.webhooks.job_secret().secret.startswith("whsec_")
        quire.webhooks.delete(endpoint.id)
    receiver.http.shutdown()
