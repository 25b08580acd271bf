"""Email verification's pages (docs/teams.md, "Email verification"): the link sent at sign-up,
`/verify-email/<token>` (public: its token is the proof), and "Send a new link" for a signed-in
member whose address waits (the overview's notice posts it). Both call the core (VerifyEmail,
ResendVerification); the link's page loads nothing from elsewhere and sends no referrer, as every
page does, so its token goes nowhere else."""

from __future__ import annotations

from herald.identity.v1 import accounts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, page_errors, see_other, signed_in
from facades.web.session import Viewer
from facades.web.templating import render


@page_errors
async def verify_email(request: Request, token: str) -> HTTPResponse:
    """Confirms the address the link was sent to (VerifyEmail); an unknown, used or expired link
    is one 404 page."""
    core = request.app.ctx.core
    try:
        verified = await core.call(
            core.accounts.VerifyEmail, accounts_pb2.VerifyEmailRequest(token=token), authorization=None
        )
    except ApiError as error:
        if error.code != "NOT_FOUND":
            raise
        return render(
            request,
            "message.html",
            status=404,
            heading="This link does not work",
            message="The confirmation link is unknown, already used or more than 48 hours old. Sign in: the "
            "dashboard sends a new one.",
            link="/login",
            link_text="Sign in",
        )
    return render(
        request,
        "message.html",
        heading="Email address confirmed",
        message=f"{verified.response.email} is confirmed: your organization can publish now.",
        link="/dashboard",
        link_text="Go to the dashboard",
    )


@signed_in
async def resend(request: Request, viewer: Viewer) -> HTTPResponse:
    """A new confirmation link by mail (ResendVerification), then the dashboard saying whether."""
    core = request.app.ctx.core
    sent = await core.call(
        core.accounts.ResendVerification, accounts_pb2.ResendVerificationRequest(), authorization=viewer.authorization
    )
    return see_other("/dashboard?notice=" + ("verification-sent" if sent.response.sent else "verification-not-sent"))


ROUTES = (
    Route("GET", "/verify-email/<token:str>", verify_email),
    Route("POST", "/dashboard/verification/resend", resend),
)
