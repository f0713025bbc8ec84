"""Fixtures shared by the engine's tests: the multilingual route's two real models."""

from tests.support.route_models import minilm, use  # noqa: F401 - fixtures by name
