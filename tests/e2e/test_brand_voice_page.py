"""The brand voice form in Chromium: a human writes the voice, saves versions, sees errors in
place, and the phrases they forbid are refused at /v1 from the next request on."""

from __future__ import annotations

import pytest

from tests.e2e.test_dashboard import screenshot, sign_in

# One backend: the form in a browser; the brand voice's SQL is tested at /v1 on both databases.
pytestmark = pytest.mark.one_backend


async def test_a_human_edits_the_brand_voice(page, http, orgs, artifacts_dir, backend) -> None:
    org = await orgs()
    await orgs.profile(org, "form-x", "x")
    await sign_in(page, org.email)
    await page.get_by_role("link", name="Brand voice").click()
    await page.wait_for_url("**/dashboard/brand-voice")
    assert "Not set yet" in await page.locator("#voice-version").text_content()

    await page.get_by_label("The voice in words").fill("Plain and warm.")
    await page.get_by_label("Tone").fill("warm\ndirect")
    await page.get_by_label("Approved example posts").fill("First example.\n---\nSecond example,\non two lines.")
    await page.get_by_label("Never publish").fill("cheap\nguaranteed results")
    await page.get_by_label("Preferred terms").fill("customers => users")
    await page.get_by_label("Emoji").select_option("none")
    await page.get_by_label("Signature hashtags").fill("acme")
    await screenshot(page, artifacts_dir, backend, "brand-voice-form")
    await page.get_by_role("button", name="Save a new version").click()
    await page.wait_for_url("**/dashboard/brand-voice?notice=voice-saved")
    assert "Version 1" in await page.locator("#voice-version").text_content()
    assert await page.get_by_label("Never publish").input_value() == "cheap\nguaranteed results"

    voice = (await http.get("/v1/brand-voice", headers=org.auth)).json()
    assert voice["examples"] == ["First example.", "Second example,\non two lines."]
    assert voice["preferred_terms"] == [{"use": "customers", "instead_of": "users"}]
    assert (voice["emoji"], voice["signature_hashtags"], voice["updated_by"]) == ("none", ["#acme"], org.email)
    refused = await http.post("/v1/posts", json={"content": "So cheap!", "profiles": ["form-x"]}, headers=org.auth)
    assert refused.json()["code"] == "NEVER_PUBLISH_PHRASE"

    # An error is shown in place and nothing is saved; what was typed stays in the form.
    await page.get_by_label("Preferred terms").fill("customers without an arrow")
    await page.get_by_role("button", name="Save a new version").click()
    assert "use => instead of" in await page.get_by_role("alert").text_content()
    assert await page.get_by_label("Preferred terms").input_value() == "customers without an arrow"
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["version"] == 1

    # A save over a newer version (saved meanwhile by a server) is refused, not lost silently.
    await page.goto("/dashboard/brand-voice")
    await http.put("/v1/brand-voice", json={"description": "Changed by a server."}, headers=org.auth)
    await page.get_by_label("The voice in words").fill("My edit.")
    await page.get_by_role("button", name="Save a new version").click()
    assert "version 2" in (await page.get_by_role("alert").text_content()).lower()
    await screenshot(page, artifacts_dir, backend, "brand-voice-conflict")
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["description"] == "Changed by a server."
