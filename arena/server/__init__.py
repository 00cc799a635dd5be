"""arena serve: a competition server (issue 26). See arena/ladder/service.py for the pieces."""
