"""Sign-up, sign-in and sign-out pages: the forms that open and close a dashboard session."""

from __future__ import annotations

from datetime import UTC, datetime

from herald.identity.v1 import accounts_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web import csrf
from facades.web.pages import form_value, notice, page_errors, safe_next, see_other
from facades.web.session import current_viewer, session_token, set_session_cookie
from facades.web.templating import render

# One answer for every failed sign-in (SPEC 5: nothing tells which of email or password was wrong).
SIGN_IN_FAILED = "The email or password is not right."
SIGN_IN_THROTTLED = "Too many failed sign-ins for this account. Try again in 15 minutes."


def _signed_in_response(request: Request, session: accounts_pb2.Session, target: str) -> HTTPResponse:
    response = see_other(target)
    expires = datetime.fromtimestamp(session.expire_time.seconds, UTC)
    set_session_cookie(response, request, session.token, expires)
    return response


def accounts_blueprint() -> Blueprint:
    bp = Blueprint("dashboard_accounts")

    @bp.get("/")
    @page_errors
    async def landing(request: Request) -> HTTPResponse:
        """What Herald is, and where to go: sign up or in, the API, the agent guide (issue 13)."""
        signed_in = bool(session_token(request)) and await current_viewer(request) is not None
        return render(request, "landing.html", signed_in=signed_in)

    @bp.get("/login")
    @page_errors
    async def login_form(request: Request) -> HTTPResponse:
        target = safe_next(request.args.get("next"))
        if session_token(request) and await current_viewer(request) is not None:
            return see_other(target or "/dashboard")
        return render(request, "login.html", next=target, email="", flash=notice(request))

    @bp.post("/login")
    @page_errors
    async def login(request: Request) -> HTTPResponse:
        csrf.check(request, signed_in=False)
        target = safe_next(form_value(request, "next"))
        email = form_value(request, "email")
        password = (request.form or {}).get("password") or ""
        core = request.app.ctx.core
        try:
            result = await core.call(
                core.accounts.SignIn, accounts_pb2.SignInRequest(email=email, password=password), authorization=None
            )
        except ApiError as error:
            if error.code == "TOO_MANY_ATTEMPTS":
                return render(request, "login.html", status=429, next=target, email=email, error=SIGN_IN_THROTTLED)
            if error.code not in ("UNAUTHORIZED", "VALIDATION_ERROR", "NOT_FOUND"):
                raise
            return render(request, "login.html", status=401, next=target, email=email, error=SIGN_IN_FAILED)
        return _signed_in_response(request, result.response, target or "/dashboard")

    @bp.get("/signup")
    @page_errors
    async def signup_form(request: Request) -> HTTPResponse:
        return render(request, "signup.html", email="", organization="")

    @bp.post("/signup")
    @page_errors
    async def signup(request: Request) -> HTTPResponse:
        csrf.check(request, signed_in=False)
        email = form_value(request, "email")
        organization = form_value(request, "organization").lower()
        password = (request.form or {}).get("password") or ""
        core = request.app.ctx.core
        try:
            result = await core.call(
                core.accounts.SignUp,
                accounts_pb2.SignUpRequest(email=email, password=password, organization=organization),
                authorization=None,
            )
        except ApiError as error:
            if error.code not in ("VALIDATION_ERROR", "CONFLICT"):
                raise
            return render(
                request,
                "signup.html",
                status=error.http_status,
                email=email,
                organization=organization,
                error=error.message,
            )
        return _signed_in_response(request, result.response, "/dashboard")

    @bp.post("/logout")
    @page_errors
    async def logout(request: Request) -> HTTPResponse:
        if session_token(request) is None:
            return see_other("/login")
        csrf.check(request, signed_in=True)
        core = request.app.ctx.core
        try:
            await core.call(
                core.accounts.SignOut,
                accounts_pb2.SignOutRequest(),
                authorization=f"Bearer {session_token(request)}",
            )
        except ApiError as error:
            if error.code != "UNAUTHORIZED":  # already over: nothing left to end
                raise
        return see_other("/login?notice=signed-out", clear_session=True, request=request)

    return bp
