"""The endpoints the compose page's script (static/compose.js) calls with the form's fields, the
session cookie and the form's CSRF token (docs/dashboard.md, "Compose"): the preview while the
human types (POST /dashboard/compose/preview, the core's PreviewPosts: every count, problem and
the cost are the core's), the creation (POST /dashboard/compose/create) and an edited post's
save (POST /dashboard/compose/save, compose_edit.save_edit). They answer JSON, and 401 when the
session is gone, so the page can ask to sign in again without losing the text."""

from __future__ import annotations

from typing import Any

from sanic import Request
from sanic.response import HTTPResponse, json

from contract.operations import TOOLS
from contract.writing import PreviewPostsRequest
from facades.errors import ApiError
from facades.validation import validate
from facades.web.compose_edit import save_edit
from facades.web.compose_form import ACTIONS, Compose, actions, read_form, text_field
from facades.web.compose_pages import CREATED_NOTICE, SIGN_IN, create_posts
from facades.web.pages import Route
from facades.web.scripted import NO_STORE, json_error, scripted

PREVIEW_OPERATION = TOOLS["preview_post"]  # its JSON is what the cards render, here and in the MCP app


@scripted(sign_in=SIGN_IN)
async def preview(request: Request, authorization: str) -> HTTPResponse:
    """The preview of the form as it is (PreviewPosts): each destination's parts counted against
    their limits, every problem, the cost and the balance, and what each button can do. An
    edited post's is previewed without its time: an unchanged one, maybe past (a queued post's),
    is not sent (compose_edit.changes), and Save changes is for what the destination takes."""
    form = read_form(request.form)
    if not form.content.strip() or not form.profiles:
        return _answer(form, None)
    contract = await request.app.ctx.contract.get()
    try:
        body = form.body("publish" if form.edit else "schedule")
        message = validate(contract.model(PreviewPostsRequest), body).to_proto()
    except ApiError as error:  # the request's own shape: the core would refuse it before any check
        return _answer(form, None, error)
    core = request.app.ctx.core
    result = await core.call(core.posts.PreviewPosts, message, authorization=authorization)
    _, shown = PREVIEW_OPERATION.render(result.response, contract)
    return _answer(form, shown)


def _answer(form: Compose, shown: dict[str, Any] | None, problem: ApiError | None = None) -> HTTPResponse:
    """The preview endpoint's answer: the preview (POST /v1/posts:preview's JSON) or the request's
    own problem, and what each button may do."""
    refused = problem and {"code": problem.code, "message": problem.message, "argument": problem.argument}
    return json(
        {"preview": shown, "problem": refused or None, "actions": actions(form, shown, problem)}, headers=NO_STORE
    )


@scripted(sign_in=SIGN_IN)
async def create(request: Request, authorization: str) -> HTTPResponse:
    """What the buttons do with the script: creates the posts and answers where to go next (201
    {created, location}), or the error (its code, message and argument) for the page to show."""
    action = text_field(request.form, "action", 20)
    if action not in ACTIONS:
        return json_error(
            ApiError("VALIDATION_ERROR", "action must be schedule, publish or draft", {"argument": "action"})
        )
    form = read_form(request.form)
    created = await create_posts(request, authorization, form, action)
    location = f"/dashboard/posts?notice={CREATED_NOTICE[action]}"
    return json({"created": created, "location": location}, status=201, headers=NO_STORE)


@scripted(sign_in=SIGN_IN)
async def save(request: Request, authorization: str) -> HTTPResponse:
    """An edited post's buttons with the script (Save changes; a draft's Schedule and Publish
    now): saves it with UpdatePost (and SchedulePost) and answers where to go next (200
    {location}: the post's page), or the core's refusal for the page to show; the form's `edit`
    names the post (another organization's: 404 NOT_FOUND)."""
    form = read_form(request.form)
    location = await save_edit(request, authorization, form, text_field(request.form, "action", 20))
    return json({"location": location}, headers=NO_STORE)


ROUTES = (
    Route("POST", "/dashboard/compose/preview", preview),
    Route("POST", "/dashboard/compose/create", create),
    Route("POST", "/dashboard/compose/save", save),
)
