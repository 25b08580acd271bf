"""The dashboard's one entry point: every page family's routes, as the blueprints the app
registers. A page family is a module of `facades/web/` that holds its handlers and ends with
its `ROUTES`; adding one is a line here (docs/dashboard.md, "How a page is built")."""

from __future__ import annotations

from sanic import Blueprint
from sanic.blueprint_group import BlueprintGroup

from facades.web import (
    accounts_pages,
    agents_pages,
    analytics_pages,
    audit_pages,
    brand_pages,
    calendar_assets,
    calendar_events,
    calendar_pages,
    chart_assets,
    compose_pages,
    compose_script,
    compose_stock,
    connect_pages,
    credits_pages,
    invitation_pages,
    keys_pages,
    media_pages,
    media_uploads,
    members_pages,
    notifications_pages,
    overview_pages,
    post_detail_pages,
    post_group_pages,
    posts_pages,
    profiles_pages,
    queue_slots_pages,
    settings_pages,
    stock_picker_pages,
    verify_pages,
    webhooks_pages,
)
from facades.web.pages import Route, blueprint

# Blueprint name -> the family's routes. Names are unique within the app; a handler's route
# name is `<blueprint>.<function>`.
PAGE_FAMILIES: dict[str, tuple[Route, ...]] = {
    "dashboard_accounts": accounts_pages.ROUTES,
    "dashboard_overview": overview_pages.ROUTES,
    "dashboard_keys": keys_pages.ROUTES,
    "dashboard_agents": agents_pages.ROUTES,
    "dashboard_profiles": profiles_pages.ROUTES,
    "dashboard_queue_slots": queue_slots_pages.ROUTES,
    "dashboard_credits": credits_pages.ROUTES,
    "dashboard_connect": connect_pages.ROUTES,
    "dashboard_posts": posts_pages.ROUTES,
    "dashboard_post_groups": post_group_pages.ROUTES,
    "dashboard_compose": compose_pages.ROUTES,
    "dashboard_compose_script": compose_script.ROUTES,
    "dashboard_compose_stock": compose_stock.ROUTES,
    "dashboard_post_detail": post_detail_pages.ROUTES,
    "dashboard_calendar": calendar_pages.ROUTES,
    "dashboard_analytics": analytics_pages.ROUTES,
    "dashboard_calendar_events": calendar_events.ROUTES,
    "dashboard_calendar_assets": calendar_assets.ROUTES,
    "dashboard_chart_assets": chart_assets.ROUTES,
    "dashboard_media": media_pages.ROUTES,
    "dashboard_media_uploads": media_uploads.ROUTES,
    "dashboard_stock_picker": stock_picker_pages.ROUTES,
    "dashboard_brand": brand_pages.ROUTES,
    "dashboard_webhooks": webhooks_pages.ROUTES,
    "dashboard_settings": settings_pages.ROUTES,
    "dashboard_members": members_pages.ROUTES,
    "dashboard_notifications": notifications_pages.ROUTES,
    "dashboard_audit": audit_pages.ROUTES,
    "dashboard_invitations": invitation_pages.ROUTES,
    "dashboard_verification": verify_pages.ROUTES,
}


def dashboard_blueprint() -> BlueprintGroup:
    """The landing page, sign-up and sign-in, the signed-in pages and the connect callback."""
    return Blueprint.group(*(blueprint(name, routes) for name, routes in PAGE_FAMILIES.items()))
