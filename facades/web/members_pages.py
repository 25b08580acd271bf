"""The organization's members in the dashboard (docs/dashboard.md, "Members"; docs/teams.md): who
is in it with which role and which profile limits, and, for a member whose role may manage
members, the forms that change a role or a member's limits, remove a member, invite an email with
a role and limits (the link shown once, on the answer) and revoke an open invitation.

The core decides everything: the roles and what each may do are its catalog's (never a list kept
here), whether the caller may manage members is read off their own row of ListMembers (marked
`is_caller`, with its role: no call of its own), and each refusal (LAST_OWNER, FORBIDDEN, …) is
the page again with the core's words."""

from __future__ import annotations

from typing import Any

from herald.identity.v1 import accounts_pb2, members_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, see_other, signed_in, when
from facades.web.profiles_pages import tags_of
from facades.web.session import Viewer

MANAGE = "manage_members"  # the permission the forms need (the core's catalog says which roles carry it)

# Outcomes of a Post/Redirect/Get on this page (`?notice=`): a fixed table, as pages.NOTICES.
NOTICES = {
    "role-changed": "The role is changed. It holds from their next request, on every session, API key and agent of theirs.",
    "limits-changed": "The profile limits are changed. They hold from their next request, on every session, API key "
    "and agent of theirs.",
    "member-removed": "The member is removed: their sessions, API keys and agents in this organization stop working.",
    "invitation-revoked": "The invitation is revoked: its link no longer works.",
}

# The core's refusals a human can act on, shown on the page in its words; anything else is a
# failure page.
_SHOWN = ("FORBIDDEN", "NOT_FOUND", "VALIDATION_ERROR", "CONFLICT", "LAST_OWNER", "INVITATION_CLOSED")


async def _call(request: Request, viewer: Viewer, method: str, message: Any) -> Any:  # a proto
    """Calls a MemberService method with the viewer's session; its response."""
    core = request.app.ctx.core
    path = rpc_path(members_pb2, "MemberService", method)
    return (await core.call(core.method(path), message, authorization=viewer.authorization)).response


async def _roles(request: Request) -> list[dict[str, Any]]:
    """The roles, best first, each with its description and permissions (in the catalog's order
    of permissions): the core's catalog."""
    catalog = (await request.app.ctx.contract.get()).catalog.message
    order = [p.name for p in catalog.permissions]
    return [
        {"name": r.name, "description": r.description, "permissions": [p for p in order if p in r.permissions]}
        for r in catalog.roles
    ]


def in_words(error: ApiError) -> str:
    """A refusal as the page says it: the core's message, as a sentence."""
    text = error.message.strip()
    return f"{text[:1].upper()}{text[1:]}{'' if text.endswith('.') else '.'}"


def _member(member: members_pb2.Member, zone: str) -> dict[str, Any]:
    return {
        "user_id": member.user_id,
        "email": member.email,
        "role": member.role,
        "joined": when(member.join_time, zone),
        "you": member.is_caller,
        "profile_tags": list(member.profile_tags),
        "limits": ", ".join(member.profile_tags),  # what its limits field holds
    }


def _invitation(invitation: members_pb2.Invitation, zone: str) -> dict[str, Any]:
    return {
        "id": invitation.id,
        "email": invitation.email,
        "role": invitation.role,
        "state": invitation.state,
        "expires": when(invitation.expire_time, zone),
        "invited_by": invitation.invited_by,
        "profile_tags": list(invitation.profile_tags),
    }


async def members_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    failure: ApiError | None = None,
    invite: dict[str, str] | None = None,
    limits: tuple[str, str] | None = None,
    created: members_pb2.CreatedInvitation | None = None,
) -> HTTPResponse:
    """The members, and for a manager the forms and the open invitations; `failure` is a refused
    form's error, `invite` the invite form as sent, `limits` a member's limits form as sent (their
    user id, the text), `created` an invitation just made (its link exists only in this answer)."""
    listed = await _call(request, viewer, "ListMembers", members_pb2.ListMembersRequest())
    zone = viewer.time_zone
    members = [_member(m, zone) for m in listed.members]
    for m in members:
        if limits and m["user_id"] == limits[0]:
            m["limits"] = limits[1]  # a refused change keeps what was typed
    my_role = next((m.role for m in listed.members if m.is_caller), "")
    roles = await _roles(request)
    manages = any(r["name"] == my_role and MANAGE in r["permissions"] for r in roles)
    invitations = []
    if manages:
        opened = await _call(request, viewer, "ListInvitations", members_pb2.ListInvitationsRequest())
        invitations = [_invitation(i, zone) for i in opened.invitations]
    shown = created and {
        "url": created.url,
        "emailed": created.emailed,
        **_invitation(created.invitation, zone),
    }
    return await dashboard_page(
        request,
        viewer,
        "members.html",
        "members",
        status=status,
        flash=NOTICES.get(request.args.get("notice", "")),
        failure=failure and {"code": failure.code, "words": in_words(failure)},
        members=members,
        my_role=my_role,
        manages=manages,
        managers=[r["name"] for r in roles if MANAGE in r["permissions"]],
        roles=roles,
        invitations=invitations,
        invite=invite or {"email": "", "role": roles[-1]["name"] if roles else "", "profile_tags": ""},
        created=shown,
    )


async def _refused(request: Request, viewer: Viewer, error: ApiError, **context: Any) -> HTTPResponse:
    """The page again with a refusal the human can act on, in the core's words; anything else
    is raised to the failure page."""
    if error.code not in _SHOWN:
        raise error
    return await members_page(request, viewer, status=error.http_status, failure=error, **context)


@signed_in
async def members(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's members and, for a manager, its open invitations and the forms."""
    return await members_page(request, viewer)


@signed_in
async def invite(request: Request, viewer: Viewer) -> HTTPResponse:
    """Invites an email with a role and profile limits (CreateInvitation; the tags comma-separated,
    none for every profile): the page with the link, shown this once (rendered, not redirected,
    like a new API key), and whether it was emailed."""
    form = {name: form_value(request, name) for name in ("email", "role", "profile_tags")}
    message = members_pb2.CreateInvitationRequest(
        email=form["email"], role=form["role"], profile_tags=tags_of(form["profile_tags"])
    )
    try:
        created = await _call(request, viewer, "CreateInvitation", message)
    except ApiError as error:
        return await _refused(request, viewer, error, invite=form)
    return await members_page(request, viewer, status=201, created=created)


@signed_in
async def revoke_invitation(request: Request, viewer: Viewer, invitation_id: str) -> HTTPResponse:
    """Revokes an open invitation: its link no longer works."""
    try:
        await _call(
            request, viewer, "RevokeInvitation", members_pb2.RevokeInvitationRequest(invitation_id=invitation_id)
        )
    except ApiError as error:
        return await _refused(request, viewer, error)
    return see_other("/dashboard/members?notice=invitation-revoked")


@signed_in
async def change_role(request: Request, viewer: Viewer, user_id: str) -> HTTPResponse:
    """Gives a member the role chosen (UpdateMember): it holds from their next request."""
    message = members_pb2.UpdateMemberRequest(user_id=user_id, role=form_value(request, "role"))
    try:
        await _call(request, viewer, "UpdateMember", message)
    except ApiError as error:
        return await _refused(request, viewer, error)
    return see_other("/dashboard/members?notice=role-changed")


@signed_in
async def change_limits(request: Request, viewer: Viewer, user_id: str) -> HTTPResponse:
    """Replaces a member's profile limits (UpdateMember with profile_tags; the tags comma-separated,
    none to lift them): they hold from the member's next request. A refusal keeps what was typed."""
    typed = form_value(request, "profile_tags")
    message = members_pb2.UpdateMemberRequest(
        user_id=user_id, profile_tags=accounts_pb2.StringList(values=tags_of(typed))
    )
    try:
        await _call(request, viewer, "UpdateMember", message)
    except ApiError as error:
        return await _refused(request, viewer, error, limits=(user_id, typed))
    return see_other("/dashboard/members?notice=limits-changed")


@signed_in
async def remove_member(request: Request, viewer: Viewer, user_id: str) -> HTTPResponse:
    """Removes a member (RemoveMember): their sessions, API keys and agent grants stop at once."""
    try:
        await _call(request, viewer, "RemoveMember", members_pb2.RemoveMemberRequest(user_id=user_id))
    except ApiError as error:
        return await _refused(request, viewer, error)
    return see_other("/dashboard/members?notice=member-removed")


ROUTES = (
    Route("GET", "/dashboard/members", members),
    Route("POST", "/dashboard/members/invitations", invite),
    Route("POST", "/dashboard/members/invitations/<invitation_id:str>/revoke", revoke_invitation),
    Route("POST", "/dashboard/members/<user_id:str>/role", change_role),
    Route("POST", "/dashboard/members/<user_id:str>/limits", change_limits),
    Route("POST", "/dashboard/members/<user_id:str>/remove", remove_member),
)
