"""The MCP surface at {base_url}/mcp: stateless, POST-only JSON-RPC for agents (docs/mcp.md)."""
