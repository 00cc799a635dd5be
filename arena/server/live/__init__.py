"""Live games over HTTP: the ladder's live pages (`ladder_pages`), `arena run --watch`'s local page
(`watch`), and what both share (`spectate`: one viewer's share of a game by the access rule, its SSE stream)."""
