// The page of `ferrex ui`: search, a memory with its belief history, an
// entity with its facts and neighbours, topics, what agents' sessions were
// told with their prompts and why, devices; forgetting with a
// confirmation. Every call carries the token the URL came with.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (selector) => document.querySelector(selector);

/** An element with attributes and children (strings become text). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A call to the page's own server, with the token; its JSON answer, or
// an error with the server's message.
async function request(path, init = {}) {
  const headers = { ...(init.headers || {}), "X-Ferrex-Token": token };
  const response = await fetch(path, { ...init, headers });
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

const api = (name, args) =>
  request(`/api/call/${name}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(args),
  });

const devicesStatus = () => request("/api/devices");

/** The namespaces a call spans: the one chosen, or every one. */
const spanning = () => ($("#namespace").value ? { namespace: $("#namespace").value } : { all: true });
const day = (time) => (time || "").slice(0, 10);
const status = (text, error = false) => {
  $("#status").textContent = text;
  $("#status").className = error ? "error" : "";
};

/** A memory's content in one line. */
function text(memory) {
  if (memory.content !== undefined) return memory.content;
  return `${memory.subject} · ${(memory.predicate || "").replaceAll("_", " ")} · ${memory.object}`;
}

function show(view) {
  for (const section of document.querySelectorAll(".view")) section.hidden = section.id !== `${view}-view`;
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === view);
}

// ---- search -------------------------------------------------------------

async function search(event) {
  if (event) event.preventDefault();
  const args = { query: $("#query").value, ...spanning(), limit: 25 };
  if ($("#type").value) args.types = [$("#type").value];
  if ($("#invalidated").checked) args.include_invalidated = true;
  status("searching…");
  try {
    const started = performance.now();
    const answer = await api("recall", args);
    renderResults(answer.results);
    const took = Math.round(performance.now() - started);
    status(`${answer.count} found in ${took} ms${answer.pending ? ` — ${answer.pending.note}` : ""}`);
    document.body.dataset.searched = String(Date.now());
  } catch (error) {
    status(error.message, true);
  }
}

function renderResults(memories) {
  const list = $("#results");
  list.replaceChildren(
    ...memories.map((memory) =>
      el("li", {},
        el("button", { type: "button", class: "hit", "data-id": memory.id, onclick: () => openMemory(memory.id) },
          el("div", {}, text(memory)),
          el("div", { class: "meta" },
            [memory.namespace, memory.type, memory.status, memory.staleness, day(memory.t_valid),
              memory.score !== undefined ? `score ${memory.score.toFixed(3)}` : null]
              .filter(Boolean).join(" · ")))))
  );
}

// ---- a memory -----------------------------------------------------------

async function openMemory(id) {
  show("search");
  const detail = $("#detail");
  for (const hit of document.querySelectorAll(".hit")) hit.classList.toggle("selected", hit.dataset.id === id);
  try {
    const shown = await api("show", { id });
    renderMemory(shown);
  } catch (error) {
    detail.hidden = false;
    detail.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

function renderMemory(shown) {
  const memory = shown.memory;
  const rows = [
    ["type", memory.type],
    ["status", memory.status],
    ["namespace", memory.namespace],
    ["stored", memory.created_at],
    ["valid from", memory.t_valid],
    ["until", memory.t_invalid],
    ["trust", `${memory.trust.toFixed(2)} (evidence ${memory.evidence}, ${memory.staleness})`],
    ["file", memory.file && [memory.file.path, memory.file.heading].filter(Boolean).join(" > ")],
    ["source", memory.source],
    ["context", memory.context],
    ["id", memory.id],
  ].filter(([, value]) => value !== undefined && value !== null && value !== "");
  const timeline = el("ol", { class: "timeline", id: "timeline" },
    shown.history.map((step) =>
      el("li", { class: step.id === memory.id ? "current" : (step.status || "") },
        el("div", {}, el("strong", {}, day(step.t_valid)), " ", text(step)),
        el("div", { class: "meta" },
          [step.status, step.device && (step.device.name || step.device.id.slice(0, 8))].filter(Boolean).join(" · ")))));
  $("#detail").hidden = false;
  $("#detail").replaceChildren(el("div", {},
    el("h2", {}, text(memory)),
    el("dl", {}, rows.map(([key, value]) => [el("dt", {}, key), el("dd", {}, value)])),
    memory.tags ? el("p", {}, "tags ", memory.tags.map((tag) => el("span", { class: "chip" }, tag))) : null,
    shown.entities.length
      ? el("p", {}, "about ", shown.entities.map((entity) =>
          el("button", { type: "button", class: "chip entity", onclick: () => openEntity(entity.id) }, entity.name)))
      : null,
    shown.history.length > 1 ? [el("h3", {}, "History"), timeline] : null,
    shown.edges.length
      ? [el("h3", {}, "Edges"), el("ul", {}, shown.edges.map((edge) => el("li", { class: "meta" }, `${edge.from} —${edge.kind}→ ${edge.to}`)))]
      : null,
    el("p", {}, el("button", { type: "button", class: "danger", id: "forget", onclick: () => forget(memory) }, "Forget…"))));
}

async function forget(memory) {
  const question = `Forget this memory on every paired device, for good?\n\n${text(memory)}`;
  if (!window.confirm(question)) {
    status("nothing forgotten");
    return;
  }
  try {
    const answer = await api("forget", { ids: [memory.id] });
    if (answer.forgotten.includes(memory.id)) {
      document.querySelector(`.hit[data-id="${CSS.escape(memory.id)}"]`)?.closest("li")?.remove();
      $("#detail").replaceChildren(el("p", { id: "forgotten" }, "Forgotten, here and on every device as they sync."));
      status(`forgot ${memory.id}`);
    } else {
      status(`${memory.id} was not found (already forgotten?)`, true);
    }
  } catch (error) {
    status(error.message, true);
  }
}

// ---- an entity ----------------------------------------------------------

async function openEntity(id) {
  show("entity");
  const view = $("#entity-view");
  view.replaceChildren(el("p", { class: "meta" }, "loading…"));
  try {
    renderEntity(await api("entity", { id }));
  } catch (error) {
    view.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

/** Its neighbours around it, each a link to its own view. */
function graph(entity) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = (tag, attributes = {}, ...children) => {
    const node = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    node.append(...children);
    return node;
  };
  const neighbours = entity.neighbours.slice(0, 16);
  const size = 420, middle = size / 2, radius = 150;
  const root = svg("svg", { class: "graph", viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": `${entity.name} and its neighbours` });
  neighbours.forEach((other, index) => {
    const angle = (2 * Math.PI * index) / Math.max(neighbours.length, 1) - Math.PI / 2;
    const x = middle + radius * Math.cos(angle), y = middle + radius * Math.sin(angle);
    root.append(svg("line", { x1: middle, y1: middle, x2: x, y2: y, "stroke-width": Math.min(1 + other.count, 6) }));
    const node = svg("g", { class: "node", "data-id": other.id },
      svg("circle", { cx: x, cy: y, r: 26 }),
      svg("text", { x, y }, other.name.length > 14 ? `${other.name.slice(0, 13)}…` : other.name),
      svg("title", {}, `${other.name}: ${other.count} shared`));
    node.addEventListener("click", () => openEntity(other.id));
    root.append(node);
  });
  root.append(svg("g", { class: "centre" }, svg("circle", { cx: middle, cy: middle, r: 34 }),
    svg("text", { x: middle, y: middle }, entity.name.length > 14 ? `${entity.name.slice(0, 13)}…` : entity.name)));
  return root;
}

function renderEntity(entity) {
  const facts = entity.memories.filter((memory) => memory.subject !== undefined && memory.subject.toLowerCase() === entity.name.toLowerCase());
  const mentions = entity.memories.filter((memory) => !facts.includes(memory));
  const item = (memory) =>
    el("li", { class: memory.status === "superseded" ? "superseded" : "current" },
      el("button", { type: "button", class: "hit", "data-id": memory.id, onclick: () => openMemory(memory.id).then(() => renderResults([memory])) },
        el("div", {}, text(memory)),
        el("div", { class: "meta" }, [day(memory.t_valid), memory.status].filter(Boolean).join(" · "))));
  $("#entity-view").replaceChildren(
    el("div", { class: "panel" },
      el("h2", { id: "entity-name" }, entity.name),
      el("p", { class: "meta" }, `${entity.namespace} · ${entity.memories.length} memories · ${entity.neighbours.length} neighbours`),
      entity.neighbours.length ? graph(entity) : el("p", { class: "meta" }, "no neighbours yet"),
      entity.relations.length
        ? [el("h3", {}, "Relations"), el("ul", { id: "relations" }, entity.relations.map((relation) =>
            el("li", {},
              relation.direction === "out" ? `${relation.relation.replaceAll("_", " ")} → ` : `← ${relation.relation.replaceAll("_", " ")} `,
              el("button", { type: "button", class: "chip entity", onclick: () => openEntity(relation.id) }, relation.name),
              el("span", { class: "meta" }, ` weight ${relation.weight} · ${relation.by.join(", ")}`))))]
        : null,
      facts.length ? [el("h3", {}, "Facts"), el("ol", { class: "timeline" }, facts.map(item))] : null,
      mentions.length ? [el("h3", {}, "Mentioned in"), el("ol", { class: "timeline" }, mentions.map(item))] : null));
}

// ---- topics and devices -------------------------------------------------

async function openTopics() {
  show("topics");
  const view = $("#topics-view");
  try {
    const topics = await api("topics", spanning());
    view.replaceChildren(
      el("div", { class: "panel" },
        el("h2", {}, "Tags"),
        topics.tags.length
          ? el("p", {}, topics.tags.map((tag) => el("button", { type: "button", class: "chip", onclick: () => byTag(tag.tag) }, `${tag.tag} (${tag.count})`)))
          : el("p", { class: "meta" }, "no tags"),
        el("h2", {}, "Entities"),
        topics.entities.length
          ? el("p", {}, topics.entities.map((entity) => el("button", { type: "button", class: "chip entity", onclick: () => openEntity(entity.id) }, `${entity.name} (${entity.count})`)))
          : el("p", { class: "meta" }, "no entities")));
  } catch (error) {
    view.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

async function byTag(tag) {
  show("search");
  try {
    const listed = await api("list", { ...spanning(), tag, limit: 100 });
    renderResults(listed.memories);
    status(`${listed.total} memories tagged ${tag}`);
  } catch (error) {
    status(error.message, true);
  }
}

async function openTold() {
  show("told");
  const view = $("#told-view");
  try {
    const told = await api("told", {});
    const why = (entry) => entry.why
      ? `with the prompt “${entry.prompt}”: similarity ${entry.why.similarity.toFixed(2)}, ${Math.round(entry.why.keywords * 100)}% of its keywords (${entry.why.rule || "no rule"})`
      : "shown in the session-start context";
    view.replaceChildren(
      el("div", { class: "panel" },
        el("h2", {}, "Told with prompts (the last day)"),
        told.sessions.length
          ? told.sessions.map((session) => el("section", { class: "told-session" },
              el("h3", {}, `session ${session.session_id}`),
              el("ol", { class: "timeline" }, session.told.map((entry) => el("li", {},
                el("button", { type: "button", class: "link", onclick: () => openMemory(entry.id) }, entry.line),
                el("p", { class: "meta" }, `${entry.at} · ${why(entry)}`))))))
          : el("p", { class: "meta", id: "none-told" }, "No session was told anything with its prompts in the last day.")));
  } catch (error) {
    view.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

async function openDevices() {
  show("devices");
  const view = $("#devices-view");
  try {
    const state = await devicesStatus();
    const peers = state.peers || [];
    view.replaceChildren(
      el("div", { class: "panel" },
        el("h2", {}, `This device: ${state.device.name || state.device.short_id}`),
        el("p", { class: "meta" }, `${state.device.id}${state.index ? ` · index lag ${state.index.lag_changes} changes, ${state.index.embeddings_queued} to embed` : ""}`),
        el("h2", {}, "Paired devices"),
        peers.length
          ? el("table", { id: "peers" },
              el("tr", {}, ["device", "online", "last seen", "they lack", "we lack"].map((head) => el("th", {}, head))),
              peers.map((peer) => el("tr", {},
                el("td", {}, peer.name || peer.short_id), el("td", {}, peer.online ? "yes" : "no"),
                el("td", {}, peer.last_seen || "never"), el("td", {}, peer.they_lack), el("td", {}, peer.we_lack))))
          : el("p", { class: "meta", id: "no-peers" }, "No device is paired yet: run `ferrex invite` here and `ferrex join` on the other."),
        el("h2", {}, "Documents"),
        el("table", {},
          el("tr", {}, ["document", "heads"].map((head) => el("th", {}, head))),
          (state.documents || []).map((doc) => el("tr", {},
            el("td", {}, doc.doc), el("td", {}, (doc.heads || []).length))))));
  } catch (error) {
    view.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

// ---- wiring -------------------------------------------------------------

/** The namespace choices: every namespace this node holds, by size. */
async function loadNamespaces() {
  try {
    const stats = await api("stats", {});
    const names = Object.entries(stats.by_namespace || {}).sort((a, b) => b[1] - a[1]);
    $("#namespace").append(...names.map(([name, count]) => el("option", { value: name }, `${name} (${count})`)));
  } catch (error) {
    status(error.message, true);
  }
}

$("#search-form").addEventListener("submit", search);
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    if (tab.dataset.view === "topics") openTopics();
    else if (tab.dataset.view === "devices") openDevices();
    else if (tab.dataset.view === "told") openTold();
    else show("search");
  });
}
loadNamespaces().finally(() => { document.body.dataset.ready = "true"; });
