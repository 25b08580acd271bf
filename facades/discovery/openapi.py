"""{base_url}/openapi.json (docs/api.md, "GET /openapi.json"): the OpenAPI 3.1 description of
every /v1 route, assembled from the operation table (contract/operations.py) and the contract's
models as the core's catalog binds them, so it cannot disagree with the routes it describes.

Response objects are closed where they are used (`unevaluatedProperties: false`): a success body
is exactly its model plus `warning` (docs/api.md, "Resources"), a list element exactly its model.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from contract.base import SchemaGenerator
from contract.binding import Contract
from contract.errors import REASONS, CreditWarning, Error
from contract.operation import Operation
from contract.operations import OPERATIONS, TAGS
from facades.rest.arguments import http_fields
from facades.settings import FacadeSettings

OPENAPI_VERSION = "3.1.0"
_SCHEMAS = "#/components/schemas/"
_HEADERS = "#/components/headers/"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _SCHEMAS + name}


def _close_nested(node: Any) -> Any:  # a JSON Schema fragment
    """Every reference to a response model inside a response schema becomes a closed use of it."""
    if isinstance(node, dict):
        out = {k: _close_nested(v) for k, v in node.items()}
        if "$ref" in out and len(out) == 1:
            out["unevaluatedProperties"] = False
        return out
    if isinstance(node, list):
        return [_close_nested(v) for v in node]
    return node


def _schemas(contract: Contract) -> tuple[dict[str, Any], dict[tuple[type[BaseModel], str], Any]]:
    """Components for every request and response model of the table, and each model's schema."""
    models: list[tuple[type[BaseModel], str]] = [(contract.model(Error), "serialization")]
    models.append((contract.model(CreditWarning), "serialization"))
    for op in OPERATIONS:
        models.append((contract.model(op.request), "validation"))
        models.extend((contract.model(r), "serialization") for r in op.responses.values())
    keyed, document = models_json_schema(
        list(dict.fromkeys(models)), ref_template=_SCHEMAS + "{model}", schema_generator=SchemaGenerator
    )
    components = document.get("$defs", {})
    for (model, mode), _ in keyed.items():
        if mode == "serialization":
            components[model.__name__] = _close_nested(components[model.__name__])
    return components, keyed


def _body_only(schema: dict[str, Any], body: frozenset[str]) -> dict[str, Any]:
    """A request model's schema with only the arguments that travel in the JSON body."""
    out = {**schema, "properties": {k: v for k, v in schema["properties"].items() if k in body}}
    required = [k for k in schema.get("required", []) if k in body]
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def _parameters(op: Operation, schema: dict[str, Any]) -> list[dict[str, Any]]:
    fields = http_fields(op.request)
    required = set(schema.get("required", []))
    parameters = []
    for name in fields.path:
        parameters.append(_parameter(name, "path", schema["properties"][name], required=True))
    for name in fields.query:
        parameters.append(_parameter(name, "query", schema["properties"][name], required=name in required))
    for name, header in fields.headers.items():
        parameters.append(_parameter(header, "header", schema["properties"][name], required=name in required))
    return parameters


def _parameter(name: str, where: str, schema: dict[str, Any], *, required: bool) -> dict[str, Any]:
    schema = dict(schema)
    description = schema.pop("description", "")
    # A parameter is absent or a value, never null: keep only the non-null alternative.
    options = [o for o in schema.pop("anyOf", []) if o.get("type") != "null"]
    if options:
        schema = {**options[0], **schema}
    if schema.get("default", ...) is None:
        del schema["default"]
    parameter = {"name": name, "in": where, "required": required, "schema": schema}
    if description:
        parameter["description"] = description
    return parameter


def _success(description: str, schema: dict[str, Any], op: Operation) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description,
        "headers": {
            "X-Credits-Remaining": {"$ref": _HEADERS + "X-Credits-Remaining"},
            "X-Request-Id": {"$ref": _HEADERS + "X-Request-Id"},
        },
        "content": {"application/json": {"schema": schema}},
    }
    if op.links:
        parameter, value, targets = op.links
        response["links"] = {
            target[0].upper() + target[1:]: {"operationId": target, "parameters": {parameter: value}}
            for target in targets
        }
    return response


def _errors(op: Operation) -> dict[str, Any]:
    """One response per error status of the operation, its `code` narrowed to the operation's."""
    by_status: dict[int, list[str]] = defaultdict(list)
    for code in op.all_errors:
        by_status[REASONS[code].http_status].append(code)
    responses: dict[str, Any] = {}
    for status, codes in sorted(by_status.items()):
        response: dict[str, Any] = {
            "description": ", ".join(codes),
            "content": {
                "application/json": {
                    "schema": {
                        "$ref": _SCHEMAS + Error.__name__,
                        "properties": {"code": {"enum": codes}},
                        "unevaluatedProperties": False,
                    }
                }
            },
        }
        response["headers"] = {"X-Request-Id": {"$ref": _HEADERS + "X-Request-Id"}}
        if status == 401:
            response["headers"]["WWW-Authenticate"] = {"$ref": _HEADERS + "WWW-Authenticate"}
        responses[str(status)] = response
    return responses


def _operation(op: Operation, contract: Contract, components: dict[str, Any]) -> dict[str, Any]:
    model = contract.model(op.request)
    schema = components[model.__name__]
    fields = http_fields(op.request)
    out: dict[str, Any] = {"operationId": op.id, "summary": op.summary, "tags": [op.tag]}
    description = " ".join(p for p in (op.description, f"Errors: {', '.join(op.all_errors)}.") if p)
    out["description"] = description
    if parameters := _parameters(op, schema):
        out["parameters"] = parameters
    if op.body_media_type != "application/json":
        out["requestBody"] = {
            "required": True,
            "content": {op.body_media_type: {"schema": _ref(model.__name__)}},
        }
    elif fields.body:
        components[model.__name__] = _body_only(schema, fields.body | fields.names_in_body)
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": _ref(model.__name__)}}}
    responses: dict[str, Any] = {}
    for status, response in op.responses.items():
        body = {
            **_ref(contract.model(response).__name__),
            "properties": {"warning": _ref(CreditWarning.__name__)},
            "unevaluatedProperties": False,
        }
        responses[str(status)] = _success((response.__doc__ or response.__name__).strip(), body, op)
    responses.update(_errors(op))
    out["responses"] = responses
    return out


def openapi_document(settings: FacadeSettings, contract: Contract) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the /v1 REST API, for this facade's base URL."""
    components, _ = _schemas(contract)
    paths: dict[str, dict[str, Any]] = defaultdict(dict)
    for op in OPERATIONS:
        paths[op.path][op.method.lower()] = _operation(op, contract, components)
    bodies = {op.request.__name__ for op in OPERATIONS if op.body_media_type != "application/json"}
    bodies |= {op.request.__name__ for op in OPERATIONS if http_fields(op.request).body}
    for op in OPERATIONS:
        if op.request.__name__ not in bodies:
            components.pop(op.request.__name__, None)  # described by its parameters alone
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Herald REST API",
            "version": "1",
            "description": "Publish or schedule posts to connected social profiles, and manage the media library. "
            f"Guides: {settings.base_url}/llms.txt (agents), {settings.base_url}/auth.md (credentials).",
        },
        "servers": [{"url": settings.base_url}],
        "security": [{"apiKey": []}],
        "tags": [{"name": name, "description": description} for name, description in TAGS.items()],
        "paths": dict(paths),
        "components": {
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key beginning `svc_`, created in the dashboard: "
                    "`Authorization: Bearer svc_…`. OAuth access tokens are refused here (they belong at /mcp).",
                }
            },
            "schemas": components,
            "headers": {
                "X-Credits-Remaining": {
                    "description": "The organization's credit balance after this request.",
                    "required": True,
                    "schema": {"type": "integer"},
                },
                "X-Request-Id": {
                    "description": "The request's id: the caller's own X-Request-Id when it is a token of 1 to 128 "
                    "characters of A-Z a-z 0-9 . _ : / + = @ -, else one Herald made (req_…). Error bodies repeat it "
                    "in `request_id`; webhook deliveries of the events the request caused carry it.",
                    "required": True,
                    "schema": {"type": "string", "maxLength": 128},
                },
                "WWW-Authenticate": {
                    "description": 'Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource", '
                    'with error="invalid_token" when a credential was sent.',
                    "required": True,
                    "schema": {"type": "string"},
                },
            },
        },
    }
