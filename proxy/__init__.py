"""memtap's proxy: server, modes, addon pipeline, codecs, stream tee, admin sub-app."""

__version__ = "0.1.0"
