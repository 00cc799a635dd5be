"""Helpers shared by tests in several folders (no test imports another test module's private helpers)."""
