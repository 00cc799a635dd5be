"""The competition server's commands: `arena serve CONFIG [SUBCOMMAND]` (serve.py and the organiser's
subcommands beside it) and a participant's `arena submit` / `arena ladder ...` (submit.py)."""
