"""Server-rendered pages for humans: sign-in, the dashboard and the OAuth consent page."""
