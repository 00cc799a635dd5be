"""A tournament's configuration: one play setup built in code (setup.py: `PlaySetup`, checked whole into
the `TournamentConfig` of tournament_config.py), the YAML way in (tournament.py: `load`, `parse`), the
strict reader (reader.py), the entrants (entrants.py), the sandbox (sandbox.py), stop-rule (stop.py) and
cluster (cluster.py) sections."""
