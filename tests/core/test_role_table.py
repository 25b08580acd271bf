"""The role table (core/identity/roles.py) as docs/teams.md shows it, and the rules every method's
policy follows: a method with a principal names a known permission, an anonymous one none."""

from __future__ import annotations

import itertools
from pathlib import Path

from core.identity.roles import PERMISSIONS, ROLES, allows, rank
from core.server import method_policies

DOC = Path(__file__).resolve().parents[2] / "docs" / "teams.md"


def test_the_documented_table_is_the_cores() -> None:
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `")]
    documented = {}
    header = next(line for line in DOC.read_text().splitlines() if line.startswith("| permission |"))
    roles = [cell.strip() for cell in header.strip("|").split("|")[2:]]
    assert roles == list(ROLES)
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        name = cells[0].strip("`")
        if name not in PERMISSIONS:
            continue  # the members' routes table
        assert cells[1] == PERMISSIONS[name].description
        documented[name] = {role for role, mark in zip(roles, cells[2:], strict=True) if mark == "✓"}
    assert documented == {p: {r for r in ROLES if p in ROLES[r]} for p in PERMISSIONS}


def test_every_method_names_its_permission() -> None:
    for name, policy in method_policies().items():
        if policy.anonymous:
            assert policy.permission == "", name
        else:
            assert policy.permission in PERMISSIONS, name


def test_roles_rank_best_first_and_an_unknown_role_may_do_nothing() -> None:
    assert sorted(ROLES, key=rank) == ["owner", "admin", "editor", "contributor", "viewer"]
    assert rank("nobody") > rank("viewer")
    assert not any(allows("nobody", p) for p in PERMISSIONS) and not allows("", "read")
    # Each role's rights include those of every role below it.
    ordered = list(ROLES.values())
    assert all(lower <= higher for higher, lower in itertools.pairwise(ordered))
