"""Tactica: the command-line app, the GM tools and the bundled scenarios and policies."""

__version__ = "0.1.0"
