"""One package per rule system; each registers in `rules.ruleset`."""
