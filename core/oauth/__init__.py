"""The OAuth 2.1 authorization server's state and rules (SPEC 5); the HTTP protocol is in the facade."""
