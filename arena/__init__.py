"""arena: referee, tournaments and ratings for bot competitions."""

__version__ = "0.1.0"
