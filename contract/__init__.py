"""Herald's public contract, written once: one pydantic model per public shape (docs/api.md,
"Resources") with its conversion to and from protobuf, and one table of operations
(contract/operations.py) from which the facade builds its /v1 routes, its MCP tools and
openapi.json.

Imports only `generated/` and pydantic, so the facades and the core's workers (webhook payloads
carry the JSON of `GET /v1/posts/{id}`) render the same shapes. Facts the core owns (platforms,
limits, page sizes, scopes) are not copied here: models mark such constraints `FromCatalog`, and
`contract.binding.Contract` fills them in from the core's catalog (herald.catalog.v1).
"""
