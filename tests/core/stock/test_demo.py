"""The demo stock provider (core/stock/demo.py) over HTTP: both APIs' documented shapes and
auth, a catalogue searches find, renditions as the image CDNs make them, and the switches the
tests use (API failures, image faults, download counts)."""

from __future__ import annotations

import asyncio
import io
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from PIL import Image

from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY, DemoStockServer
from core.stock.demo_catalogue import CATALOGUE, ImageStore
from harness.stack import free_port

pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("no_faults_left")]
PEXELS = {"Authorization": DEMO_PEXELS_KEY}
ROOT = Path(__file__).resolve().parents[3]
UNSPLASH = {"Authorization": f"Client-ID {DEMO_UNSPLASH_KEY}", "Accept-Version": "v1"}


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(timeout=30) as client:
        yield client


async def pexels_search(http: httpx2.AsyncClient, demo: DemoStockServer, **params: str) -> httpx2.Response:
    return await http.get(f"{demo.pexels_base_url}/v1/search", params=params, headers=PEXELS)


async def unsplash_search(http: httpx2.AsyncClient, demo: DemoStockServer, **params: str) -> httpx2.Response:
    return await http.get(f"{demo.unsplash_base_url}/search/photos", params=params, headers=UNSPLASH)


# --- the APIs ----------------------------------------------------------------------------------


async def test_pexels_answers_its_documented_shape(demo, http) -> None:
    response = await pexels_search(http, demo, query="city", per_page="2")
    assert response.status_code == 200
    assert {"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} <= set(response.headers)
    body = response.json()
    assert {"page", "per_page", "photos", "total_results", "next_page"} <= set(body)
    assert (body["page"], body["per_page"], body["total_results"], len(body["photos"])) == (1, 2, 4, 2)
    photo = body["photos"][0]
    assert set(photo) == {
        "id", "width", "height", "url", "photographer", "photographer_url", "photographer_id", "avg_color", "src",
        "liked", "alt",
    }  # fmt: skip
    assert set(photo["src"]) == {"original", "large2x", "large", "medium", "small", "portrait", "landscape", "tiny"}
    original = urlsplit(photo["src"]["original"])
    assert (original.netloc in demo.image_hosts, original.query) == (True, "")
    assert original.path == f"/pexels/photos/{photo['id']}/pexels-photo-{photo['id']}.jpeg"
    assert parse_qs(urlsplit(photo["src"]["portrait"]).query)["fit"] == ["crop"]
    second = (await http.get(body["next_page"], headers=PEXELS)).json()
    assert second["page"] == 2 and "prev_page" in second
    looked_up = await http.get(f"{demo.pexels_base_url}/v1/photos/{photo['id']}", headers=PEXELS)
    assert looked_up.json() == photo


async def test_unsplash_answers_its_documented_shape(demo, http) -> None:
    response = await unsplash_search(http, demo, query="city", per_page="3")
    body = response.json()
    assert (set(body), body["total"], body["total_pages"], len(body["results"])) == (
        {"total", "total_pages", "results"}, 4, 2, 3
    )  # fmt: skip
    photo = body["results"][0]
    assert {"id", "width", "height", "color", "blur_hash", "alt_description", "urls", "links", "user"} <= set(photo)
    assert {"raw", "full", "regular", "small", "thumb"} <= set(photo["urls"])
    raw = urlsplit(photo["urls"]["raw"])
    assert raw.netloc in demo.image_hosts and raw.path.startswith("/unsplash-images/photo-")
    assert set(parse_qs(raw.query)) == {"ixid", "ixlib"}
    assert photo["links"]["download_location"].startswith(
        f"{demo.unsplash_base_url}/photos/{photo['id']}/download?ixid="
    )
    assert {"name", "username"} <= set(photo["user"])
    looked_up = await http.get(f"{demo.unsplash_base_url}/photos/{photo['id']}", headers=UNSPLASH)
    assert looked_up.json() == photo
    tracked = await http.get(photo["links"]["download_location"], headers=UNSPLASH)
    assert urlsplit(tracked.json()["url"]).netloc in demo.image_hosts


async def test_each_api_checks_its_own_auth(demo, http) -> None:
    photo = CATALOGUE[0]
    for headers in ({}, {"Authorization": f"Bearer {DEMO_PEXELS_KEY}"}, UNSPLASH):
        response = await http.get(f"{demo.pexels_base_url}/v1/search", params={"query": "a"}, headers=headers)
        assert response.status_code == 401
    for headers in ({}, PEXELS, {"Authorization": DEMO_UNSPLASH_KEY}):
        response = await http.get(f"{demo.unsplash_base_url}/search/photos", params={"query": "a"}, headers=headers)
        assert response.status_code == 401 and "errors" in response.json()
    before = demo.download_count(photo.unsplash_id)
    download = f"{demo.unsplash_base_url}/photos/{photo.unsplash_id}/download"
    assert (await http.get(download)).status_code == 401
    assert demo.download_count(photo.unsplash_id) == before
    assert (await http.get(download, headers=UNSPLASH)).status_code == 200
    assert demo.download_count(photo.unsplash_id) == before + 1


@pytest.mark.parametrize("query", ["coffee", "mountain", "office", "city"])
async def test_the_catalogue_has_photos_for_common_queries(demo, http, query: str) -> None:
    assert len((await pexels_search(http, demo, query=query)).json()["photos"]) >= 3
    assert len((await unsplash_search(http, demo, query=query)).json()["results"]) >= 3


@pytest.mark.parametrize("query", ["zebra", "tea", "お茶", "!!!", "a long sentence about nothing in the catalogue"])
@pytest.mark.parametrize("orientation", [None, "landscape", "portrait", "square"])
async def test_every_search_answers_at_least_three_photos(demo, http, query: str, orientation: str | None) -> None:
    """Fewer than three matches are topped up with the closest photos of that orientation (tags
    shared with what matches elsewhere, then look-alike words), so no first search is empty."""
    pexels = {"query": query} | ({"orientation": orientation} if orientation else {})
    unsplash = {"query": query} | (
        {"orientation": "squarish" if orientation == "square" else orientation} if orientation else {}
    )
    photos = (await pexels_search(http, demo, **pexels)).json()["photos"]
    results = (await unsplash_search(http, demo, **unsplash)).json()["results"]
    for found in (photos, results):
        assert len(found) >= 3, (query, orientation, found)
        assert len({p["id"] for p in found}) == len(found)
        if orientation:
            assert all(
                (p["width"] > p["height"]) == (orientation == "landscape") for p in found if orientation != "square"
            )
            assert all(0.9 <= p["width"] / p["height"] <= 1.1 for p in found if orientation == "square")
    assert [p["id"] for p in photos] == [p["id"] for p in (await pexels_search(http, demo, **pexels)).json()["photos"]]


async def test_matches_come_first_and_the_closest_fill_up(demo, http) -> None:
    # "tea" matches one landscape photo; the others are the closest: a drink on a table first.
    photos = (await pexels_search(http, demo, query="tea", orientation="landscape")).json()["photos"]
    assert [p["alt"] for p in photos[:2]] == [
        "A pot of green tea with two cups",
        "A cup of black coffee on a wooden table",
    ]
    # Enough matches: only they are answered.
    city = (await pexels_search(http, demo, query="city", per_page="30")).json()
    assert city["total_results"] == len(city["photos"]) == 4


async def test_no_query_is_refused(demo, http) -> None:
    assert (await pexels_search(http, demo, query=" ")).status_code == 400
    assert (await unsplash_search(http, demo, query="")).status_code == 400


async def test_an_unknown_photo_is_404_in_each_apis_shape(demo, http) -> None:
    assert (await http.get(f"{demo.pexels_base_url}/v1/photos/1", headers=PEXELS)).status_code == 404
    missing = await http.get(f"{demo.unsplash_base_url}/photos/nope", headers=UNSPLASH)
    assert missing.status_code == 404 and missing.json() == {"errors": ["Couldn't find Photo"]}
    assert (await http.get(f"{demo.base_url}/pexels/photos/1/pexels-photo-1.jpeg")).status_code == 404


# --- the catalogue and its images ----------------------------------------------------------------


def test_the_catalogue_varies_in_size_and_shape() -> None:
    assert len(CATALOGUE) == 26
    assert {p.orientation for p in CATALOGUE} == {"landscape", "portrait", "square"}
    assert max(p.width * p.height for p in CATALOGUE) >= 24_000_000
    assert min(p.width for p in CATALOGUE) < 1080  # one photo too small for most presets
    assert len({p.pexels_id for p in CATALOGUE}) == len({p.unsplash_id for p in CATALOGUE}) == 26


async def test_originals_are_jpegs_of_their_listed_size_and_a_few_megabytes(demo, http) -> None:
    photo = CATALOGUE[0]
    response = await http.get(f"{demo.base_url}/pexels/photos/{photo.pexels_id}/pexels-photo-{photo.pexels_id}.jpeg")
    assert response.headers["content-type"] == "image/jpeg"
    assert 2_000_000 <= len(response.content) <= 8_000_000
    image = Image.open(io.BytesIO(response.content))
    assert (image.format, image.size) == ("JPEG", (photo.width, photo.height))


def test_the_catalogue_is_drawn_the_same_every_time(tmp_path: Path) -> None:
    photo = CATALOGUE[23]
    first, second = ImageStore(tmp_path / "a").original(photo), ImageStore(tmp_path / "b").original(photo)
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize(
    ("params", "size", "kind"),
    [
        ({"w": "1080", "h": "1080", "fit": "crop", "crop": "entropy", "fm": "jpg", "q": "85"}, (1080, 1080), "JPEG"),
        ({"auto": "compress", "cs": "tinysrgb", "fit": "crop", "w": "1200", "h": "627"}, (1200, 627), "JPEG"),
        ({"auto": "compress", "cs": "tinysrgb", "h": "350"}, (525, 350), "JPEG"),  # fits, keeps the ratio
        ({"w": "400", "fit": "max", "fm": "png"}, (400, 267), "PNG"),
        ({"w": "100", "h": "100", "fit": "crop", "dpr": "2"}, (200, 200), "JPEG"),
        ({"w": "7000"}, (6000, 4000), "JPEG"),  # fit never enlarges
    ],
)
async def test_renditions_follow_the_cdn_parameters(demo, http, params: dict[str, str], size, kind: str) -> None:
    photo = CATALOGUE[0]  # 6000x4000
    response = await http.get(f"{demo.base_url}/unsplash-images/{photo.unsplash_slug}", params=params)
    assert response.status_code == 200
    image = Image.open(io.BytesIO(response.content))
    assert (image.size, image.format) == (size, kind)


async def test_bad_rendition_parameters_are_refused(demo, http) -> None:
    photo = CATALOGUE[1]
    for params in ({"w": "0"}, {"w": "abc"}, {"h": "100000"}, {"q": "101"}):
        response = await http.get(f"{demo.base_url}/unsplash-images/{photo.unsplash_slug}", params=params)
        assert response.status_code == 400


# --- switches ------------------------------------------------------------------------------------


async def test_api_failures_hit_the_named_endpoint_and_are_used_up(demo, http) -> None:
    photo = CATALOGUE[2]
    lookup = f"{demo.unsplash_base_url}/photos/{photo.unsplash_id}"
    demo.fail_next("unsplash", "403-rate-limit", endpoint="photo", times=2)
    assert (await unsplash_search(http, demo, query="coffee")).status_code == 200
    for _ in range(2):
        refused = await http.get(lookup, headers=UNSPLASH)
        assert (refused.status_code, refused.text) == (403, "Rate Limit Exceeded")
    assert (await http.get(lookup, headers=UNSPLASH)).status_code == 200

    demo.fail_next("pexels", "429")
    limited = await pexels_search(http, demo, query="coffee")
    assert limited.status_code == 429 and "x-ratelimit-reset" not in limited.headers  # only on 2xx
    demo.fail_next("pexels", "500")
    assert (await pexels_search(http, demo, query="coffee")).status_code == 500
    demo.fail_next("pexels", "not-json")
    not_json = await pexels_search(http, demo, query="coffee")
    assert not_json.status_code == 200 and not_json.headers["content-type"].startswith("text/html")
    demo.fail_next("unsplash", "malformed")
    assert not isinstance((await unsplash_search(http, demo, query="coffee")).json()["results"], list)
    with pytest.raises(ValueError):
        demo.fail_next("unsplash", "teapot")  # type: ignore[arg-type]


async def test_a_timeout_answers_only_after_the_clients_deadline(demo) -> None:
    demo.fail_next("pexels", "timeout", seconds=2)
    async with httpx2.AsyncClient(timeout=0.3) as client:
        with pytest.raises(httpx2.ReadTimeout):
            await pexels_search(client, demo, query="coffee")
        assert (await pexels_search(client, demo, query="coffee")).status_code == 200


async def test_concurrent_requests_use_up_exactly_the_failures_queued(demo, http) -> None:
    demo.fail_next("pexels", "500", times=5)
    answers = await asyncio.gather(*(pexels_search(http, demo, query="office") for _ in range(12)))
    assert sorted(a.status_code for a in answers) == [200] * 7 + [500] * 5


async def test_image_faults(demo, http) -> None:
    photo = CATALOGUE[6]  # 1920x1080
    image = f"{demo.base_url}/pexels/photos/{photo.pexels_id}/pexels-photo-{photo.pexels_id}.jpeg"
    demo.image_fault(str(photo.pexels_id), "not-an-image")
    response = await http.get(image)
    assert (response.status_code, response.headers["content-type"]) == (200, "image/jpeg")
    with pytest.raises(OSError):
        Image.open(io.BytesIO(response.content))
    demo.image_fault(str(photo.pexels_id), "500")
    assert (await http.get(image)).status_code == 500
    demo.image_fault(str(photo.pexels_id), "slow", seconds=1.0)
    started = time.monotonic()
    response = await http.get(image, params={"w": "300"})
    assert time.monotonic() - started >= 0.9 and Image.open(io.BytesIO(response.content)).size == (300, 169)
    demo.clear_faults()
    assert (await http.get(image)).status_code == 200
    assert demo.image_count(str(photo.pexels_id)) >= 4


async def test_a_foreign_host_fault_points_a_photos_images_elsewhere(demo, http) -> None:
    photo = CATALOGUE[6]
    demo.image_fault(photo.unsplash_id, "foreign-host")
    demo.image_fault(str(photo.pexels_id), "foreign-host")
    found = (await http.get(f"{demo.unsplash_base_url}/photos/{photo.unsplash_id}", headers=UNSPLASH)).json()
    assert all(urlsplit(url).netloc not in demo.image_hosts for url in found["urls"].values())
    assert found["links"]["download_location"].startswith(demo.unsplash_base_url)  # the API stays
    pexels = (await http.get(f"{demo.pexels_base_url}/v1/photos/{photo.pexels_id}", headers=PEXELS)).json()
    assert all(urlsplit(url).netloc not in demo.image_hosts for url in pexels["src"].values())
    with pytest.raises(KeyError):
        demo.image_fault("no-such-photo", "500")


# --- as its own process --------------------------------------------------------------------------


async def test_run_demo_stock_serves_until_stopped(tmp_path: Path) -> None:
    port = free_port()
    code = "import sys; from pathlib import Path; from core.stock.demo import run_demo_stock; run_demo_stock(sys.argv[1], Path(sys.argv[2]))"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, f"127.0.0.1:{port}", str(tmp_path), cwd=ROOT
    )
    try:
        async with httpx2.AsyncClient(timeout=5) as client:
            deadline = time.monotonic() + 20
            while True:
                try:
                    response = await client.get(f"http://127.0.0.1:{port}/v1/search?query=coffee", headers=PEXELS)
                    break
                except httpx2.ConnectError:
                    assert time.monotonic() < deadline, "the demo provider did not start"
                    await asyncio.sleep(0.1)
        assert response.status_code == 200 and len(response.json()["photos"]) == 3
    finally:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()
