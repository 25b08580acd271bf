"""Sign-up, sign-in and sign-out pages: the forms that open and close a dashboard session."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import quote, unquote

from herald.identity.v1 import accounts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web import csrf
from facades.web.pages import Route, form_value, notice, page_errors, safe_next, see_other
from facades.web.session import current_viewer, session_token, set_session_cookie
from facades.web.templating import render

# One answer for every failed sign-in: nothing tells which of the email or the password was wrong.
SIGN_IN_FAILED = "The email or password is not right."
SIGN_IN_THROTTLED = "Too many failed sign-ins for this account. Try again in 15 minutes."
SIGN_IN_RATE_LIMITED = "Too many sign-in attempts from your network or for this email."
SIGN_UP_RATE_LIMITED = "Too many sign-ups from your network."
# Sign-up answers alike whether or not the email has an account (docs/dashboard.md), so the
# sign-in page it leads to speaks to both.
SIGNED_UP = (
    "If this email is new, your account and organization are ready: sign in. "
    "If you already have an account, sign in with its password."
)
SIGN_UP_CLOSED = "Sign-up is closed on this Herald: an operator creates accounts."
# Where sign-up leaves the email for the sign-in form: a cookie, not the URL, so that the
# answer is the same for every email and the address stays out of logs and history.
SIGNED_UP_EMAIL_COOKIE = "herald_signup_email"
MAX_EMAIL_LENGTH = 320


def _wait(error: ApiError) -> str:
    seconds = error.retry_after or 60
    return f"{-(-seconds // 60)} minutes" if seconds > 90 else f"{seconds} seconds"


def too_many(request: Request, error: ApiError, template: str, message: str, **context: object) -> HTTPResponse:
    """429 with the form and the wait, in words and in Retry-After (a spent budget: the sign-in
    and sign-up forms here, the invitation page's)."""
    response = render(request, template, status=429, error=f"{message} Try again in {_wait(error)}.", **context)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def _signed_up_email(request: Request) -> str:
    value = unquote(request.cookies.get(SIGNED_UP_EMAIL_COOKIE) or "")
    return value if len(value) <= MAX_EMAIL_LENGTH and value.isprintable() else ""


def sign_in_refused(request: Request, error: ApiError, template: str, **context: object) -> HTTPResponse:
    """The sign-in form again with why SignIn refused (this page's and the invitation page's): a
    locked account is 429, a spent budget 429 with the wait, anything about the email or the
    password one answer, 401; any other error is raised."""
    if error.code == "TOO_MANY_ATTEMPTS":
        return render(request, template, status=429, error=SIGN_IN_THROTTLED, **context)
    if error.code == "RATE_LIMITED":
        return too_many(request, error, template, SIGN_IN_RATE_LIMITED, **context)
    if error.code not in ("UNAUTHORIZED", "VALIDATION_ERROR", "NOT_FOUND"):
        raise error
    return render(request, template, status=401, error=SIGN_IN_FAILED, **context)


def signed_in_response(request: Request, session: accounts_pb2.Session, target: str) -> HTTPResponse:
    """303 to `target` with the session's cookie: how every form that signs in ends."""
    response = see_other(target)
    expires = datetime.fromtimestamp(session.expire_time.seconds, UTC)
    set_session_cookie(response, request, session.token, expires)
    return response


@page_errors
async def landing(request: Request) -> HTTPResponse:
    """What Herald is, and where to go: sign up or in, the API, the agent guide (issue 13)."""
    signed_in = bool(session_token(request)) and await current_viewer(request) is not None
    return render(request, "landing.html", signed_in=signed_in)


@page_errors
async def login_form(request: Request) -> HTTPResponse:
    """The sign-in form; a visitor already signed in goes straight on to `next`."""
    target = safe_next(request.args.get("next"))
    if session_token(request) and await current_viewer(request) is not None:
        return see_other(target or "/dashboard")
    if request.args.get("notice") == "signed-up":
        return render(request, "login.html", next=target, email=_signed_up_email(request), flash=SIGNED_UP)
    return render(request, "login.html", next=target, email="", flash=notice(request))


@page_errors
async def login(request: Request) -> HTTPResponse:
    """Signs in: the session cookie, then `next` (a local path) or the overview."""
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
        return sign_in_refused(request, error, "login.html", next=target, email=email)
    return signed_in_response(request, result.response, target or "/dashboard")


@page_errors
async def signup_form(request: Request) -> HTTPResponse:
    """The sign-up form, or a page saying sign-up is closed."""
    core = request.app.ctx.core
    policy = await core.call(core.accounts.GetSignUpPolicy, accounts_pb2.GetSignUpPolicyRequest(), authorization=None)
    closed = not policy.response.open
    return render(request, "signup.html", email="", organization="", closed=closed)


@page_errors
async def signup(request: Request) -> HTTPResponse:
    """Creates the user and the organization (or, for an email that has an account, nothing),
    and answers both alike: the sign-in page with the email filled in."""
    csrf.check(request, signed_in=False)
    email = form_value(request, "email")
    organization = form_value(request, "organization").lower()
    password = (request.form or {}).get("password") or ""
    core = request.app.ctx.core
    form = {"email": email, "organization": organization}
    try:
        await core.call(
            core.accounts.SignUp,
            accounts_pb2.SignUpRequest(email=email, password=password, organization=organization),
            authorization=None,
        )
    except ApiError as error:
        if error.code == "FORBIDDEN":
            return render(request, "signup.html", status=403, closed=True, error=SIGN_UP_CLOSED, **form)
        if error.code == "RATE_LIMITED":
            return too_many(request, error, "signup.html", SIGN_UP_RATE_LIMITED, **form)
        if error.code not in ("VALIDATION_ERROR", "CONFLICT"):
            raise
        return render(request, "signup.html", status=error.http_status, error=error.message, **form)
    # The same answer whether the account is new or the email already had one: the
    # sign-in page, the email filled in, one notice for both cases.
    response = see_other("/login?notice=signed-up")
    response.add_cookie(
        SIGNED_UP_EMAIL_COOKIE,
        quote(email[:MAX_EMAIL_LENGTH], safe="@"),
        path="/login",
        max_age=600,
        httponly=True,
        samesite="Lax",
        secure=request.app.ctx.settings.base_url.startswith("https://"),
    )
    return response


async def end_session(request: Request) -> None:
    """Ends the request's session in the core (SignOut); one already over is left as it is. The
    caller deletes the cookie with its redirect."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.accounts.SignOut, accounts_pb2.SignOutRequest(), authorization=f"Bearer {session_token(request)}"
        )
    except ApiError as error:
        if error.code != "UNAUTHORIZED":  # already over: nothing left to end
            raise


@page_errors
async def logout(request: Request) -> HTTPResponse:
    """Ends the session in the core and deletes the cookie."""
    if session_token(request) is None:
        return see_other("/login")
    csrf.check(request, signed_in=True)
    await end_session(request)
    return see_other("/login?notice=signed-out", clear_session=True, request=request)


ROUTES = (
    Route("GET", "/", landing),
    Route("GET", "/login", login_form),
    Route("POST", "/login", login),
    Route("GET", "/signup", signup_form),
    Route("POST", "/signup", signup),
    Route("POST", "/logout", logout),
)
