"""What the tests and the benches both drive: Herald's real processes on loopback
(`harness.stack`), the OAuth flow of an agent (`harness.oauth_flow`), a live-mode stack with its
accounts (`harness.live`), and local fakes of what this machine cannot reach (`harness.fakes`: the
platforms' APIs, a Bluesky PDS, Google Cloud Storage, an OpenAI-compatible server). Never
imported by the product (core, facades, contract)."""
