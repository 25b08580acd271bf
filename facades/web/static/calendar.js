// The calendar page's script (docs/dashboard.md, "Calendar"). The page works without it (a grid
// of links); with it, EventCalendar (@event-calendar/build, served by the facade from its npm
// install) draws the month, the week or the list, and:
// - the posts of the range shown come from /dashboard/calendar/events, as wall-clock times in the
//   zone shown (the organization's, or the browser's after the switch), so the calendar draws
//   them as they are whatever the browser's own zone;
// - dragging a post to another day or time, or its "Move" button (a dialog with "Schedule at":
//   calendar_move.js), sends the new wall-clock time and its zone to
//   /dashboard/calendar/posts/<id>/move (the core's UpdatePost); a refusal puts the post back and
//   says why, in the page's alert;
// - a post waiting for approval says so, and its "Review" button opens the review dialog
//   (calendar_review.js: Approve or Reject, with a comment);
// - each post is a link to its page; a day from today on offers "New post" at that day, a time
//   of the week view at that time, a profile's free slot at that slot (the compose page).
"use strict";
(() => {
  const byId = (id) => document.getElementById(id);
  const mount = byId("calendar");
  const configNode = byId("calendar-config");
  if (!mount || !configNode || typeof EventCalendar === "undefined") return;
  const config = JSON.parse(configNode.textContent);
  const fallback = byId("calendar-fallback");
  const title = byId("calendar-title");
  const announcer = byId("calendar-announce");
  const failure = byId("calendar-error");
  const filters = byId("calendar-filters");
  const zoneName = byId("calendar-zone-name");
  const zoneWhose = byId("calendar-zone-whose");
  const zoneSwitch = byId("zone-switch");
  const csrfToken = byId("move-form").elements.csrf_token.value;
  const ZONE_KEY = "herald-calendar-zone";
  const VIEW_NAMES = Object.fromEntries(Object.entries(config.views).map(([name, view]) => [view, name]));
  const browserZone = (() => {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  })();
  let useBrowser = false;
  try { useBrowser = Boolean(browserZone) && browserZone !== config.zone && localStorage.getItem(ZONE_KEY) === "browser"; } catch (e) { /* storage off */ }
  let calendar = null;
  const phone = window.matchMedia("(max-width: 40rem)").matches;
  let shown = { view: config.view_asked || !phone ? config.view : config.views.list, date: config.date };
  let sessionGone = false;

  const zone = () => (useBrowser ? browserZone : config.zone);
  const pad = (n) => String(n).padStart(2, "0");
  // The calendar hands back Dates whose local fields hold the wall-clock time it shows.
  const wall = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const dayOf = (d) => wall(d).slice(0, 10);
  // A wall-clock time `minutes` later (calendar arithmetic only: no zone involved).
  function later(at, minutes) {
    const [year, month, day, hour, minute] = at.split(/[-T:]/).map(Number);
    const d = new Date(Date.UTC(year, month - 1, day, hour, minute + minutes));
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  }
  const BOX_MINUTES = 30; // a post's height in the week view
  // Now, as the clocks of the zone shown read: the browser's own, or the organization's offset.
  function now() {
    if (useBrowser) return wall(new Date());
    const [sign, hours, minutes] = [config.offset[0], Number(config.offset.slice(1, 3)), Number(config.offset.slice(4, 6))];
    const shifted = new Date(Date.now() + (sign === "-" ? -1 : 1) * (hours * 60 + minutes) * 60000);
    return `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}T${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}`;
  }
  const shownAt = (at) => `${at.replace("T", " ")} (${zone()})`;
  const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  // "Tuesday 1 December 2026", the day of a "YYYY-MM-DD…" wall-clock time (no zone involved).
  function longDay(at) {
    const [year, month, day] = at.slice(0, 10).split("-").map(Number);
    const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
    return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month - 1]} ${year}`;
  }

  // -- messages -----------------------------------------------------------------------------------
  function announce(text) {
    announcer.textContent = "";
    window.setTimeout(() => { announcer.textContent = text; }, 50);
  }
  function fail(code, text, link) {
    failure.dataset.code = code;
    failure.replaceChildren(document.createTextNode(text));
    if (link) {
      const a = document.createElement("a");
      a.href = link.href;
      a.textContent = link.text;
      failure.append(" ", a);
    }
    failure.hidden = false;
  }
  function clearFailure() {
    failure.hidden = true;
    failure.textContent = "";
    delete failure.dataset.code;
  }
  function sessionEnded(body) {
    sessionGone = true;
    fail("UNAUTHORIZED", "Your session has ended: nothing was changed.", { href: (body && body.sign_in) || config.sign_in, text: "Sign in again" });
  }

  // -- the dashboard's endpoints ------------------------------------------------------------------
  async function call(url, options) {
    let response;
    try {
      response = await fetch(url, Object.assign({ credentials: "same-origin", headers: { Accept: "application/json" } }, options));
    } catch (e) {
      return { ok: false, body: { code: "SERVICE_UNAVAILABLE", error: "Herald could not be reached: check the connection and try again" } };
    }
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (response.status === 401) sessionEnded(body);
    return { ok: response.ok, status: response.status, body: body || { code: "INTERNAL", error: `Herald answered ${response.status}` } };
  }
  function movePost(post, at) {
    const data = new URLSearchParams({ csrf_token: csrfToken, schedule_at: at, time_zone: zone() });
    return call(config.move.replace("{id}", encodeURIComponent(post.id)), { method: "POST", body: data });
  }
  function composeLink(at, profile) {
    const query = new URLSearchParams({ schedule_at: at, time_zone: zone() });
    if (profile) query.set("profiles", profile);
    return `${config.compose}?${query}`;
  }

  // -- events -------------------------------------------------------------------------------------
  function postEvent(post) {
    return {
      id: post.id,
      start: post.start,
      end: later(post.start, BOX_MINUTES),
      title: post.excerpt,
      startEditable: post.movable,
      durationEditable: false,
      classNames: ["cal-event", `cal-p-${post.platform}`, `cal-s-${post.status}`],
      extendedProps: { kind: "post", post },
    };
  }
  function freeEvent(start) {
    const slot = { start };
    return {
      id: `free-${start}`,
      start,
      end: later(start, BOX_MINUTES),
      title: "Free",
      editable: false,
      classNames: ["cal-event", "cal-free-slot"],
      extendedProps: { kind: "free", slot },
    };
  }
  function source(info, success, failed) {
    const query = new URLSearchParams({ start: dayOf(info.start), end: dayOf(info.end), zone: zone() });
    for (const [name, value] of Object.entries(config.filters)) if (value) query.set(name, value);
    call(`${config.events}?${query}`).then(({ ok, body }) => {
      if (!ok) {
        if (!sessionGone) fail(body.code, `The posts could not be shown: ${body.error}`);
        failed(body);
        return;
      }
      byId("calendar-truncated").hidden = !body.truncated;
      const events = body.posts.map(postEvent).concat(body.free_slots.map(freeEvent));
      success(events);
      announce(`${body.posts.length} ${body.posts.length === 1 ? "post" : "posts"} shown, times in ${body.zone}.`);
    });
  }
  function label(post) {
    const platform = config.platforms[post.platform] || post.platform;
    return `${longDay(post.start)}, ${post.start.slice(11)} ${platform} ${post.profile}: ${post.excerpt}${post.status === "scheduled" ? "" : ` (${post.status.replace(/_/g, " ")})`}`;
  }
  function span(className, text) {
    const node = document.createElement("span");
    node.className = className;
    node.textContent = text;
    return node;
  }
  function content(info) {
    const props = info.event.extendedProps;
    if (props.kind === "free") {
      const link = document.createElement("a");
      link.className = "cal-free-link";
      link.href = composeLink(props.slot.start, config.filters.profile);
      link.draggable = false;
      link.textContent = `Free ${props.slot.start.slice(11)}`;
      link.setAttribute("aria-label", `${link.textContent}: new post for ${config.filters.profile} on ${longDay(props.slot.start)}`);
      return { domNodes: [link] };
    }
    const post = props.post;
    const link = document.createElement("a");
    link.className = "cal-post";
    link.href = config.posts.replace("{id}", encodeURIComponent(post.id));
    link.dataset.post = post.id;
    link.draggable = false; // the calendar drags the post, not the browser the link
    link.title = label(post); // the whole of it, where a day or a half hour shows its start
    // The calendar draws a day's posts beside its cell, not in it: the name says the day.
    link.append(
      span("visually-hidden", `${longDay(post.start)}, `),
      span("cal-time", post.start.slice(11)), " ",
      span("cal-platform", config.platforms[post.platform] || post.platform), " ",
      span("cal-profile", post.profile), `: ${post.excerpt}`,
    );
    if (post.status !== "scheduled") link.append(" ", span("cal-status", `(${post.status.replace(/_/g, " ")})`));
    const nodes = [link];
    if (post.movable && move) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cal-move";
      button.dataset.move = post.id;
      button.append("Move", span("visually-hidden", ` to… ${post.profile}: ${post.excerpt}`));
      button.addEventListener("click", (event) => { event.stopPropagation(); move.open(post); });
      nodes.push(button);
    }
    if (post.status === "pending_approval" && review) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cal-move cal-review";
      button.dataset.review = post.id;
      button.append("Review", span("visually-hidden", ` ${post.profile}: ${post.excerpt}`));
      button.addEventListener("click", (event) => { event.stopPropagation(); review.open(post); });
      nodes.push(button);
    }
    return { domNodes: nodes };
  }
  function dayContent(info) {
    if (!info.allDay) return "";
    const number = span("cal-day-number", String(info.date.getDate()));
    const day = dayOf(info.date);
    const at = newPostTime(day);
    if (!at) return { domNodes: [number] };
    const link = document.createElement("a");
    link.className = "cal-new";
    link.href = composeLink(at, config.filters.profile);
    link.append(span("cal-new-mark", "+"), span("visually-hidden", `New post on ${longDay(day)}`));
    link.firstChild.setAttribute("aria-hidden", "true");
    return { domNodes: [number, link] };
  }
  // "New post" on a day: 09:00, or today the next full hour; nothing for a day that is over.
  function newPostTime(day) {
    const current = now();
    const today = current.slice(0, 10);
    if (day > today) return `${day}T09:00`;
    if (day < today) return null;
    const hour = Number(current.slice(11, 13)) + 1;
    return hour < 24 ? `${day}T${pad(hour)}:00` : null;
  }

  // -- moving -------------------------------------------------------------------------------------
  function applyMoved(post, body) {
    post.start = body.start;
    post.status = body.status;
    post.movable = body.movable;
    const found = calendar.getEventById(post.id);
    if (found) {
      found.start = new Date(`${body.start}:00`);
      found.end = new Date(`${later(body.start, BOX_MINUTES)}:00`);
      found.startEditable = body.movable;
      found.classNames = ["cal-event", `cal-p-${post.platform}`, `cal-s-${post.status}`];
      found.extendedProps = { kind: "post", post };
      calendar.updateEvent(found);
    }
  }
  async function dropped(info) {
    const post = info.event.extendedProps.post;
    const at = wall(info.event.start);
    clearFailure();
    const { ok, body } = await movePost(post, at);
    if (!ok) {
      info.revert();
      if (!sessionGone) fail(body.code, `${post.profile}'s post was put back at ${shownAt(post.start)}: ${body.error}`);
      return;
    }
    applyMoved(post, body);
    announce(`${post.profile}'s post moved to ${shownAt(body.start)}.`);
  }
  // Focus back on the post's button once a dialog closes (its link when the button is gone).
  function refocus(post, attribute) {
    const target = mount.querySelector(`button[${attribute}="${CSS.escape(post.id)}"]`) || mount.querySelector(`a[data-post="${CSS.escape(post.id)}"]`);
    if (target) target.focus();
    else title.focus();
  }
  const move = window.heraldCalendarMove ? window.heraldCalendarMove({
    zone,
    shownAt,
    movePost,
    sessionGone: () => sessionGone,
    refocus: (post) => refocus(post, "data-move"),
    moved: (post, body) => {
      clearFailure();
      applyMoved(post, body);
      announce(`${post.profile}'s post moved to ${shownAt(body.start)}.`);
    },
  }) : null;

  // -- reviewing ----------------------------------------------------------------------------------
  const review = window.heraldCalendarReview ? window.heraldCalendarReview({
    config,
    csrfToken,
    call,
    announce,
    zone,
    shownAt,
    sessionGone: () => sessionGone,
    refocus: (post) => refocus(post, "data-review"),
    reviewed: (post, body) => { clearFailure(); applyMoved(post, body); },
    refresh: () => { if (calendar) calendar.refetchEvents(); },
  }) : null;

  // -- the calendar -------------------------------------------------------------------------------
  // EventCalendar marks a month or a week up as an ARIA table (a list for the list) whose rows are
  // not marked and whose toolbar and posts sit outside any cell: assistive technologies meet a
  // broken table. The page reads as what it draws instead: the days' numbers, and each post a link
  // whose name says its day (content()), "New post" links named by theirs (dayContent()).
  const STRUCTURE = new Set(["table", "row", "rowgroup", "cell", "columnheader", "rowheader", "list", "listitem"]);
  function unstructure() {
    for (const node of mount.querySelectorAll("[role]")) {
      if (!STRUCTURE.has(node.getAttribute("role"))) continue;
      for (const name of ["role", "aria-colindex", "aria-colspan", "aria-rowindex"]) node.removeAttribute(name);
    }
  }
  new MutationObserver(unstructure).observe(mount, { subtree: true, childList: true, attributes: true, attributeFilter: ["role"] });
  function options() {
    return {
      view: shown.view,
      date: shown.date,
      firstDay: 1,
      // Events carry wall-clock times without an offset, drawn as they are; this offset only
      // places "today" and the current time.
      timeZone: useBrowser ? "local" : config.offset,
      locale: "en-GB",
      height: "auto",
      headerToolbar: { start: "prev,next today", center: "", end: "dayGridMonth,timeGridWeek,listWeek" },
      buttonText: { today: "Today", dayGridMonth: "Month", timeGridWeek: "Week", listWeek: "List", prev: "Previous", next: "Next" },
      dayMaxEvents: 4,
      allDaySlot: false, // every post has its time
      editable: true,
      eventDurationEditable: false,
      displayEventEnd: false,
      nowIndicator: true,
      slotDuration: "00:30:00",
      scrollTime: "08:00:00",
      eventTimeFormat: { hour: "2-digit", minute: "2-digit", hour12: false },
      slotLabelFormat: { hour: "2-digit", minute: "2-digit", hour12: false },
      eventSources: [{ events: source }],
      eventContent: content,
      dayCellContent: dayContent,
      eventDrop: dropped,
      dateClick: (info) => {
        if (info.jsEvent && info.jsEvent.target.closest("a, button")) return;
        const at = info.allDay ? newPostTime(dayOf(info.date)) : wall(info.date);
        if (!at || at <= now()) {
          announce("That time has passed: a new post needs a time from now on.");
          return;
        }
        window.location.assign(composeLink(at, config.filters.profile));
      },
      noEventsContent: () => "No posts in this range.",
      datesSet: (info) => {
        shown = { view: info.view.type, date: dayOf(info.view.currentStart) };
        title.textContent = info.view.title;
        // The library marks the current view's button by its look only: say it too.
        for (const view of Object.values(config.views)) {
          const button = mount.querySelector(`button.ec-${view}`);
          if (button) button.setAttribute("aria-pressed", String(view === info.view.type));
        }
        filters.elements.view.value = VIEW_NAMES[info.view.type] || "month";
        filters.elements.date.value = shown.date;
        const query = new URLSearchParams(window.location.search);
        query.set("view", filters.elements.view.value);
        query.set("date", shown.date);
        window.history.replaceState(null, "", `${window.location.pathname}?${query}`);
      },
    };
  }
  function showZone() {
    zoneName.textContent = zone();
    zoneWhose.textContent = useBrowser ? "this browser's time zone" : browserZone === config.zone ? "the organization's time zone, and this browser's" : "the organization's time zone";
    if (browserZone && browserZone !== config.zone) {
      zoneSwitch.hidden = false;
      zoneSwitch.textContent = useBrowser ? `Show times in the organization's time zone (${config.zone})` : `Show times in this browser's time zone (${browserZone})`;
    }
  }
  function draw() {
    if (calendar) {
      shown.date = dayOf(calendar.getOption("date"));
      EventCalendar.destroy(calendar);
    }
    calendar = EventCalendar.create(mount, options());
  }
  zoneSwitch.addEventListener("click", () => {
    useBrowser = !useBrowser;
    try { localStorage.setItem(ZONE_KEY, useBrowser ? "browser" : "organization"); } catch (e) { /* storage off */ }
    clearFailure();
    showZone();
    draw();
  });
  title.tabIndex = -1;
  fallback.hidden = true;
  mount.hidden = false;
  showZone();
  draw();
})();
