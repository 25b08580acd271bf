// The preview cards: one card per destination of a post's preview, the PostPreview shape that
// POST /v1/posts:preview and the MCP tool preview_post answer (contract/preview.py). One renderer
// for both places that show it: the dashboard's compose page loads this file from /static, and
// the MCP app (facades/mcp/apps/post_preview.html) has it inlined when it is served. Every number
// and problem shown is the core's; nothing here counts or checks anything.
"use strict";
const HeraldPreviewCards = (() => {
  const LOGO = { x: "X", bluesky: "b", mastodon: "M", threads: "@", instagram: "IG", tiktok: "♪", youtube: "▶", linkedin: "in" };
  const ROLE = { title: "Title", content: "Post", thread_item: "Thread item", first_comment: "First comment" };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function counter(part) {
    const box = el("div", "counter");
    const ratio = part.max_length ? part.length / part.max_length : 0;
    if (part.length > part.max_length) box.classList.add("over"); else if (ratio >= 0.9) box.classList.add("near");
    const bar = el("span", "bar"); const fill = el("i");
    fill.style.width = Math.min(100, Math.round(ratio * 100)) + "%";
    bar.append(fill);
    const count = el("span", "count", part.length + " / " + part.max_length);
    count.title = part.unit;
    box.append(count, bar);
    return box;
  }
  // Where a page can show a media's picture (the dashboard's thumbnail route): media id → URL.
  // Unset (the MCP app, whose host reaches no Herald page), a tile is its kind and size only.
  let thumbnailOf = null;
  function thumbnails(urlOf) {
    thumbnailOf = urlOf;
  }
  function tile(media) {
    const size = media.width && media.height ? " " + media.width + "×" + media.height : "";
    const label = media.kind.toUpperCase() + size;
    const node = el("div", "tile", thumbnailOf ? undefined : label);
    if (thumbnailOf) {
      const picture = el("img");
      picture.src = thumbnailOf(media.media_id);
      picture.alt = ""; // the label beside it says what it is
      node.classList.add("with-thumbnail");
      node.append(picture, el("span", "tile-label", label));
    }
    if (media.width && media.height) node.style.aspectRatio = media.width + " / " + media.height;
    node.dataset.mediaId = media.media_id;
    return node;
  }
  function issues(list, kind) {
    const ul = el("ul", "issues pv " + kind + "s");
    for (const item of list) {
      const li = el("li", kind);
      li.append(el("code", "", item.code), document.createTextNode(item.message));
      ul.append(li);
    }
    return ul;
  }
  function card(d) {
    const node = el("article", "card p-" + (d.connector || "unknown"));
    node.dataset.profile = d.profile;
    if (d.connector) node.dataset.platform = d.connector;
    node.setAttribute("aria-label", d.profile + (d.platform ? " on " + d.platform : ""));
    if (!d.valid) node.classList.add("invalid");
    const header = el("header");
    const who = el("div", "who");
    who.append(el("div", "name", d.display_name || d.profile), el("div", "handle", "@" + d.profile + (d.platform ? " · " + d.platform : "")));
    const logo = el("span", "logo", LOGO[d.connector] || "?");
    logo.setAttribute("aria-hidden", "true");
    header.append(logo, who);
    if (d.post_type) header.append(el("span", "type", d.post_type));
    node.append(header);
    let item = 0;
    for (const part of d.parts) {
      const section = el("section", "part role-" + part.role);
      section.dataset.role = part.role;
      item += part.role === "thread_item" ? 1 : 0;
      section.append(el("div", "label", ROLE[part.role] + (part.role === "thread_item" ? " " + item : "")));
      section.append(el("div", "text", part.text));
      if (part.media.length) {
        const grid = el("div", "media");
        part.media.forEach((m) => grid.append(tile(m)));
        section.append(grid);
      }
      section.append(counter(part));
      node.append(section);
    }
    if (d.problems.length) node.append(issues(d.problems, "problem"));
    if (d.warnings.length) node.append(issues(d.warnings, "warning"));
    return node;
  }
  // The grid of cards, one per destination in the order the request named them.
  function cards(p) {
    const grid = el("div", "preview-cards");
    p.destinations.forEach((d) => grid.append(card(d)));
    return grid;
  }
  // "Ready for all 3 destinations" or "1 of 3 destinations ready".
  function verdict(p) {
    const ready = p.destinations.filter((d) => d.valid).length;
    return el("span", "verdict " + (p.valid ? "ok" : "bad"),
      p.valid ? "Ready for all " + p.destinations.length + " destinations" : ready + " of " + p.destinations.length + " destinations ready");
  }
  function cost(p) {
    return el("span", "cost", "Costs " + p.credits.required + " credits · balance " + p.credits.balance);
  }
  return { el, issues, card, cards, verdict, cost, thumbnails };
})();
