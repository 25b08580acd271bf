"""The OAuth 2.1 authorization server's HTTP protocol at {auth_url} = {base_url}/api/auth
(docs/oauth.md)."""
