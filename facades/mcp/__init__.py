"""The MCP surface at {base_url}/mcp: stateless, POST-only JSON-RPC for agents (SPEC 4, 5, 7)."""
