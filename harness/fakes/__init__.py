"""Local servers that speak the real APIs of what this machine cannot reach, for the real clients to talk to over HTTP."""
