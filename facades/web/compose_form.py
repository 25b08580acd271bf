"""The compose form (docs/dashboard.md, "Compose"): its fields as the page, the preview and the
creation read them, the POST /v1/posts body they stand for, and whether each button can act
and why not, read off the form and the core's preview (never counted here). The same form edits
a post (`edit`, the post's id): its buttons are then Save changes, and for a draft Schedule and
Publish now (compose_edit.py)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from contract.organization import DEFAULT_TIME_ZONE, time_zones
from facades.errors import ApiError
from facades.web.local_time import instant

MAX_FORM_ITEMS = 100  # items of a list field read from a form; the contract refuses more than its bound
ACTIONS = ("schedule", "publish", "draft")
EDIT_ACTIONS = ("save", "schedule", "publish")  # a post edited: Schedule and Publish now for a draft only
# What a link to the page may fill in (GET /dashboard/compose?…, the calendar's New post and free
# slots): the form's own field names. Nothing else is read from a link, the request key least of all.
LINK_FIELDS = ("content", "profiles", "schedule_at", "time_zone")
LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")  # what a datetime-local field shows
UNKNOWN_SHOWN = 5  # unknown profiles a link's problem names


@dataclass(slots=True)
class Version:
    """One profile's own version, as its panel of the form holds it ("" = the post's value)."""

    content: str = ""
    first_comment: str = ""
    title: str = ""
    post_type: str = ""
    no_thread: bool = False

    def customization(self) -> dict[str, Any]:
        """The profile's entry of `customizations` (POST /v1/posts): only what it changes."""
        entry: dict[str, Any] = {
            name: value
            for name in ("content", "first_comment", "title", "post_type")
            if (value := getattr(self, name)).strip()
        }
        if self.no_thread:
            entry["thread"] = []
        return entry


@dataclass(slots=True)
class Compose:
    """The form's fields, read once for the page, the preview and the creation alike."""

    content: str = ""
    profiles: list[str] = field(default_factory=list)
    thread: list[str] = field(default_factory=list)
    first_comment: str = ""
    media_ids: list[str] = field(default_factory=list)
    schedule_at: str = ""  # the datetime-local field: "YYYY-MM-DDTHH:MM", local to time_zone
    time_zone: str = DEFAULT_TIME_ZONE
    next_slot: bool = False
    versions: dict[str, Version] = field(default_factory=dict)
    request_key: str = ""
    edit: str = ""  # the id of the post edited ("" for a new post)
    edit_status: str = ""  # that post's status when the page was drawn: what Save changes is checked for

    def body(self, action: str) -> dict[str, Any]:
        """The JSON body of POST /v1/posts this form stands for, for `action` (schedule, publish,
        draft; the preview shows what Schedule would do, or Publish now without a time)."""
        body: dict[str, Any] = {"content": self.content, "profiles": self.profiles}
        thread = [item for item in self.thread if item.strip()]
        if thread:
            body["thread"] = [{"content": item} for item in thread]
        if self.first_comment.strip():
            body["first_comment"] = self.first_comment
        if self.media_ids:
            body["media_ids"] = self.media_ids
        customizations = {
            slug: entry
            for slug in self.profiles
            if slug in self.versions and (entry := self.versions[slug].customization())
        }
        if customizations:
            body["customizations"] = customizations
        if action == "draft":
            body["draft"] = True
            if self.schedule_at:
                body["schedule_at"] = instant(self.schedule_at, self.time_zone)
        elif action == "schedule":
            if self.next_slot:
                body["next_slot"] = True
            elif self.schedule_at:
                body["schedule_at"] = instant(self.schedule_at, self.time_zone)
        return body


def text_field(values: Mapping[str, Any] | None, name: str, limit: int = 100_000) -> str:
    value = (values.get(name) or "") if values is not None else ""
    return value[:limit] if isinstance(value, str) else ""


def _list(values: Any, name: str) -> list[str]:
    return [v for v in (values.getlist(name) or []) if isinstance(v, str)] if values is not None else []


def read_form(values: Any, *, default_zone: str = "") -> Compose:  # request.form
    """The form as sent. Text is kept as typed (the core trims nothing either); lists keep their
    order, without repeats. The form always sends its time zone; without one, a time is read in
    `default_zone` (the page: the organization's; the script's endpoints: none, so refused)."""
    profiles = list(dict.fromkeys(v.strip() for v in _list(values, "profiles") if v.strip()))
    versions = {}
    for slug in profiles:
        prefix = f"v.{slug}."
        versions[slug] = Version(
            content=text_field(values, prefix + "content"),
            first_comment=text_field(values, prefix + "first_comment"),
            title=text_field(values, prefix + "title", 1000),
            post_type=text_field(values, prefix + "post_type", 40).strip(),
            no_thread=bool(text_field(values, prefix + "no_thread", 10)),
        )
    return Compose(
        content=text_field(values, "content"),
        profiles=profiles,
        thread=_list(values, "thread")[:MAX_FORM_ITEMS],
        first_comment=text_field(values, "first_comment"),
        media_ids=list(dict.fromkeys(v.strip() for v in _list(values, "media_ids") if v.strip())),
        schedule_at=text_field(values, "schedule_at", 40).strip(),
        time_zone=text_field(values, "time_zone", 64).strip() or default_zone,
        next_slot=bool(text_field(values, "next_slot", 10)),
        versions=versions,
        request_key=text_field(values, "request_key", 64).strip(),
        edit=text_field(values, "edit", 80).strip(),
        edit_status=text_field(values, "edit_status", 20).strip(),
    )


@dataclass(slots=True)
class Link:
    """A link's form: what it filled in, the fields it named (a draft the script restores leaves
    them alone), and what the form could not take from it (None when it took everything)."""

    form: Compose
    named: list[str]
    problem: ApiError | None


def _local_time_problem(local: str, zone: str) -> str:
    """Why the form cannot show `local` in `zone` ("" when it can): not YYYY-MM-DDTHH:MM (what a
    datetime-local field shows), or a time the zone skips."""
    if not LOCAL_TIME.fullmatch(local):
        return "Schedule at must be a date and a time (YYYY-MM-DDTHH:MM)"
    try:
        instant(local, zone)
    except ApiError as refused:
        return refused.message
    return ""


def read_link(values: Any, *, profiles: Collection[str], default_zone: str) -> Link:  # request.args
    """The form a link fills in from its query (LINK_FIELDS), each value checked as the form checks
    it: a profile the organization has is checked, a zone the form lists is chosen, a time a
    datetime-local field can show (YYYY-MM-DDTHH:MM) that exists in that zone is set, the content
    is kept as typed. What fails is left at the form's default (no profile, the organization's
    zone, no time) and said in one VALIDATION_ERROR, its argument the first field refused."""
    named = [name for name in LINK_FIELDS if any(v.strip() for v in _list(values, name))]
    problems: list[tuple[str, str]] = []
    asked = list(dict.fromkeys(v.strip() for v in _list(values, "profiles") if v.strip()))[:MAX_FORM_ITEMS]
    unknown = [slug for slug in asked if slug not in profiles]
    if unknown:
        more = f" and {len(unknown) - UNKNOWN_SHOWN} more" if len(unknown) > UNKNOWN_SHOWN else ""
        shown = ", ".join(repr(slug[:64]) for slug in unknown[:UNKNOWN_SHOWN])
        problems.append(("profiles", f"unknown profiles: {shown}{more}"))
    zone = text_field(values, "time_zone", 64).strip()
    if zone and zone not in time_zones():
        problems.append(("time_zone", f"time zone {zone!r} is not an IANA time zone, so {default_zone} is chosen"))
        zone = ""
    zone = zone or default_zone
    schedule_at = text_field(values, "schedule_at", 40).strip()
    if schedule_at:
        why = _local_time_problem(schedule_at, zone)
        if why:
            problems.append(("schedule_at", why))
            schedule_at = ""
    form = Compose(
        content=text_field(values, "content"),
        profiles=[slug for slug in asked if slug in profiles],
        schedule_at=schedule_at,
        time_zone=zone,
    )
    if not problems:
        return Link(form, named, None)
    message = "; ".join(why for _, why in problems)
    problem = ApiError(
        "VALIDATION_ERROR", f"The link could not fill in everything: {message}.", {"argument": problems[0][0]}
    )
    return Link(form, named, problem)


def _action(enabled: bool, reason: str = "") -> dict[str, Any]:
    return {"enabled": enabled, "reason": "" if enabled else reason}


def _not_ready(preview: dict[str, Any]) -> str:
    """Why the preview's post cannot be created, in a line: the first problem, and who has one."""
    if preview["problems"]:
        first = preview["problems"][0]
        return f"Fix the post first: {first['code']}: {first['message']}"
    failing = [d["profile"] for d in preview["destinations"] if not d["valid"]]
    return f"Fix the problems of {', '.join(failing)} first (shown on {'its card' if len(failing) == 1 else 'their cards'})."


def actions(form: Compose, preview: dict[str, Any] | None, problem: ApiError | None) -> dict[str, Any]:
    """Whether each button can act, and why not: read off the form and the core's preview (the
    verdicts, the cost and the balance), never counted here. Save changes (a post edited) is
    Save draft's for a draft, whose rules are checked when it is scheduled, and otherwise needs a
    post the destination takes, as the core checks it then."""
    missing = (
        "Write the post's text in Content first."
        if not form.content.strip()
        else "Choose at least one profile first."
        if not form.profiles
        else ""
    )
    if missing or problem is not None or preview is None:
        reason = missing or (f"{problem.message[:1].upper()}{problem.message[1:]}." if problem else "")
        return {name: _action(False, reason) for name in (*ACTIONS, *(("save",) if form.edit else ()))}
    not_ready = "" if preview["valid"] else _not_ready(preview)
    credits = preview["credits"]
    if not_ready:
        publish = _action(False, not_ready)
    elif not preview["deliverable"]:
        publish = _action(
            False, f"Not enough credits: this costs {credits['required']}, the balance is {credits['balance']}."
        )
    else:
        publish = _action(True)
    when = (
        "" if form.next_slot or form.schedule_at else "Choose a date and time in Schedule at, or Next free slot, first."
    )
    shown = {
        "schedule": _action(not when and not not_ready, when or not_ready),
        "publish": publish,
        "draft": _action(True),
    }
    if form.edit:
        shown["save"] = shown["draft"] if form.edit_status == "draft" else _action(not not_ready, not_ready)
    return shown
