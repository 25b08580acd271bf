"""The admin CLI contract (DESIGN, "Administration without the dashboard"): each command prints
one JSON object on stdout."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.stack import ROOT, stack_env
from tests.messages import names


@pytest.fixture
def herald(database_url, tmp_path):
    env = stack_env(database_url, tmp_path)

    def run(*args: str) -> tuple[int, dict]:
        proc = subprocess.run(
            [sys.executable, "-m", "core", "admin", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        lines = proc.stdout.strip().splitlines()
        assert len(lines) == 1, proc.stdout + proc.stderr
        return proc.returncode, json.loads(lines[0])

    return run


def test_bootstrap_profile_credits_plan(herald, http_sync) -> None:
    code, out = herald(
        "bootstrap",
        "--email",
        "Ops@Example.com",
        "--password",
        "a long password",
        "--org",
        "cli-org",
        "--credits",
        "25",
        "--plan",
        "trialing",
    )
    assert code == 0
    assert set(out) == {"user_id", "org_id", "org", "api_key"}
    assert out["org"] == "cli-org" and out["api_key"].startswith("svc_")

    # Again: nothing new but a new key, and the starting credits are not granted twice.
    code, again = herald(
        "bootstrap",
        "--email",
        "ops@example.com",
        "--password",
        "a long password",
        "--org",
        "cli-org",
        "--credits",
        "25",
    )
    assert code == 0
    assert (again["user_id"], again["org_id"]) == (out["user_id"], out["org_id"])
    assert again["api_key"] != out["api_key"]

    code, profile = herald(
        "add-profile", "--org", "cli-org", "--slug", "cli-x", "--platform", "x", "--tag", "a", "--tag", "B"
    )
    assert code == 0
    assert {k: profile[k] for k in ("slug", "connector", "tags")} == {
        "slug": "cli-x",
        "connector": "x",
        "tags": ["a", "b"],
    }

    assert herald("credits", "--org", "cli-org", "--add", "5") == (0, {"org": "cli-org", "balance": 30})
    assert herald("plan", "--org", "cli-org", "--plan", "none") == (0, {"org": "cli-org", "plan": "none"})

    # Both keys work (until the plan was removed: then 402).
    response = http_sync.get("/v1/profiles", headers={"Authorization": f"Bearer {again['api_key']}"})
    assert response.status_code == 402
    herald("plan", "--org", "cli-org", "--plan", "active")
    for key in (out["api_key"], again["api_key"]):
        response = http_sync.get("/v1/profiles", headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == 200
        assert response.json()["profiles"][0]["slug"] == "cli-x"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("bootstrap", "--email", "x@example.com", "--password", "short", "--org", "cli-bad"), "VALIDATION_ERROR"),
        (
            ("bootstrap", "--email", "not-an-email", "--password", "a long password", "--org", "cli-bad"),
            "VALIDATION_ERROR",
        ),
        (
            ("bootstrap", "--email", "x@example.com", "--password", "a long password", "--org", "Bad Slug"),
            "VALIDATION_ERROR",
        ),
        (("add-profile", "--org", "missing-org", "--slug", "s", "--platform", "x"), "NOT_FOUND"),
        (("credits", "--org", "missing-org", "--add", "5"), "NOT_FOUND"),
        (("plan", "--org", "missing-org", "--plan", "active"), "NOT_FOUND"),
    ],
)
@pytest.mark.one_backend  # the refusals' shape; what the database decides runs on both above and below
def test_errors_are_one_json_object_with_a_code(herald, args, code) -> None:
    status, out = herald(*args)
    assert status == 1
    assert out["code"] == code and out["error"]


def test_add_profile_rules(herald) -> None:
    herald("bootstrap", "--email", "rules@example.com", "--password", "a long password", "--org", "cli-rules")
    assert (
        herald("add-profile", "--org", "cli-rules", "--slug", "p", "--platform", "myspace")[1]["code"]
        == "VALIDATION_ERROR"
    )
    assert (
        herald("add-profile", "--org", "cli-rules", "--slug", "Bad Slug", "--platform", "x")[1]["code"]
        == "VALIDATION_ERROR"
    )
    assert herald("add-profile", "--org", "cli-rules", "--slug", "p", "--platform", "x")[0] == 0
    assert herald("add-profile", "--org", "cli-rules", "--slug", "p", "--platform", "x")[1]["code"] == "CONFLICT"
    assert herald("credits", "--org", "cli-rules", "--add", "0")[1]["code"] == "VALIDATION_ERROR"


@pytest.mark.one_backend
def test_existing_user_with_another_password_is_refused(herald) -> None:
    herald("bootstrap", "--email", "pw@example.com", "--password", "a long password", "--org", "cli-pw")
    status, out = herald("bootstrap", "--email", "pw@example.com", "--password", "another password", "--org", "cli-pw")
    assert status == 1 and out["code"] == "UNAUTHORIZED"


def _bare_cli(env: dict[str, str], *args: str) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "core", "admin", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    return proc.returncode, proc.stdout.strip().splitlines()


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--org", "acme", "--plan", "bogus"),
        ("credits", "--org", "acme"),
        ("credits", "--org", "acme", "--add", "five"),
        ("nope",),
        (),
    ],
)
def test_a_bad_or_missing_argument_is_one_json_object(tmp_path, args) -> None:
    code, lines = _bare_cli(stack_env("", tmp_path), *args)
    assert code == 2 and len(lines) == 1, lines
    assert json.loads(lines[0])["code"] == "VALIDATION_ERROR"


def test_an_unmigrated_data_directory_is_one_json_object_and_creates_nothing(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    env = {k: v for k, v in stack_env("", tmp_path).items() if k != "HERALD_DATABASE_URL"} | {
        "HERALD_DATA_DIR": str(data)
    }
    code, lines = _bare_cli(env, "credits", "--org", "acme", "--add", "5")
    assert code == 1 and len(lines) == 1, lines
    refused = json.loads(lines[0])
    assert refused["code"] == "NOT_MIGRATED" and names(refused, "herald migrate")
    assert list(data.iterdir()) == []  # no empty database file left behind
    (data / "herald.db").write_bytes(b"")  # an empty SQLite file: there, but never migrated
    code, lines = _bare_cli(env, "plan", "--org", "acme", "--plan", "active")
    assert (code, json.loads(lines[0])["code"]) == (1, "NOT_MIGRATED")
    code, lines = _bare_cli(
        stack_env("postgresql+psycopg://postgres@127.0.0.1:1/nowhere", tmp_path), "credits", "--org", "a", "--add", "1"
    )
    assert (code, json.loads(lines[0])["code"]) == (1, "DATABASE_UNAVAILABLE")


@pytest.mark.one_backend  # what a process prints where; no SQL decides it
@pytest.mark.parametrize("level", [None, "INFO"])
def test_migrate_and_admin_print_their_result_and_no_progress_lines(tmp_path, level) -> None:
    """A CLI answers on stdout and keeps stderr for warnings and errors: on a fresh SQLite, with
    the default log level (INFO, what the services log at), neither `herald migrate` nor an
    admin command writes a line on stderr (Alembic logs each migration at INFO)."""
    data = tmp_path / "data"
    env = {k: v for k, v in stack_env("", tmp_path).items() if k not in ("HERALD_DATABASE_URL", "HERALD_LOG_LEVEL")}
    env["HERALD_DATA_DIR"] = str(data)
    if level is not None:
        env["HERALD_LOG_LEVEL"] = level
    for args in (
        ("migrate",),
        ("admin", "bootstrap", "--email", "quiet@example.com", "--password", "a long password", "--org", "quiet"),
        ("admin", "add-profile", "--org", "quiet", "--slug", "quiet-x", "--platform", "x"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "core", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stderr == "", (args, proc.stderr[:2000])
        (line,) = proc.stdout.strip().splitlines()
        assert isinstance(json.loads(line), dict)
