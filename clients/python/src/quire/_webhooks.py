"""Verifying a webhook delivery (docs/webhooks.md) with the `standardwebhooks` package: the signature
over `id.timestamp.body` with the endpoint's secret (either one during a rotation), and a timestamp
within five minutes of now."""

from __future__ import annotations

from collections.abc import Mapping

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from ._models import JobEvent

__all__ = ["WebhookVerificationError", "verify_webhook"]


def verify_webhook(body: bytes | str, headers: Mapping[str, str], secret: str) -> JobEvent:
    """The typed event of a delivery whose signature and timestamp check out.

    Pass the body exactly as received (not re-serialised JSON). Raises `WebhookVerificationError`
    for a missing header, a wrong signature or secret, or a timestamp more than five minutes off.
    """
    payload = Webhook(secret).verify(body, dict(headers))
    return JobEvent.model_validate(payload)
