"""Live games: frames taken where a game is played, carried to the coordinator, shown to spectators.

`frame` (what one frame holds), `tap` (the referee's side: snapshots taken between steps, coalesced,
never blocking the game), `feed` (the coordinator's side: reads the workers' live pipes) and `board`
(the games in progress and what a viewer may see of each, by `arena.ladder.access.live_share`).
"""
