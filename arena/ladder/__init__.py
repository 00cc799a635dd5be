"""The competition's domain below the HTTP edge: accounts, submissions and their check, the ladder's
games and ratings, and the store they share. Nothing here imports arena.server or Starlette."""
