// The appdna inspector page: lists what the listener received (newest first), polls for more
// every second, shows one entry in full, and replays a webhook delivery to the handler.
//
// Everything received is data, never markup: every value reaches the document through
// textContent (or an attribute set with setAttribute), never innerHTML, so a delivery that
// carries <script> or <img onerror=…> shows as those characters. Characters that would act
// instead of showing (controls, bidi overrides) are made visible as \n, \u202E… as appdna's
// text output makes them (VisibleText).
"use strict";

(function () {
  const token = metaContent("appdna-inspector-token");
  const kind = metaContent("appdna-inspector-kind") === "api" ? "api" : "webhook";
  const collection = kind === "api" ? "requests" : "deliveries";
  const pollMilliseconds = 1000;

  // [title, cell, width class]: the widths are in inspector.css, so the list keeps to its pane
  // (a long value takes two lines, then ends in an ellipsis; the cell's title and the detail
  // view have all of it).
  const columns = kind === "api"
    ? [["Time", timeCell, "time"], ["Request", requestCell, "request"], ["Endpoint", (e) => text(e.endpoint), "medium"],
       ["Status", statusCell, "status"], ["Fault", (e) => text(e.fault || ""), "medium"], ["Events", eventsCell, "medium"],
       ["Audit", auditCell, "audit"]]
    : [["Time", timeCell, "time"], ["Event", (e) => breakable(e.event), "medium"], ["Event id", (e) => breakable(e.event_id), "medium"],
       ["Signature", verdictCell, "verdict"], ["Sender got", statusCell, "narrow"], ["Handler", handlerCell, "short"]];

  let newest = 0;
  let keep = 0;
  let selected = null;
  let showExactBody = false;
  let shownDetail = null;
  let shownEditID = null;
  let editBodyEditable = false;
  const rows = new Map();

  const $ = (id) => document.getElementById(id);

  function metaContent(name) {
    const element = document.querySelector(`meta[name="${name}"]`);
    return element ? element.getAttribute("content") : "";
  }

  // --- Text as a person reads it -------------------------------------------------------------

  // Controls, bidi controls, line/paragraph separators and the noncharacters FDD0–FDEF, as in
  // appdna's VisibleText; `keepLines` leaves line feeds and tabs alone (bodies, pretty JSON).
  function visible(value, keepLines) {
    const string = value === null || value === undefined ? "" : String(value);
    let out = "";
    for (const character of string) {
      const code = character.codePointAt(0);
      if (keepLines && (code === 0x0A || code === 0x09)) {
        out += character;
      } else if (code === 0x0A) {
        out += "\\n";
      } else if (code === 0x0D) {
        out += "\\r";
      } else if (code === 0x09) {
        out += "\\t";
      } else if (code < 0x20 || code === 0x7F) {
        out += "\\x" + code.toString(16).toUpperCase().padStart(2, "0");
      } else if ((code >= 0x80 && code <= 0x9F) || code === 0x061C || code === 0x200E || code === 0x200F ||
                 (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069) ||
                 code === 0x2028 || code === 0x2029 || (code >= 0xFDD0 && code <= 0xFDEF)) {
        out += "\\u" + code.toString(16).toUpperCase().padStart(4, "0");
      } else {
        out += character;
      }
    }
    return out;
  }

  // An element holding `value` as text.
  function element(tag, value, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (value !== undefined && value !== null) node.textContent = visible(value, tag === "pre");
    return node;
  }

  function text(value) { return element("span", value); }

  function bytes(count) {
    if (count < 1024) return `${count} byte${count === 1 ? "" : "s"}`;
    if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB (${count} bytes)`;
    return `${(count / 1024 / 1024).toFixed(1)} MiB (${count} bytes)`;
  }

  function milliseconds(value) { return `${value} ms`; }

  // Every time on the page is written one way: ISO 8601 in UTC with milliseconds,
  // 2026-02-19T10:00:00.123Z, as the JSON API, --record files and the listener's own log lines
  // write it (they leave out .000; here the width stays the same). A time the browser cannot
  // read is shown as it came.
  function instant(value) {
    const date = value instanceof Date ? value : new Date(String(value));
    return Number.isNaN(date.getTime()) ? visible(value) : date.toISOString();
  }

  // --- The list ------------------------------------------------------------------------------

  function timeCell(entry) { return element("span", instant(entry.time), "mono time"); }

  // A name or id as text that may break after its dots, underscores and hyphens
  // (subscription.|renewed, evt_demo_|user_created) when its column is narrow. (Split at a line
  // feed put after each, as visible text has none of its own; no look-behind, which Safari
  // before 16.4 cannot parse.)
  function breakable(value) {
    const span = document.createElement("span");
    for (const part of visible(value).replace(/[._-]/g, "$&\n").split("\n").filter((piece) => piece !== "")) {
      if (span.firstChild) span.appendChild(document.createElement("wbr"));
      span.appendChild(document.createTextNode(part));
    }
    return span;
  }

  function requestCell(entry) { return element("span", `${entry.method} ${entry.target}`, "mono"); }

  function statusCell(entry) {
    return element("span", String(entry.status), entry.status >= 200 && entry.status < 300 ? "status ok" : "status bad");
  }

  function verdictCell(entry) {
    const cell = document.createElement("span");
    cell.className = "verdict-cell";
    cell.appendChild(element("span", entry.valid ? "valid" : "invalid", entry.valid ? "badge valid" : "badge invalid"));
    if (!entry.valid) {
      const first = entry.diagnoses.length > 0 ? entry.diagnoses[0].id : (entry.problem || "");
      cell.appendChild(element("span", " " + first, "why"));
      cell.setAttribute("title", entry.verdict);
    }
    return cell;
  }

  function handlerText(forward) {
    if (!forward) return "not forwarded";
    if (forward.status !== null) return `${forward.status} in ${milliseconds(forward.latency_ms)}`;
    return `failed after ${milliseconds(forward.latency_ms)}: ${forward.error}`;
  }

  function handlerCell(entry) {
    const good = entry.forward && entry.forward.status !== null && entry.forward.status < 300;
    return element("span", handlerText(entry.forward), entry.forward ? (good ? "status ok" : "status bad") : "muted");
  }

  function eventsCell(entry) {
    if (entry.endpoint !== "events" || entry.status !== 200) return text("");
    return text(`${entry.events} accepted, ${entry.duplicates} duplicate${entry.duplicates === 1 ? "" : "s"}`);
  }

  // A batch's exposure audit as a badge with its counts: red when any exposure disagrees with
  // the served bundle, green when all agree; the sentence api serve prints is its title.
  function auditCell(entry) {
    const audit = entry.audit;
    if (!audit) return text("");
    const bad = audit.disagreeing > 0;
    const words = bad ? `${audit.disagreeing} of ${audit.checked} disagree` : `${audit.agreeing} agree`;
    const badge = element("span", words, bad ? "badge invalid audit" : "badge valid audit");
    badge.setAttribute("title", visible(auditWords(audit)));
    return badge;
  }

  // "4 exposures checked against bundle_version 21: 1 agree, 3 disagree" (as on stdout).
  function auditWords(audit) {
    const version = audit.bundle_version === null ? "-" : String(audit.bundle_version);
    return `${audit.checked} exposure${audit.checked === 1 ? "" : "s"} checked against bundle_version ${version}: `
      + `${audit.agreeing} agree, ${audit.disagreeing} disagree` + (audit.skipped > 0 ? `, ${audit.skipped} skipped` : "")
      // Exposures from a bundle_version the server never served or wrote are not judged (issue 51.4).
      + (audit.unknown_versions || []).map((unknown) =>
        `; ${unknown.exposures} from bundle_version ${unknown.bundle_version}, which this server never served or wrote: not judged`).join("");
  }

  // The selected batch's audit: the counts, then each disagreeing exposure with its cause.
  function showAudit(entry) {
    const audit = entry.audit;
    const list = $("audit-mismatches");
    list.replaceChildren();
    $("audit-box").hidden = !audit;
    if (!audit) return;
    $("audit-summary").textContent = visible(auditWords(audit));
    $("audit-summary").className = audit.disagreeing > 0 ? "verdict invalid" : "verdict valid";
    for (const mismatch of audit.mismatches) {
      const item = document.createElement("li");
      item.className = "mismatch";
      const id = mismatch.event_id === null ? "no event_id" : mismatch.event_id;
      item.appendChild(element("span", `event ${mismatch.event_index} (${id}): `, "muted"));
      item.appendChild(element("span", mismatch.experiment, "mono"));
      item.appendChild(text(` recorded ${mismatch.recorded === null ? "none" : mismatch.recorded}, expected ${mismatch.expected === null ? "none" : mismatch.expected}`));
      const cause = document.createElement("div");
      cause.appendChild(element("span", mismatch.cause, "badge invalid cause"));
      cause.appendChild(element("span", ` ${mismatch.detail}`, "detail"));
      item.appendChild(cause);
      list.appendChild(item);
    }
    const unlisted = audit.disagreeing - audit.mismatches.length;
    $("audit-more").textContent = unlisted > 0 ? `and ${unlisted} more (the first ${audit.mismatches.length} are listed)` : "";
  }

  function buildHead() {
    const head = $("list-head");
    const widths = $("list-columns");
    for (const [title, , width] of columns) {
      const column = document.createElement("col");
      column.className = width;
      widths.appendChild(column);
      head.appendChild(element("th", title)).setAttribute("title", title);
    }
    $("placeholder").textContent = kind === "api"
      ? "No request selected: choose one in the list to see its headers, its body, a batch's events and the answer."
      : "No delivery selected: choose one in the list to see its signature check, headers, body and the handler's answer, and to replay it.";
  }

  function addRow(entry) {
    const row = document.createElement("tr");
    row.dataset.id = String(entry.id);
    row.tabIndex = 0;
    if (kind === "webhook") row.className = entry.valid ? "valid" : "invalid";
    for (const [, cell] of columns) {
      const td = document.createElement("td");
      td.appendChild(cell(entry));
      // What an ellipsis cuts is in the title (a cell that sets its own keeps it).
      if (!td.firstChild.hasAttribute("title")) td.setAttribute("title", td.textContent);
      row.appendChild(td);
    }
    row.addEventListener("click", () => select(entry.id));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") select(entry.id); });
    const body = $("list-body");
    body.insertBefore(row, body.firstChild);
    rows.set(entry.id, row);
    if (entry.id === selected) row.classList.add("selected");
  }

  // Drops the rows the server no longer keeps (the oldest), so the page is bounded as it is.
  function trim() {
    for (const id of [...rows.keys()].sort((a, b) => a - b)) {
      if (rows.size <= keep) break;
      rows.get(id).remove();
      rows.delete(id);
    }
  }

  async function poll() {
    let more = false;
    try {
      const response = await fetch(`/api/${collection}?after=${newest}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = await response.json();
      keep = page.keep;
      showListener(page.listener);
      // Oldest first, so that the newest ends on top (whatever order the answer lists them in).
      const entries = page[collection].slice().sort((a, b) => a.id - b.id);
      for (const entry of entries) {
        if (entry.id > newest) {
          addRow(entry);
          newest = entry.id;
          more = true;
        }
      }
      trim();
      $("empty").hidden = rows.size > 0;
      $("kept").textContent = rows.size > 0
        ? `${rows.size} shown of ${page.received} received; the inspector keeps the last ${page.keep}.` : "";
      $("live").textContent = `live: updated ${instant(new Date())}`;
      $("live").className = "live";
      if (selected === null && location.hash.length > 1) select(Number(location.hash.slice(1)));
    } catch (error) {
      $("live").textContent = `not connected (${error.message}): retrying`;
      $("live").className = "live down";
    }
    // An answer that brought new entries may be one page of several: ask for the next at once.
    setTimeout(poll, more ? 0 : pollMilliseconds);
  }

  function showListener(listener) {
    $("title").textContent = kind === "api" ? "appdna api serve: requests" : "appdna webhook listen: deliveries";
    let description = `listening on ${listener.address}`;
    if (kind === "webhook") description += listener.forward_to ? `, forwarding to ${listener.forward_to}` : ", not forwarding (no --forward-to)";
    // api serve: what a device pointed here gets from its bootstrap (docs/device-variants.md).
    if (kind === "api" && listener.bootstrap === "local") description += "; bootstrap: local (403: devices stay on their cache and bundled appdna-config.json; force a variant with a user id from POST /api/identity)";
    if (kind === "api" && listener.bootstrap === "live") description += "; bootstrap: live (devices read their real config; force a variant with a user id from POST /api/identity)";
    $("listener").textContent = visible(description);
  }

  // --- One entry -----------------------------------------------------------------------------

  async function select(id) {
    if (!Number.isInteger(id) || id < 1) return;
    selected = id;
    for (const [rowID, row] of rows) row.classList.toggle("selected", rowID === id);
    if (location.hash !== `#${id}`) history.replaceState(null, "", `#${id}`);
    const response = await fetch(`/api/${collection}/${id}`, { cache: "no-store" });
    if (selected !== id) return;
    if (!response.ok) {
      const problem = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      showMissing(problem.error);
      return;
    }
    showDetail(await response.json());
  }

  function showMissing(message) {
    $("placeholder").hidden = true;
    $("detail").hidden = false;
    $("detail-title").textContent = visible(message);
    for (const id of ["detail-verdict", "body-note", "answer-note", "body", "answer"]) $(id).textContent = "";
    for (const id of ["detail-diagnoses", "detail-facts", "headers-body"]) $(id).replaceChildren();
    for (const id of ["replay-box", "resend-box", "batch-box", "audit-box"]) $(id).hidden = true;
  }

  function fact(list, term, value) {
    list.appendChild(element("dt", term));
    list.appendChild(element("dd", value));
  }

  function showDetail(entry) {
    // An invalid delivery's diagnosis is about its bytes: they come first.
    if (!shownDetail || shownDetail.id !== entry.id) showExactBody = kind === "webhook" && !entry.valid;
    shownDetail = entry;
    $("placeholder").hidden = true;
    $("detail").hidden = false;
    const facts = $("detail-facts");
    facts.replaceChildren();
    const diagnoses = $("detail-diagnoses");
    diagnoses.replaceChildren();
    if (kind === "webhook") {
      $("detail-title").textContent = visible(`${entry.event}  ${entry.event_id}`);
      // The diagnoses go in the list below the verdict rather than in it twice.
      const verdict = entry.valid || entry.diagnoses.length === 0 ? entry.verdict : `invalid: ${entry.problem}`;
      $("detail-verdict").textContent = visible(verdict);
      $("detail-verdict").className = entry.valid ? "verdict valid" : "verdict invalid";
      for (const diagnosis of entry.diagnoses) diagnoses.appendChild(element("li", `${diagnosis.id}: ${diagnosis.message}`));
      fact(facts, "Received", instant(entry.time));
      fact(facts, "From", entry.peer);
      fact(facts, "Request", `${entry.method} ${entry.target}`);
      fact(facts, "Sender got", String(entry.status));
      fact(facts, "Handler", handlerText(entry.forward));
      showReplay(entry);
      showEdit(entry);
      $("resend-box").hidden = !entry.resend_command;
      $("resend").textContent = visible(entry.resend_command || "");
      $("batch-box").hidden = true;
      $("audit-box").hidden = true;
    } else {
      $("detail-title").textContent = visible(`${entry.method} ${entry.target}`);
      $("detail-verdict").textContent = visible(entry.note);
      $("detail-verdict").className = entry.status < 300 ? "verdict valid" : "verdict invalid";
      fact(facts, "Received", instant(entry.time));
      fact(facts, "From", entry.peer);
      fact(facts, "Endpoint", entry.endpoint);
      fact(facts, "Status", String(entry.status));
      fact(facts, "Injected fault", entry.fault || "none");
      if (entry.endpoint === "events") {
        fact(facts, "Events accepted", String(entry.events));
        fact(facts, "Duplicates", String(entry.duplicates));
      }
      $("replay-box").hidden = true;
      $("resend-box").hidden = true;
      showAudit(entry);
      showBatch(entry);
    }
    showHeaders(entry.headers);
    showBody(entry.body);
    $("answer-title").textContent = kind === "webhook" ? "What the sender was answered" : "Answer";
    const answer = entry.answer;
    $("answer-note").textContent = visible(`${answer.status}${answer.content_type ? ", " + answer.content_type : ""}, ${describe(answer.body)}`);
    $("answer").textContent = visible(answer.body.pretty || answer.body.text || "", true);
  }

  function showHeaders(headers) {
    const body = $("headers-body");
    body.replaceChildren();
    for (const [name, value] of headers) {
      const row = document.createElement("tr");
      row.appendChild(element("th", name));
      row.appendChild(value === null ? element("td", "(hidden: a credential)", "muted") : element("td", value));
      body.appendChild(row);
    }
  }

  function describe(body) {
    const kinds = { json: "JSON", text: "text", binary: "binary (not UTF-8; shown with \uFFFD for what is not text)", deflate: "raw DEFLATE" };
    const size = body.kept < body.length ? `the first ${bytes(body.kept)} of ${bytes(body.length)}` : bytes(body.length);
    return `${kinds[body.encoding] || body.encoding}, ${size}`;
  }

  function showBody(body) {
    let note = describe(body);
    if (body.encoding === "json") note += showExactBody ? ", as received" : ", pretty-printed";
    if (body.encoding === "deflate") note += kind === "api" ? ": the batch's events are above" : "";
    $("body-note").textContent = visible(note);
    $("body").textContent = visible(body.encoding === "json" && !showExactBody ? body.pretty : (body.text || ""), true);
    const toggle = $("body-raw");
    toggle.hidden = body.encoding !== "json";
    toggle.textContent = showExactBody ? "Show it pretty-printed" : "Show the exact bytes";
  }

  // An entry says `"replayable": false` with its reason (`replay_refusal`; `not_replayable` from
  // listeners before it) when the listener would refuse the replay; without the field it is
  // replayable, and the listener still has the last word.
  function showReplay(entry) {
    const refused = entry.replayable === false;
    $("replay-box").hidden = false;
    $("replay").disabled = refused;
    $("replay-box").classList.toggle("refused", refused);
    $("replay-note").textContent = visible(refused
      ? entry.replay_refusal || entry.not_replayable || "the listener cannot replay it"
      : `sends these exact bytes and headers to ${entry.forward_to} again`);
    const results = $("replay-results");
    results.replaceChildren();
    for (const result of entry.replay_results || []) results.appendChild(element("li", replayText(result)));
  }

  function replayText(result) {
    const answer = result.status !== null ? `${result.status} in ${milliseconds(result.latency_ms)}`
      : `failed after ${milliseconds(result.latency_ms)}: ${result.error}`;
    const how = result.modified ? `replayed with modifications (${result.signature}, ${bytes(result.body_length)})` : "replayed";
    return `${instant(result.time)}: ${how}, the handler answered ${answer}`;
  }

  // --- Edit and replay (webhook listen) ------------------------------------------------------

  // The form starts as the delivery was received: its body when it is text and whole, and its
  // headers, a credential's hidden value as null (the listener sends what it received).
  function showEdit(entry) {
    const box = $("edit-box");
    box.hidden = !entry.forward_to;
    if (shownEditID === entry.id) return;
    shownEditID = entry.id;
    const textual = (entry.body.encoding === "json" || entry.body.encoding === "text") && entry.body.kept === entry.body.length;
    const area = $("edit-body");
    area.value = textual ? entry.body.text : "";
    area.disabled = !textual;
    editBodyEditable = textual;
    $("edit-body-note").textContent = textual ? "" : "This body is not whole text: it is sent as received.";
    const rows = $("edit-headers");
    rows.replaceChildren();
    for (const [name, value] of entry.headers) addHeaderRow(name, value);
    $("edit-note").textContent = "";
  }

  function addHeaderRow(name, value) {
    const row = document.createElement("div");
    row.className = "header-row";
    const nameInput = document.createElement("input");
    nameInput.className = "header-name";
    nameInput.value = name;
    nameInput.setAttribute("aria-label", "header name");
    const valueInput = document.createElement("input");
    valueInput.className = "header-value";
    valueInput.setAttribute("aria-label", "header value");
    if (value === null) {
      // A credential: its value stays in the listener.
      valueInput.placeholder = "(hidden: a credential, sent as received)";
      valueInput.dataset.hidden = "true";
    } else {
      valueInput.value = value;
    }
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "Remove";
    remove.addEventListener("click", () => row.remove());
    row.append(nameInput, valueInput, remove);
    $("edit-headers").appendChild(row);
  }

  function editedRequest() {
    const headers = [];
    for (const row of $("edit-headers").querySelectorAll(".header-row")) {
      const name = row.querySelector(".header-name").value.trim();
      const input = row.querySelector(".header-value");
      if (name === "") continue;
      headers.push([name, input.dataset.hidden === "true" && input.value === "" ? null : input.value]);
    }
    const checked = document.querySelector('input[name="edit-signature"]:checked');
    const request = { headers, signature: checked ? checked.value : "resign" };
    if (editBodyEditable) request.body = $("edit-body").value;
    return request;
  }

  async function editAndReplay() {
    const id = selected;
    const button = $("edit-replay");
    button.disabled = true;
    $("edit-note").textContent = "replaying…";
    try {
      const answer = await send("POST", `/api/${collection}/${id}/replay`, editedRequest());
      if (selected === id) $("edit-note").textContent = visible(`replayed: ${replayText(answer.replay)}`);
    } catch (error) {
      if (selected === id) $("edit-note").textContent = visible(`the replay failed: ${error.message}`);
      button.disabled = false;
      return;
    }
    button.disabled = false;
    if (selected === id) await select(id);
  }

  // A request that changes something: with the page's token, a JSON body when there is one;
  // the answer's JSON, or an Error with the API's own message.
  async function send(method, path, body) {
    const headers = { "X-AppDNA-Inspector-Token": token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // A body already JSON text (a value sent exactly as typed) goes as it is.
    const sent = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const response = await fetch(path, { method, headers, cache: "no-store", body: sent });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
    return answer;
  }

  function showBatch(entry) {
    const box = $("batch-box");
    const list = $("batch");
    list.replaceChildren();
    if (!entry.batch) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    $("batch-title").textContent = entry.batch.length < entry.batch_count
      ? `Events (the first ${entry.batch.length} of ${entry.batch_count})` : `Events (${entry.batch_count})`;
    for (const event of entry.batch) {
      const item = document.createElement("details");
      item.className = event.duplicate ? "event duplicate" : "event";
      const name = event.event_name === null ? "(no event_name)" : event.event_name;
      const id = event.event_id === null ? "(no event_id)" : event.event_id;
      item.appendChild(element("summary", `${name}  ${id}  ${event.duplicate ? "duplicate" : "accepted"}`));
      item.appendChild(element("pre", event.pretty, "payload"));
      list.appendChild(item);
    }
  }

  async function replay() {
    const id = selected;
    const button = $("replay");
    button.disabled = true;
    $("replay-note").textContent = "replaying…";
    try {
      const response = await fetch(`/api/${collection}/${id}/replay`, {
        method: "POST",
        headers: { "X-AppDNA-Inspector-Token": token },
        cache: "no-store",
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
    } catch (error) {
      if (selected === id) $("replay-note").textContent = visible(`the replay failed: ${error.message}`);
      button.disabled = false;
      return;
    }
    if (selected === id) await select(id);
  }

  // --- The console (api serve): the served bundle and its overrides --------------------------

  const consoleMilliseconds = 2000;
  let shownConsole = "";

  // GET /api/bundle and /api/overrides; drawn again only when they changed, so a value being
  // typed is not wiped by a poll. A server without them (404) shows no console.
  async function pollConsole() {
    try {
      const [bundleAnswer, overridesAnswer] = await Promise.all([fetch("/api/bundle", { cache: "no-store" }),
                                                                 fetch("/api/overrides", { cache: "no-store" })]);
      if (bundleAnswer.status === 404) {
        $("console").hidden = true;
        return;
      }
      const bundle = await bundleAnswer.json();
      const overrides = await overridesAnswer.json();
      if (!bundleAnswer.ok) throw new Error(bundle.error || `HTTP ${bundleAnswer.status}`);
      if (!overridesAnswer.ok) throw new Error(overrides.error || `HTTP ${overridesAnswer.status}`);
      showConsole(bundle, overrides);
    } catch (error) {
      consoleError(`cannot read the served bundle: ${error.message}`);
    }
    setTimeout(pollConsole, consoleMilliseconds);
  }

  function consoleError(message) {
    $("console-error").hidden = !message;
    $("console-error").textContent = visible(message || "");
  }

  // A value as JSON text, the characters `visible` escapes written as JSON escapes (\u202E): the
  // same value when parsed back (the console's inputs are sent as they read), and nothing in it
  // that reorders or hides what is read. (JSON.stringify escapes the C0 controls itself.)
  function json(value) {
    return JSON.stringify(value === undefined ? null : value)
      .replace(/[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFDD0-\uFDEF]/g,
               (character) => "\\u" + character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));
  }

  // JSON text as the server wrote it (value_json: the exact number 12345678901234567890123456789,
  // 1e999, which JSON.parse would round or make null), with the characters `json` escapes
  // written as JSON escapes: the same value when sent back.
  function jsonText(text, value) {
    if (typeof text !== "string") return json(value);
    return text.replace(/[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFDD0-\uFDEF]/g,
                        (character) => "\\u" + character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));
  }

  function showConsole(bundle, overrides) {
    const state = json([bundle, overrides]);
    $("console").hidden = false;
    if (state === shownConsole) return;
    shownConsole = state;
    $("console-title").textContent = visible(`Served bundle, version ${bundle.bundle_version}`);
    $("console-source").textContent = visible(`from ${bundle.source}`);

    const list = $("console-overrides");
    list.replaceChildren();
    for (const override of overrides.overrides || []) {
      const item = document.createElement("li");
      item.dataset.kind = String(override.kind);
      item.dataset.key = String(override.key);
      item.appendChild(element("span", `${override.kind} ${override.key} = ${jsonText(override.value_json, override.value)}`, "mono"));
      // Stale: kept, not applied (the served bundle has no such experiment, variant, flag or flow now).
      if (override.stale) {
        const badge = element("span", "stale", "badge stale");
        badge.title = visible(override.stale_reason || "");
        item.appendChild(badge);
        item.appendChild(element("span", ` ${override.stale_reason || ""}`, "muted stale-reason"));
      }
      item.appendChild(clearButton(override.kind, override.key));
      list.appendChild(item);
    }
    $("console-no-overrides").hidden = list.childElementCount > 0;

    const experiments = $("console-experiments");
    experiments.replaceChildren();
    for (const experiment of bundle.experiments || []) experiments.appendChild(experimentBlock(experiment));
    valueRows($("console-flags"), "flag", bundle.flags || []);
    valueRows($("console-config"), "config", bundle.config || []);
    onboardingBlock(bundle.onboarding || { flow: null, overridden: false });
  }

  function clearButton(kind, key) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "clear";
    button.textContent = "Clear";
    button.addEventListener("click", () => change("DELETE", kind, key));
    return button;
  }

  function overriddenBadge() { return element("span", "overridden", "badge overridden"); }

  // An experiment: its variants with their shares as bars, and a choice to force one.
  function experimentBlock(experiment) {
    const block = document.createElement("div");
    block.className = "experiment";
    block.dataset.key = String(experiment.key);
    const head = document.createElement("div");
    head.className = "experiment-head";
    head.appendChild(element("span", experiment.key, "mono key"));
    head.appendChild(element("span", ` ${experiment.status}`, "muted"));
    if (experiment.overridden !== null && experiment.overridden !== undefined) head.appendChild(overriddenBadge());
    block.appendChild(head);
    // The variants, each with its share of users as a bar.
    for (const variant of experiment.variants || []) {
      const row = document.createElement("div");
      row.className = "variant";
      const share = Math.max(0, Math.min(1, Number(variant.share) || 0));
      row.appendChild(element("span", variant.id, "mono variant-id"));
      const bar = document.createElement("span");
      bar.className = "bar";
      const fill = document.createElement("span");
      fill.className = "fill";
      // Through the CSSOM: the Content-Security-Policy forbids style attributes, not this.
      fill.style.width = `${(share * 100).toFixed(2)}%`;
      bar.appendChild(fill);
      row.appendChild(bar);
      row.appendChild(element("span", `${(share * 100).toFixed(1)}%`, "share"));
      block.appendChild(row);
    }
    const controls = document.createElement("div");
    controls.className = "controls";
    const choice = document.createElement("select");
    choice.className = "variant-choice";
    choice.setAttribute("aria-label", `variant of ${visible(experiment.key)}`);
    for (const variant of experiment.variants || []) {
      const option = document.createElement("option");
      option.value = String(variant.id);
      option.textContent = visible(variant.id);
      if (variant.id === experiment.overridden) option.selected = true;
      choice.appendChild(option);
    }
    const force = document.createElement("button");
    force.type = "button";
    force.className = "set";
    force.textContent = "Force";
    force.addEventListener("click", () => change("PUT", "experiment", experiment.key, choice.value));
    // A user id that lands in the variant on the device's own config (POST /api/identity).
    const identity = document.createElement("button");
    identity.type = "button";
    identity.className = "identity";
    identity.textContent = "User id";
    identity.addEventListener("click", () => findIdentity(experiment.key, choice.value));
    controls.append(choice, force, identity);
    if (experiment.overridden !== null && experiment.overridden !== undefined) controls.appendChild(clearButton("experiment", experiment.key));
    // On the experiment's own line, so that each takes a line more than its variants.
    head.appendChild(controls);
    return block;
  }

  // Flags or config values: key, value (JSON), and an input to override it with a JSON value.
  function valueRows(table, kind, values) {
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const item of values) {
      const row = document.createElement("tr");
      row.dataset.key = String(item.key);
      const name = document.createElement("th");
      name.appendChild(element("span", item.key, "mono"));
      if (item.overridden) name.appendChild(overriddenBadge());
      row.appendChild(name);
      row.appendChild(element("td", jsonText(item.value_json, item.value), "mono value"));
      const cell = document.createElement("td");
      const controls = document.createElement("div");
      controls.className = "controls";
      cell.appendChild(controls);
      const input = document.createElement("input");
      input.className = "value-input";
      input.value = jsonText(item.value_json, item.value);
      input.setAttribute("aria-label", `new value of ${visible(item.key)} (JSON)`);
      const set = document.createElement("button");
      set.type = "button";
      set.className = "set";
      set.textContent = "Set";
      set.addEventListener("click", () => {
        // Checked here, sent as typed: JSON.parse would round a long number or make 1e999 null.
        try {
          JSON.parse(input.value);
        } catch (error) {
          consoleError(`the value of ${item.key} must be JSON (a string in double quotes): ${error.message}`);
          return;
        }
        change("PUT", kind, item.key, undefined, `{"value": ${input.value}}`);
      });
      controls.append(input, set);
      if (item.overridden) controls.appendChild(clearButton(kind, item.key));
      row.appendChild(cell);
      body.appendChild(row);
    }
  }

  function onboardingBlock(onboarding) {
    const block = $("console-onboarding");
    block.replaceChildren();
    const line = document.createElement("p");
    line.appendChild(element("span", onboarding.flow === null ? "no active flow" : `active flow: ${onboarding.flow}`, "mono"));
    if (onboarding.overridden) line.appendChild(overriddenBadge());
    block.appendChild(line);
    const controls = document.createElement("div");
    controls.className = "controls";
    // A list of the bundle's flows, as an experiment has one of its variants; a text box only
    // when the bundle lists none (then any flow id is taken).
    const flows = onboarding.flows || [];
    let input;
    if (flows.length > 0) {
      input = document.createElement("select");
      for (const flow of flows) {
        const option = document.createElement("option");
        option.value = String(flow);
        option.textContent = visible(flow);
        if (flow === onboarding.flow) option.selected = true;
        input.appendChild(option);
      }
    } else {
      input = document.createElement("input");
      // The flow in the placeholder, as text that shows (what is typed is sent as typed).
      input.placeholder = onboarding.flow === null ? "a flow id" : visible(onboarding.flow);
    }
    input.id = "onboarding-flow";
    input.setAttribute("aria-label", "onboarding flow");
    const set = document.createElement("button");
    set.type = "button";
    set.className = "set";
    set.textContent = "Set the flow";
    set.addEventListener("click", () => {
      if (input.value === "") {
        consoleError("type the id of the onboarding flow to make active");
        return;
      }
      change("PUT", "onboarding", "flow", input.value);
    });
    controls.append(input, set);
    if (onboarding.overridden) controls.appendChild(clearButton("onboarding", "flow"));
    block.appendChild(controls);
  }

  // POST /api/identity for one forced variant in the context typed above the experiments: the
  // id and the identify() line of each SDK, shown as text; a refusal's reasons as the error.
  async function findIdentity(key, variant) {
    const context = { platform: $("identity-platform").value };
    if ($("identity-country").value) context.country = $("identity-country").value;
    if ($("identity-app-version").value) context.app_version = $("identity-app-version").value;
    const traits = {};
    for (const pair of $("identity-traits").value.split(",")) {
      const equals = pair.indexOf("=");
      if (equals > 0) traits[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
    }
    if (Object.keys(traits).length) context.traits = traits;
    try {
      const answer = await send("POST", "/api/identity", { force: { [key]: variant }, context });
      consoleError("");
      const lines = [`${key} = ${variant} for user id ${answer.user_id}; identify it before the first variant is read:`];
      for (const [language, line] of Object.entries(answer.identify || {})) lines.push(`${language}: ${line}`);
      $("console-identity").textContent = visible(lines.join("\n"), true);
      $("console-identity").hidden = false;
    } catch (error) {
      $("console-identity").hidden = true;
      consoleError(`no user id for ${key} = ${variant}: ${error.message}`);
    }
  }

  // PUT (with a value) or DELETE one override, then the console drawn from the server's answer.
  async function change(method, kind, key, value, bodyText) {
    const path = `/api/overrides/${encodeURIComponent(kind)}/${encodeURIComponent(key)}`;
    try {
      await send(method, path, method === "PUT" ? bodyText ?? { value } : undefined);
      consoleError("");
    } catch (error) {
      consoleError(`${method === "PUT" ? "setting" : "clearing"} the override of ${kind} ${key} failed: ${error.message}`);
    }
    shownConsole = "";
    await refreshConsole();
  }

  async function refreshConsole() {
    try {
      const [bundle, overrides] = await Promise.all([fetch("/api/bundle", { cache: "no-store" }).then((r) => r.json()),
                                                     fetch("/api/overrides", { cache: "no-store" }).then((r) => r.json())]);
      if (bundle.error || overrides.error) throw new Error(bundle.error || overrides.error);
      showConsole(bundle, overrides);
    } catch (error) {
      consoleError(`cannot read the served bundle: ${error.message}`);
    }
  }

  async function refetch() {
    try {
      await send("POST", "/api/bundle/refetch");
      consoleError("");
    } catch (error) {
      consoleError(`fetching the bundle again failed: ${error.message}`);
    }
    shownConsole = "";
    await refreshConsole();
  }

  function toggleBody() {
    showExactBody = !showExactBody;
    if (shownDetail) showBody(shownDetail.body);
  }

  document.addEventListener("DOMContentLoaded", () => {
    buildHead();
    $("replay").addEventListener("click", replay);
    $("body-raw").addEventListener("click", toggleBody);
    $("edit-add-header").addEventListener("click", () => addHeaderRow("", ""));
    $("edit-replay").addEventListener("click", editAndReplay);
    poll();
    if (kind === "api") {
      $("console-refetch").addEventListener("click", refetch);
      pollConsole();
    }
  });
})();
