"""Placeholder: filled in by the issue that owns these commands."""

from __future__ import annotations

import argparse


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    return None
