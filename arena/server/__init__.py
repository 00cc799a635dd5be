"""arena serve: a competition server (issue 26). See arena/server/service.py for the pieces."""
