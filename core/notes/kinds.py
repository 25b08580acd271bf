"""The kinds of notification, who gets each, and where each goes unless a member chose otherwise
(docs/teams.md, "Comments and notifications")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Kind:
    description: str
    # Where it goes by default: the dashboard's inbox, email (when mail is configured).
    inbox: bool = True
    email: bool = True


KINDS: dict[str, Kind] = {
    "approval_requested": Kind("a post waits for your approval (you may approve)"),
    "post_approved": Kind("a post you wrote was approved", email=False),
    "post_rejected": Kind("a post you wrote was rejected"),
    "post_failed": Kind("a post you wrote failed"),
    "profile_needs_reauth": Kind("a profile must be connected again (you manage connections)"),
    "token_expiring": Kind("a profile's access ends within 7 days (you manage connections)"),
    "credits_low": Kind("the organization's credits are low (you manage the organization)"),
    "mentioned": Kind("someone mentioned you in a comment"),
}
