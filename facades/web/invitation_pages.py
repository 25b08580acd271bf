"""The page an invitation link opens, `/invitations/<token>` (docs/teams.md, "Invitations";
docs/dashboard.md, "Members"). Public: the link's token is the proof, read with GetInvitation and
no session. It says which organization invites which email, with which role, until when, and
offers the one way in that fits the visitor:
- nobody signed in, the email without an account: create it (SignUpByInvitation, which works
  even with sign-up closed), signed in and joined at once;
- nobody signed in, the email with an account: its password (SignInByInvitation, the sign-in's
  throttling and budgets as on /login), joined with a session there, also for an account that
  belongs to no organization yet;
- signed in as the invited email: join; signed in as another email: say so and offer to sign out.
Each way ends on the dashboard with the session cookie set as /login sets it. A used, expired or
revoked link is a 410 page saying which; an unknown one a 404.

The token must not reach anyone else: like every page this one is sent with `Referrer-Policy:
no-referrer` (templating.py) and loads nothing from another origin, so leaving it for another
site carries no trace of the link."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from herald.identity.v1 import accounts_pb2, members_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web import csrf
from facades.web.accounts_pages import (
    SIGN_UP_RATE_LIMITED,
    end_session,
    sign_in_refused,
    signed_in_response,
    too_many,
)
from facades.web.members_pages import in_words
from facades.web.pages import Route, page_errors, see_other, when
from facades.web.session import current_viewer, session_token
from facades.web.templating import render

TEMPLATE = "invitation.html"
GET_INVITATION = rpc_path(members_pb2, "MemberService", "GetInvitation")
ACCEPT_INVITATION = rpc_path(members_pb2, "MemberService", "AcceptInvitation")
EXPIRY_ZONE = "UTC"  # the visitor may belong to no organization yet: times are shown in UTC, named

# A closed link's page: its heading and why, by state.
CLOSED = {
    "accepted": ("This invitation was already used", "Its link works once, and someone joined with it."),
    "expired": ("This invitation has expired", "Its link stopped working on {expires}."),
    "revoked": ("This invitation was revoked", "Someone at the organization took it back."),
}
# What the page says after a redirect (`?notice=`): a fixed table, nothing a link carries is shown.
NOTICES = {
    "already-member": "You are signed in, and already a member of this organization: "
    "switch to it with the organization menu of the dashboard.",
}
# The core's refusals of a join a human can act on: the page again with its words.
JOIN_REFUSALS = ("FORBIDDEN", "CONFLICT", "INVITATION_CLOSED")


async def _read(request: Request, token: str) -> members_pb2.InvitationView | None:
    """What the link is for; None for a token that is no invitation's."""
    core = request.app.ctx.core
    try:
        result = await core.call(
            core.method(GET_INVITATION), members_pb2.GetInvitationRequest(token=token), authorization=None
        )
    except ApiError as error:
        if error.code != "NOT_FOUND":
            raise
        return None
    return result.response


def _organization(invited: members_pb2.InvitationView) -> str:
    return invited.organization_name or invited.organization_slug


async def _context(request: Request, token: str, invited: members_pb2.InvitationView) -> dict[str, Any]:
    """What the page of a pending invitation shows, and which way in it offers (`way`)."""
    viewer = await current_viewer(request) if session_token(request) else None
    signed_in_as = viewer.principal.email if viewer else ""
    if not viewer:
        way = "sign-in" if invited.has_account else "sign-up"
    else:
        way = "join" if signed_in_as.casefold() == invited.email.casefold() else "other"
    roles = (await request.app.ctx.contract.get()).catalog.message.roles
    return {
        "token": token,
        "invited": invited,
        "organization": _organization(invited),
        "role_description": next((r.description for r in roles if r.name == invited.role), ""),
        "expires": when(invited.expire_time, EXPIRY_ZONE),
        "way": way,
        "signed_in_as": signed_in_as,
        "flash": NOTICES.get(request.args.get("notice", "")),
    }


async def _answer(
    request: Request,
    token: str,
    invited: members_pb2.InvitationView | None,
    *,
    status: int = 200,
    error: str | None = None,
) -> HTTPResponse:
    """The link's page: 404 for an unknown token, 410 for a closed link, else the way in (with
    `error`, a refusal in words, at `status`)."""
    if invited is None:
        return render(
            request,
            "message.html",
            status=404,
            heading="No such invitation",
            message="Herald knows no invitation with this link. Check that it was copied whole, "
            "or ask for a new invitation.",
            role_alert=True,
        )
    if invited.state != "pending":
        heading, why = CLOSED.get(invited.state, ("This invitation no longer works", ""))
        why = why.format(expires=when(invited.expire_time, EXPIRY_ZONE))
        return render(
            request,
            "message.html",
            status=410,
            heading=heading,
            message=f"{why} Ask someone at {_organization(invited)} to invite you again.",
            role_alert=True,
            link="/login",
            link_text="Sign in to Herald",
        )
    return render(request, TEMPLATE, status=status, error=error, **await _context(request, token, invited))


def _back(token: str) -> str:
    return f"/invitations/{quote(token, safe='')}"


@page_errors
async def invitation(request: Request, token: str) -> HTTPResponse:
    """What the link is for, and the way in that fits the visitor."""
    return await _answer(request, token, await _read(request, token))


@page_errors
async def sign_up_and_join(request: Request, token: str) -> HTTPResponse:
    """Creates the invited email's account with the password typed (SignUpByInvitation: it joins
    with the invitation's role and opens a session there), then the dashboard, signed in."""
    csrf.check(request, signed_in=False)
    password = (request.form or {}).get("password") or ""
    core = request.app.ctx.core
    try:
        result = await core.call(
            core.accounts.SignUpByInvitation,
            accounts_pb2.SignUpByInvitationRequest(token=token, password=password),
            authorization=None,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "CONFLICT", "INVITATION_CLOSED", "NOT_FOUND", "RATE_LIMITED"):
            raise
        invited = await _read(request, token)
        if error.code == "RATE_LIMITED" and invited is not None and invited.state == "pending":
            context = await _context(request, token, invited)
            return too_many(request, error, TEMPLATE, SIGN_UP_RATE_LIMITED, **context)
        return await _answer(request, token, invited, status=error.http_status, error=in_words(error))
    return signed_in_response(request, result.response, "/dashboard")


@page_errors
async def sign_in_and_join(request: Request, token: str) -> HTTPResponse:
    """Joins as the invited email's account, checked by its password (SignInByInvitation: the
    sign-in's throttling and budgets, as /login; it works for an account with no organization
    yet), with a session in the organization joined: the dashboard, signed in."""
    csrf.check(request, signed_in=False)
    invited = await _read(request, token)
    if invited is None or invited.state != "pending":
        return await _answer(request, token, invited)
    password = (request.form or {}).get("password") or ""
    core = request.app.ctx.core
    try:
        joined = await core.call(
            core.accounts.SignInByInvitation,
            accounts_pb2.SignInByInvitationRequest(token=token, password=password),
            authorization=None,
        )
    except ApiError as error:
        if error.code in ("CONFLICT", "INVITATION_CLOSED", "NOT_FOUND"):
            return await _answer(
                request, token, await _read(request, token), status=error.http_status, error=in_words(error)
            )
        return sign_in_refused(request, error, TEMPLATE, **await _context(request, token, invited))
    return signed_in_response(request, joined.response, "/dashboard")


async def _accept(request: Request, token: str, session: str) -> None:
    core = request.app.ctx.core
    await core.call(
        core.method(ACCEPT_INVITATION),
        members_pb2.AcceptInvitationRequest(token=token),
        authorization=f"Bearer {session}",
    )


@page_errors
async def join(request: Request, token: str) -> HTTPResponse:
    """Joins with the session the visitor has (AcceptInvitation: the invited email's only), then
    the dashboard, in the organization joined."""
    session = session_token(request)
    if session is None:
        return see_other(_back(token))
    csrf.check(request, signed_in=True)
    try:
        await _accept(request, token, session)
    except ApiError as error:
        if error.code == "UNAUTHORIZED":  # the session ended meanwhile: the link's page, signed out
            return see_other(_back(token), clear_session=True, request=request)
        if error.code not in (*JOIN_REFUSALS, "NOT_FOUND"):
            raise
        invited = await _read(request, token)
        return await _answer(request, token, invited, status=error.http_status, error=in_words(error))
    return see_other("/dashboard")


@page_errors
async def sign_out(request: Request, token: str) -> HTTPResponse:
    """Signs out the account the visitor is signed in with (not the invited one), then back to
    the link's page, which then offers the invited email's way in."""
    if session_token(request) is not None:
        csrf.check(request, signed_in=True)
        await end_session(request)
    return see_other(_back(token), clear_session=True, request=request)


ROUTES = (
    Route("GET", "/invitations/<token:str>", invitation),
    Route("POST", "/invitations/<token:str>/sign-up", sign_up_and_join),
    Route("POST", "/invitations/<token:str>/sign-in", sign_in_and_join),
    Route("POST", "/invitations/<token:str>/join", join),
    Route("POST", "/invitations/<token:str>/sign-out", sign_out),
)
