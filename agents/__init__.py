"""NPC policies: the `Policy` interface, the registry and the scripted policies.

Scripted policies act on rules-level state and import only `rules/`.
"""

from agents.base import Policy, available_policies, make_policy, register_policy

__all__ = ["Policy", "available_policies", "make_policy", "register_policy"]
