"""Every route the API declares has a handler (a missing one would be a 500 at run time)."""

from __future__ import annotations

from footnote.api.http import Api
from footnote.api.routes import ROUTES


def test_every_route_endpoint_has_a_handler() -> None:
    endpoints = {rule.endpoint for rule in ROUTES.iter_rules()} - {"health"}
    missing = sorted(e for e in endpoints if not callable(getattr(Api, f"_on_{e}", None)))
    assert endpoints and missing == []
