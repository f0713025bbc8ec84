"""Fact rules per language; `ALL_RULES` is the priority order extraction tries them in."""
