"""Property-based fuzzing of `yz serve`'s API from its own OpenAPI schema (Schemathesis): for
requests drawn from the schema, valid and not, no answer is a server error and every answer
matches what the schema documents (status, content type, body).

"testserver" (the name Schemathesis's ASGI client sends) is allowed as a host here: the Host
guard has tests of its own, and would otherwise answer every request with the same 421.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("schemathesis")

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance
from yz.web.app import create_app
from yz.web.settings import LOOPBACK_NAMES, WebSettings

app = create_app(WebSettings(hosts=(*LOOPBACK_NAMES, "testserver"), max_queued=1))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_the_api_answers_every_request_as_documented(case):
    # A request the schema allows may still be refused, with a documented 4xx: the schema
    # cannot say that a variant must be a built-in's name or that YAML must be a rule set.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
