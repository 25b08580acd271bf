"""The OAuth 2.1 authorization server's state and rules (docs/oauth.md); the HTTP protocol is in
the facade."""
