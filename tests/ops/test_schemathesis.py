"""Property-based API fuzzing with schemathesis against the OpenAPI description: for generated
valid (positive) and invalid (negative) requests to every operation, no 5xx, every documented
response matches its schema and content type, invalid requests are refused, and requests the
schema allows are not refused as invalid (only for the state they meet). Bounded (a few
examples per operation and mode, derandomized) so CI stays short.

The requests carry a real session token and the operator's key (so they reach the handlers,
not only the authentication); bad credentials are covered by test_hostile_input.py.
"""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.openapi import from_asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from reelforge.server.app import create_app
from reelforge.server.config import load_config

from .conftest import check_database, fresh_database, operator_config

EXAMPLES = 6
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance,
          negative_data_rejection, positive_data_acceptance]
# A request the schema allows may still meet a state that refuses it: a balance too low (402), an
# unfinished round or a used key (409), a round that does not exist (404). A 422 never.
CONFIG = SchemathesisConfig.from_str(
    '[checks.positive_data_acceptance]\nexpected-statuses = ["2xx", "401", "402", "403", "404", "409"]\n')
NOTHING_INVALID: set[str] = set()
"""Operations for which no invalid request can be generated (hypothesis says Unsatisfiable, after most of a
second of trying each: about half of a run's CPU). The generation is derandomized and the same on both
databases, so the second database's run skips what the first found, checking exactly what it checked."""


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_api_never_fails_and_answers_match_the_schema(backend, tmp_path):
    url, drop = fresh_database(backend, tmp_path)
    config_path, key = operator_config(tmp_path)
    app = create_app(load_config(config_path), url)
    try:
        with TestClient(app) as client:
            # A funded player whose token every generated request carries.
            name = f"fuzz{uuid.uuid4().hex[:8]}"
            token = client.post("/api/v1/sessions", json={"player": name},
                                headers={"X-Operator-Key": key}).json()["token"]
            client.post(f"/api/v1/operator/players/{name}/deposits", json={"amount": 1_000_000},
                        headers={"X-Operator-Key": key, "Idempotency-Key": "fund"})
            credentials = {"Authorization": f"Bearer {token}", "X-Operator-Key": key}
            schema = from_asgi("/openapi.json", app, config=CONFIG)
            operations = [result.ok() for result in schema.get_all_operations()]
            assert len(operations) >= 10
            for operation in operations:
                for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                    if mode is GenerationMode.NEGATIVE and operation.label in NOTHING_INVALID:
                        continue
                    @given(case=operation.as_strategy(generation_mode=mode))
                    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                              suppress_health_check=list(HealthCheck))
                    def fuzz(case):
                        headers = {**credentials, "Idempotency-Key": uuid.uuid4().hex}
                        case.call_and_validate(headers=headers, checks=CHECKS)

                    try:
                        fuzz()
                    except Unsatisfiable:
                        # An operation without parameters or body has no invalid request to generate.
                        assert mode is GenerationMode.NEGATIVE, operation.label
                        NOTHING_INVALID.add(operation.label)
    finally:
        app.state.engine.dispose()
    check_database(url)
    drop()
