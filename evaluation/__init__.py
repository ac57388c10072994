"""Matches between team policies on the rules engine, statistics and reports."""
