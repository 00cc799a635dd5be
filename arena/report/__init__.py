"""Text renderers of results and statistics for the terminal and files: standings tables, CSV and
JSON (standings.py); intervals, seats and collusion (statistics.py). The HTML pages are arena.web."""
