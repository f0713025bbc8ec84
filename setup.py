"""Packaging: the repository keeps `proxy/`, `engine/` and `config/` at the top, but they install
under the `memtap.` namespace (`memtap.proxy`, ...), so they never collide with another
distribution's `config` or `proxy`. Everything else is declared in setup.cfg."""

from setuptools import find_packages, setup

ROOTS = ("proxy", "engine", "config")
found = find_packages(include=[f"{root}{tail}" for root in ROOTS for tail in ("", ".*")])

setup(
    packages=[f"memtap.{name}" for name in found],
    package_dir={f"memtap.{root}": root for root in ROOTS},
)
