"use strict";
// iolab serve: the What-if, Plan and Results pages. Plain JavaScript, no build step, nothing
// from the network: every figure comes from the server's /api endpoints, which return what
// the command line's --json prints.

const boot = JSON.parse(document.getElementById("boot").textContent);
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ requests

function address(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  if (boot.token) q.set("token", boot.token);
  const s = q.toString();
  return path + (s ? "?" + s : "");
}

async function call(method, path, params, body) {
  const options = { method, headers: {} };
  if (boot.token) options.headers["X-Iolab-Token"] = boot.token;
  if (body !== undefined) { options.body = body; options.headers["Content-Type"] = "application/yaml"; }
  const r = await fetch(address(path, params), options);
  const type = r.headers.get("content-type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const e = new Error((data && data.error) || r.statusText);
    e.field = data && data.field; e.status = r.status;
    throw e;
  }
  return data;
}

function download(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function status(text) { $("status").textContent = text || ""; }

// ------------------------------------------------------------------ numbers as iolab prints them

const group = (x, digits) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
// iolab.units' rules: four significant digits without trailing zeros, thousands separators,
// the unit that reads best (the next one from 0.9995 of it on)
function sig4(x) {
  if (x === 0) return "0";
  if (!isFinite(x)) return x > 0 ? "∞" : "-∞";
  const t = group(x, Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x)))));
  return t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t;
}
function scaled(x, base, names) {
  if (x == null) return "–";
  let i = 0;
  while (i + 1 < names.length && Math.abs(x) >= base ** (i + 1) * 0.9995) i++;
  return sig4(x / base ** i) + " " + names[i];
}
function fmtOps(x) { return x == null ? "–" : (x >= 100 ? group(x, 0) : sig4(x)) + " IOPS"; }
function fmtRate(x) { return scaled(x, 1000, ["B/s", "KB/s", "MB/s", "GB/s", "TB/s"]); }
function fmtRateBin(x) { return scaled(x, 1024, ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"]); }
function fmtSize(x) { return scaled(x, 1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]); }
function fmtDur(s) {
  if (s == null) return "–";
  if (s === 0) return "0 s";
  for (const [u, f] of [["ns", 1e-9], ["us", 1e-6], ["ms", 1e-3]]) if (Math.abs(s) < f * 999.95) return sig4(s / f) + " " + u;
  if (Math.abs(s) < 120) return sig4(s) + " s";
  if (Math.abs(s) < 7200) return sig4(s / 60) + " m";
  return sig4(s / 3600) + " h";
}
function fmtMoney(x) { return x == null ? "unpriced" : "$" + group(x, 2); }
function pct(u) { return (100 * u).toFixed(1) + "%"; }
function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }

// ------------------------------------------------------------------ errors beside their field

function clearErrors(form) {
  form.querySelectorAll("[data-err]").forEach((p) => { p.textContent = ""; });
  form.querySelectorAll(".bad").forEach((i) => i.classList.remove("bad"));
}

// Show `e` beside the field it names: the longest data-err key that the field ends with or
// starts with, else in the form's general place (`fallback`).
function showError(form, e, keyOf, fallback) {
  const field = e.field ? keyOf(e.field) : null;
  let target = null;
  if (field) {
    let key = field;
    while (key && !target) {
      target = form.querySelector(`[data-err="${CSS.escape(key)}"]`);
      if (!target) key = key.includes(".") ? key.slice(0, key.lastIndexOf(".")) : "";
    }
  }
  const place = target || fallback;
  place.textContent = (target ? "" : (e.field ? e.field + ": " : "")) + e.message;
  let label = target && target.previousElementSibling;
  while (label && label.tagName !== "LABEL" && label.tagName !== "TEXTAREA") label = label.previousElementSibling;
  const input = label && (label.tagName === "TEXTAREA" ? label : label.querySelector("input,select,textarea"));
  if (input) input.classList.add("bad");
}

// ------------------------------------------------------------------ tabs

function showTab(name) {
  document.querySelectorAll("section.tab").forEach((s) => { s.hidden = s.id !== name; });
  document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("on", a.dataset.tab === name));
  if (name === "results" && !runsLoaded) loadRuns();
}
window.addEventListener("hashchange", () => showTab(location.hash.slice(1) || "whatif"));

// ------------------------------------------------------------------ catalog choices

let choices = { vms: [], disks: [], levels: [] };
async function loadChoices() {
  choices = await call("GET", "/api/choices", { region: $("w-region").value });
  $("vm-list").innerHTML = choices.vms.map((v) => `<option value="${esc(v.id)}">${v.vcpus} vCPU, ${fmtSize(v.memory)}` +
    (v.uncached_iops ? `, ${fmtOps(v.uncached_iops)}` : "") + (v.price_per_month != null ? `, ${fmtMoney(v.price_per_month)}/month` : "") + "</option>").join("");
  $("disk-list").innerHTML = choices.disks.map((d) => `<option value="${esc(d.id)}">${esc(d.tier)}` +
    (d.size ? `, ${fmtSize(d.size)}, ${fmtOps(d.iops)}` : ", provisioned") + "</option>").join("");
  fillLevels();
  vmFacts();
}
function fillLevels() {
  const service = $("w-service").value;
  const levels = choices.levels.filter((l) => l.service === service).map((l) => l.level);
  const now = volume() && volume().level;
  if (now && !levels.includes(now)) levels.push(now);
  $("w-level").innerHTML = levels.map((l) => `<option>${esc(l)}</option>`).join("");
  if (now) $("w-level").value = now;
}
function vmFacts() {
  const v = choices.vms.find((x) => x.id === $("w-vm").value);
  $("w-vm-facts").textContent = v ? `${v.vcpus} vCPU, ${fmtSize(v.memory)}` + (v.uncached_iops ? `, ${v.cloud === "aws" ? "EBS" : "uncached"} ${fmtOps(v.uncached_iops)}, ${fmtRate(v.uncached_bandwidth)}` : "") +
    (v.price_per_month != null ? `, ${fmtMoney(v.price_per_month)}/month` : "") : "";
}

// ------------------------------------------------------------------ the what-if scenario

const DEFAULT = {
  version: 1,
  clients: { count: 1, vm: "Standard_DS13" },
  volumes: { data: { disks: [{ sku: "P30", count: 4, caching: "none" }] } },
  jobs: [{ name: "oltp", volume: "data", rw: "randrw", rwmixread: 70, bs: "8k", iodepth: 32, numjobs: 4, ioengine: "libaio", size: "30g" }],
};
const NEW_VOLUME = {
  disks: { disks: [{ sku: "P30", count: 4, caching: "none" }] },
  share: { service: "anf", level: "premium", size: "4TiB", protocol: "nfs3", nconnect: 1 },
  device: { device: { iops: 200000, bandwidth: "2GB/s", read_latency: "90us", write_latency: "30us" } },
};
let scen = JSON.parse(JSON.stringify(DEFAULT));
let scenName = "scenario.yaml";

function volumeName() { return Object.keys(scen.volumes || {})[0]; }
function volume() { const v = volumeName(); return v ? scen.volumes[v] : null; }
function job() { return (scen.jobs || [])[0]; }
function formJob() { const j = job(); return j && !("fio" in j) && !("fio_file" in j) ? j : null; }
function kindOf(vol) { return !vol ? "disks" : "disks" in vol ? "disks" : "service" in vol ? "share" : "device"; }

function getPath(obj, path) {
  for (const part of path.split(/\.|\[(\d+)\]\.?/).filter((p) => p !== undefined && p !== "")) {
    if (obj == null) return undefined;
    obj = obj[part];
  }
  return obj;
}
function setPath(obj, path, value) {
  const parts = path.split(/\.|\[(\d+)\]\.?/).filter((p) => p !== undefined && p !== "");
  for (const part of parts.slice(0, -1)) {
    if (obj[part] == null) obj[part] = {};
    obj = obj[part];
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete obj[last]; else obj[last] = value;
}
function valueOf(input) {
  const text = input.value.trim();
  if (text === "") return undefined;
  if (input.type === "number" || /^\d+$/.test(text)) { const n = Number(text); return Number.isFinite(n) ? n : text; }
  return text;
}

function fillForm() {
  const c = scen.clients || {};
  $("w-vm").value = c.vm || "";
  $("w-clients").value = c.count == null ? "" : c.count;
  $("w-clients").placeholder = "1";
  const vol = volume();
  const kind = kindOf(vol);
  $("w-kind").value = kind;
  $("w-volname").textContent = volumeName() ? `(volume ${volumeName()}` + (Object.keys(scen.volumes).length > 1 ? `; ${Object.keys(scen.volumes).length - 1} more kept as in the file)` : ")") : "";
  $("w-disks").hidden = kind !== "disks"; $("w-share").hidden = kind !== "share"; $("w-device").hidden = kind !== "device";
  document.querySelectorAll("[data-vol]").forEach((i) => {
    const v = vol ? getPath(vol, i.dataset.vol) : undefined;
    if (i.tagName === "SELECT") { if (v != null) i.value = v; else i.selectedIndex = 0; } else i.value = v == null ? "" : v;
  });
  if (kind === "share") fillLevels();
  const j = formJob();
  document.querySelectorAll("[data-job]").forEach((i) => {
    i.disabled = !j;
    const v = j ? j[i.dataset.job] : undefined;
    if (i.tagName === "SELECT") i.value = v == null ? "read" : v; else i.value = v == null ? "" : v;
  });
  $("w-bs").placeholder = "4k"; $("w-iodepth").placeholder = "1"; $("w-numjobs").placeholder = "1";
  const jobs = (scen.jobs || []).length;
  $("w-jobname").textContent = job() ? `(job ${job().name || 1}` + (jobs > 1 ? `; ${jobs - 1} more kept as in the file)` : ")") : "";
  $("w-jobnote").textContent = j ? "" : "The first job is a fio command line or job file: edit it in the scenario file.";
  $("w-name").textContent = scenName;
  vmFacts();
}

function onField(input) {
  if (input.dataset.field) setPath(scen, input.dataset.field, valueOf(input));
  else if (input.dataset.vol) setPath(volume(), input.dataset.vol, valueOf(input));
  else if (input.dataset.job && formJob()) setPath(formJob(), input.dataset.job, valueOf(input));
  if (input.id === "w-vm") { if (!input.value.trim()) delete scen.clients.vm; vmFacts(); }
  if (input.id === "w-service") { volume().level = undefined; fillLevels(); volume().level = $("w-level").value; }
  schedule();
}

function changeKind() {
  const name = volumeName() || "data";
  scen.volumes = scen.volumes || {};
  scen.volumes[name] = JSON.parse(JSON.stringify(NEW_VOLUME[$("w-kind").value]));
  fillForm();
  schedule();
}

let timer = null, seq = 0;
function schedule() { clearTimeout(timer); timer = setTimeout(update, 60); }

function errorKey(field) {
  const v = volumeName();
  if (v && field.startsWith(`volumes.${v}.`)) return field.slice(`volumes.${v}.`.length);
  const m = field.match(/^jobs\[0\]\.(.+)$/) || (job() && job().name && field.match(new RegExp(`^jobs\\.${job().name}\\.(.+)$`)));
  return m ? m[1] : field;
}

async function update() {
  const mine = ++seq;
  const body = JSON.stringify(scen);
  const params = { name: scenName, region: $("w-region").value };
  const form = $("wf");
  const t0 = performance.now();
  let r;
  try {
    r = await call("POST", "/api/whatif", params, body);
  } catch (e) {
    if (mine !== seq) return;
    clearErrors(form);
    showError(form, e, errorKey, $("w-error"));
    $("w-out").classList.add("stale");
    status("error: " + e.message);
    return;
  }
  if (mine !== seq) return;
  clearErrors(form);
  $("w-out").classList.remove("stale");
  render(r);
  $("o-time").textContent = `updated in ${Math.round(performance.now() - t0)} ms`;
  status("");
  call("POST", "/api/curve", params, body).then((c) => { if (mine === seq) drawCurve(c, r.prediction); }).catch(() => {});
  $("o-pct").textContent = "…";
  call("POST", "/api/percentiles", params, body).then((p) => {
    if (mine !== seq) return;
    const l = p.latency || {};
    $("o-pct").textContent = l.p50 != null ? `${fmtDur(l.p50)} / ${fmtDur(l.p99)}` : "–";
    $("o-pct").dataset.p99 = l.p99 == null ? "" : l.p99;
  }).catch(() => { if (mine === seq) $("o-pct").textContent = "–"; });
}

function setFigure(id, value, text) { $(id).textContent = text; $(id).dataset.value = value == null ? "" : value; }

function render(r) {
  const p = r.prediction;
  setFigure("o-iops", p.iops, fmtOps(p.iops));
  setFigure("o-bw", p.bandwidth, fmtRate(p.bandwidth));
  setFigure("o-lat", p.latency && p.latency.mean, fmtDur(p.latency && p.latency.mean));
  $("o-bottleneck").textContent = r.bottleneck;
  const cost = r.cost;
  if (cost.bill) {
    setFigure("o-cost", cost.bill.total, fmtMoney(cost.bill.total));
    $("o-cost-parts").textContent = `Monthly in ${cost.region}: ` + [["VM", cost.bill.vm], ["disks", cost.bill.disks], ["shares", cost.bill.shares], ["provisioned", cost.bill.provisioned]]
      .filter(([, x]) => x > 0.005).map(([n, x]) => `${n} ${fmtMoney(x)}`).join(" + ");
  } else {
    setFigure("o-cost", null, "unpriced");
    $("o-cost-parts").textContent = `No price in ${cost.region} for: ${cost.missing.join("; ")}`;
  }
  const rows = (p.resources || []).map((x) => [x.resource, x.kind, x.utilization])
    .concat((p.slots || []).map((x) => [x.resource, x.kind, x.wanted / x.slots, `${x.wanted}/${x.slots} slots`]))
    .sort((a, b) => b[2] - a[2]);
  const shown = rows.slice(0, 14);
  $("o-bars").innerHTML = shown.map(([name, kind, u, words]) => `<div class="bar" data-resource="${esc(name)}" data-utilization="${u}"><span>${esc(name)} <span class="dim">${esc(kind)}</span></span>` +
    `<span class="track"><span class="fill${u >= 0.9 ? " hot" : ""}" style="display:block;width:${Math.min(100, 100 * u).toFixed(1)}%"></span></span><span class="num">${esc(words || pct(u))}</span></div>`).join("") +
    (rows.length > shown.length ? `<p class="dim">and ${rows.length - shown.length} more below ${pct(rows[shown.length][2])}</p>` : "");
  $("o-warnings").textContent = (p.warnings || []).map((w) => "warning: " + (w.field ? w.field + ": " : "") + w.message).join("\n");
}

function drawCurve(c, p) {
  const pts = (c.points || []).map((x) => ({ x: x.iops, y: (x.latency.mean || 0) * 1e3, label: `iodepth=${x.params.iodepth}` }));
  const now = { x: p.iops, y: (p.latency.mean || 0) * 1e3 };
  if (!pts.length) { $("o-curve").innerHTML = ""; $("o-curve-note").textContent = "No single curve: the file runs in phases."; return; }
  const W = 560, H = 260, L = 60, B = 36, T = 10, R = 20;
  const xmax = Math.max(now.x, ...pts.map((q) => q.x)) * 1.05 || 1, ymax = Math.max(now.y, ...pts.map((q) => q.y)) * 1.1 || 1;
  const X = (v) => L + (W - L - R) * v / xmax, Y = (v) => H - B - (H - B - T) * v / ymax;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  let svg = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="predicted latency against IOPS">`;
  svg += `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#9aa6b2"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#9aa6b2"/>`;
  for (const t of ticks) {
    svg += `<text x="${X(t * xmax)}" y="${H - B + 14}" text-anchor="middle">${group(t * xmax, 0)}</text>`;
    svg += `<text x="${L - 6}" y="${Y(t * ymax) + 4}" text-anchor="end">${group(t * ymax, ymax < 10 ? 1 : 0)}</text>`;
  }
  svg += `<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle">IOPS</text><text x="12" y="${(T + H - B) / 2}" transform="rotate(-90 12 ${(T + H - B) / 2})" text-anchor="middle">mean latency, ms</text>`;
  svg += `<polyline fill="none" stroke="#1f6feb" stroke-width="2" points="${pts.map((q) => `${X(q.x).toFixed(1)},${Y(q.y).toFixed(1)}`).join(" ")}"/>`;
  for (const q of pts) svg += `<circle cx="${X(q.x).toFixed(1)}" cy="${Y(q.y).toFixed(1)}" r="3" fill="#1f6feb"><title>${esc(q.label)}: ${fmtOps(q.x)}, ${q.y.toFixed(3)} ms</title></circle>`;
  svg += `<circle id="o-now" cx="${X(now.x).toFixed(1)}" cy="${Y(now.y).toFixed(1)}" r="6" fill="#b42318"><title>now: ${fmtOps(now.x)}, ${now.y.toFixed(3)} ms</title></circle>`;
  svg += `<text x="${X(now.x) + 9}" y="${Y(now.y) - 6}" fill="#b42318">now</text></svg>`;
  $("o-curve").innerHTML = svg;
  $("o-curve-note").textContent = `Each job's iodepth doubled from 1; the red dot is the scenario as it stands (${p.outstanding} IOs in flight; knee ≈ ${c.knee_outstanding == null ? "none" : group(c.knee_outstanding, 0)}).`;
}

async function openScenario(text, name) {
  const form = $("wf");
  clearErrors(form);
  try {
    const r = await call("POST", "/api/parse", { name }, text);
    scen = r.data; scenName = name;
    fillForm();
    update();
  } catch (e) {
    form.querySelector('[data-err="file"]').textContent = (e.field ? e.field + ": " : "") + e.message;
  }
}

async function saveScenario() {
  try {
    const name = scenName.split(/[\\/]/).pop().replace(/\.json$/i, ".yaml");
    const text = await call("POST", "/api/scenario.yaml", { name }, JSON.stringify(scen));
    download(/\.ya?ml$/i.test(name) ? name : name + ".yaml", text, "application/yaml");
  } catch (e) { showError($("wf"), e, errorKey, $("w-error")); }
}

async function reportOf(kind, text, params, name) {
  try {
    const html = await call("POST", `/api/report/${kind}`, params, text);
    download(name, html, "text/html");
  } catch (e) { status("error: " + e.message); }
}

// Only with iolab serve --allow-bench: fio runs the scenario's jobs under bench run's safety rules.
async function runBench() {
  const form = $("wf");
  clearErrors(form);
  $("w-run").disabled = true;
  status("benchmark running…");
  try {
    const r = await call("POST", "/api/bench", { name: scenName, target: $("w-target").value, runtime: $("w-runtime").value }, JSON.stringify(scen));
    $("w-ran").textContent = `run ${r.run_id} stored (${r.status}): ${fmtOps(r.iops)} measured, ${fmtOps(r.predicted && r.predicted.iops)} predicted`;
    runsLoaded = false;
    status("");
  } catch (e) {
    showError(form, e, errorKey, $("w-error"));
    status("error: " + e.message);
  } finally { $("w-run").disabled = false; }
}

// ------------------------------------------------------------------ plan

function requirementsText() {
  const v = (id) => $(id).value.trim();
  const job = [`rw: ${v("p-rw")}`];
  if (["rw", "randrw"].includes(v("p-rw")) && v("p-mix")) job.push(`rwmixread: ${v("p-mix")}`);
  if (v("p-bs")) job.push(`bs: ${JSON.stringify(v("p-bs"))}`);
  const lines = ["version: 1", "jobs:", `  - {${job.join(", ")}}`, "require:"];
  for (const [key, id] of [["iops", "p-iops"], ["bandwidth", "p-bw"], ["latency", "p-lat"], ["capacity", "p-cap"]]) if (v(id)) lines.push(`  ${key}: ${JSON.stringify(v(id))}`);
  lines.push("search:", `  kind: ${v("p-kind")}`);
  return lines.join("\n") + "\n";
}

function planLabel(c) {
  if (c.label) return c.label;
  const head = c.clients > 1 ? `${c.clients} × ` : "";
  const disk = (d) => `${d.count} × ${d.sku}` + (d.performance_plus ? " performance plus" : "") +
    (d.size != null ? ` (${fmtSize(d.size)}, ${fmtOps(d.iops)}, ${fmtRate(d.bandwidth)})` : "") + (d.caching !== "none" ? `, cache ${d.caching}` : "");
  if (Array.isArray(c.volumes))  // a pool plan's level: the pool and its volumes
    return `${c.service} ${c.level} ${fmtSize(c.pool || 0)} pool (` + c.volumes.map((v) => `${v.name} ${fmtSize(v.size || 0)}`).join(", ") + ")";
  if (c.service && c.size == null) return `${c.service} ${c.level}`;  // a level that could not hold the volumes
  let what;
  if (c.service) what = `${c.service} ${c.level}${c.large ? " large" : ""} ${fmtSize(c.size)} (${fmtRateBin(c.throughput)}${c.qos === "manual" ? " manual QoS" : ""}), ${c.protocol} ${c.protocol === "smb3" ? "channels" : "nconnect"} ${c.nconnect}`;
  else if (c.volumes) what = Object.entries(c.volumes).map(([n, v]) => `${n}: ` + v.disks.map(disk).join(" + ")).join("; ");
  else what = (c.disks || []).map(disk).join(" + ");
  return head + (c.vm ? `${c.vm} + ` : "") + what;
}

async function runPlan() {
  const form = $("pf");
  clearErrors(form);
  $("p-go").disabled = true;
  status("planning…");
  const t0 = performance.now();
  try {
    // a pool plan lists every level and takes no --top, as the command refuses one there
    const query = { name: "requirements.yaml", region: $("p-region").value };
    if (!/^pool:/m.test($("p-text").value)) query.top = $("p-top").value;
    const r = await call("POST", "/api/plan", query, $("p-text").value);
    renderPlan(r, performance.now() - t0);
    status("");
  } catch (e) {
    showError(form, e, (f) => f, $("p-error"));
    $("p-out").innerHTML = "";
    status("error: " + e.message);
  } finally { $("p-go").disabled = false; }
}

function renderPlan(r, ms) {
  const out = [];
  out.push(`<p>Searched ${group(r.evaluated || 0, 0)} configurations (prices of ${esc(r.region)}): ${group(r.feasible || 0, 0)} feasible. <span class="dim">${Math.round(ms)} ms</span></p>`);
  const cands = r.candidates || [];
  if (cands.length) {
    out.push(`<table class="grid" id="p-table"><thead><tr><th class="n">#</th><th class="n">$/month</th><th>configuration</th><th class="n">IOPS</th><th class="n">latency</th><th class="n">headroom</th><th>binding</th></tr></thead><tbody>`);
    for (const c of cands) {
      const p = c.prediction || {}, b = p.bottleneck || {};
      out.push(`<tr data-rank="${c.rank}" data-cost="${c.monthly_cost}"><td class="n">${c.rank}</td><td class="n">${esc(fmtMoney(c.monthly_cost))}</td><td class="config">${esc(planLabel(c.config))}</td>` +
        `<td class="n">${esc(fmtOps(p.iops))}</td><td class="n">${esc(fmtDur(p.latency && p.latency.mean))}</td><td class="n">${c.headroom == null ? "–" : Math.round(100 * c.headroom) + "%"}</td>` +
        `<td>${esc(b.kind || "")} ${b.utilization == null ? "" : Math.round(100 * b.utilization) + "%"} <span class="dim">${esc(b.resource || "")}</span></td></tr>`);
    }
    out.push("</tbody></table>");
    const first = cands[0];
    if (first.bill) {
      const parts = [["VM", first.bill.vm], ["disks", first.bill.disks], ["shares and pools", first.bill.shares], ["provisioned IOPS and throughput", first.bill.provisioned]].filter(([, x]) => x > 0.005);
      out.push(`<p id="p-bill"><strong>Monthly bill of #1:</strong> ${parts.map(([n, x]) => `${n} ${fmtMoney(x)}`).join(" + ")} = ${fmtMoney(first.bill.total)}</p>`);
    }
    for (const note of first.notes || []) out.push(`<p class="note p-note">Note: ${esc(note)}</p>`);
  } else out.push(`<p class="err">No configuration meets the requirements.</p>`);
  // the reasons, as the command and the report group them (every kind of plan carries
  // near_misses, best_by_kind and unpriced); long groups show their first few and a count
  const kinds = (r.best_by_kind || []).map((k) => `${k.service || k.kind}: ${k.candidate.rank ? "#" + k.candidate.rank + " " : ""}${planLabel(k.candidate.config)} (${fmtMoney(k.candidate.monthly_cost)}): ${k.candidate.why || "the answer"}`);
  const groups = [
    ["Runners-up", cands.slice(1).filter((c) => c.why).map((c) => `#${c.rank} ${planLabel(c.config)}: ${c.why}`)],
    ["Near misses, closest first", (r.near_misses || []).map((m) => `${planLabel(m.config)} (` + (m.monthly_cost == null ? "" : `${fmtMoney(m.monthly_cost)}/month, `) +
      (m.shortfall == null ? "no bound" : `${m.shortfall.toFixed(2)}× its limit`) + `): ${(m.lacks || []).join("; ")}` + ((m.facts || []).length ? ` (${m.facts.join("; ")})` : ""))],
    ["The best of each kind searched", kinds.length > 1 ? kinds : []],
    ["Other options", (r.others || []).filter((m) => m.why && m.monthly_cost != null).map((m) => `${planLabel(m.config)} (${fmtMoney(m.monthly_cost)}/month): ${m.why}`)],
    ["Feasible, but without a price", (r.unpriced || []).map((m) => `${planLabel(m.config)}: no price in ${r.region} for ${(m.missing || []).join(", ")}` +
      ((m.supply || []).length ? `; to rank it, give the price in a catalog file: ${m.supply.join("; ")}` : ""))],
    ["Not searched", r.excluded || []],
  ].filter(([, items]) => items.length);
  const FEW = 5;
  if (groups.length) out.push("<h3>Why not the others</h3>");
  for (const [title, items] of groups) {
    out.push(`<p class="reasons-title">${esc(title)}</p><ul class="reasons">` + items.slice(0, FEW).map((x) => `<li>${esc(x)}</li>`).join("") +
      (items.length > FEW ? `<li class="dim">and ${items.length - FEW} more (the JSON has them all)</li>` : "") + "</ul>");
  }
  for (const w of r.warnings || []) out.push(`<p class="dim">warning: ${esc((w.field ? w.field + ": " : "") + w.message)}</p>`);
  $("p-out").innerHTML = out.join("");
}

// ------------------------------------------------------------------ results

let runsLoaded = false, allRuns = [];
const selected = new Set();

async function loadRuns() {
  runsLoaded = true;
  $("r-error").textContent = "";
  try { allRuns = (await call("GET", "/api/runs")).runs; } catch (e) { $("r-error").textContent = e.message; allRuns = []; }
  drawRuns();
}

function point(r) { return Object.entries(r.params || {}).map(([k, v]) => `${k}=${v}`).join(", ") + (r.sweep_id ? ` (sweep ${r.sweep_id})` : ""); }

function drawRuns() {
  const words = $("r-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const st = $("r-status").value;
  const rows = allRuns.filter((r) => {
    if (st && r.status !== st) return false;
    const hay = [r.run_id, r.status, r.started, r.target, r.host, (r.jobs || []).join(" "), point(r)].join(" ").toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  $("r-table").querySelector("tbody").innerHTML = rows.map((r) => `<tr data-run="${r.run_id}" class="${selected.has(r.run_id) ? "sel" : ""}">` +
    `<td><input type="checkbox" data-pick="${r.run_id}" ${selected.has(r.run_id) ? "checked" : ""} aria-label="select run ${r.run_id}"></td>` +
    `<td class="n">${r.run_id}</td><td>${esc(r.status)}</td><td>${esc((r.started || "").slice(0, 16).replace("T", " "))}</td><td>${esc((r.jobs || []).join(", "))}</td>` +
    `<td>${esc(point(r))}</td><td class="n">${esc(r.iops == null ? "–" : fmtOps(r.iops))}</td><td class="n">${esc(fmtRate(r.bandwidth))}</td>` +
    `<td class="n">${esc(fmtDur(r.latency && r.latency.mean))}</td><td>${esc(r.target || "")}</td>` +
    `<td><button type="button" data-open="${r.run_id}">open</button>${r.sweep_id ? ` <button type="button" data-sweep="${r.sweep_id}">sweep ${r.sweep_id}</button>` : ""}</td></tr>`).join("") ||
    `<tr><td colspan="11" class="dim">${allRuns.length ? "no run matches" : "no runs stored yet: iolab bench run stores them"}</td></tr>`;
}

function figureRows(doc) {
  const pred = doc.predicted || null;
  const rows = [["IOPS", doc.iops, pred && pred.iops, fmtOps], ["bandwidth", doc.bandwidth, pred && pred.bandwidth, fmtRate],
    ["mean latency", doc.latency && doc.latency.mean, pred && pred.latency && pred.latency.mean, fmtDur]];
  for (const k of ["p50", "p90", "p99"]) rows.push([`${k} latency`, doc.latency && doc.latency[k], null, fmtDur]);
  return rows;
}

async function openRun(id) {
  try {
    const doc = await call("GET", `/api/runs/${id}`);
    const rows = figureRows(doc).map(([n, m, p, f]) => `<tr><td>${n}</td><td class="n">${esc(f(m))}</td><td class="n">${p == null ? "–" : esc(f(p))}</td><td class="n">${p && m != null ? (m / p).toFixed(2) : "–"}</td></tr>`).join("");
    const link = address(`/report/run/${id}`);
    $("r-detail").innerHTML = `<h3>Run ${id} <span class="dim">${esc(doc.status)}, ${esc(doc.target || "")}, ${esc(doc.started || "")}</span></h3>` +
      `<table class="grid" id="r-figures"><thead><tr><th></th><th class="n">measured</th><th class="n">predicted</th><th class="n">ratio</th></tr></thead><tbody>${rows}</tbody></table>` +
      `<p><a href="${esc(link)}" target="_blank" rel="noopener">the same as iolab report run ${id}</a></p><iframe title="run ${id}" src="${esc(link)}"></iframe>`;
  } catch (e) { $("r-error").textContent = e.message; }
}

function openSweep(id) {
  const link = address(`/report/sweep/${id}`);
  $("r-detail").innerHTML = `<h3>Sweep ${id}</h3><p><a href="${esc(link)}" target="_blank" rel="noopener">the same as iolab report sweep ${id}</a></p><iframe title="sweep ${id}" src="${esc(link)}"></iframe>`;
}

async function compare() {
  const ids = [...selected].sort((a, b) => a - b);
  if (ids.length < 2) { $("r-error").textContent = "select two runs or more to compare"; return; }
  $("r-error").textContent = "";
  try {
    const docs = await Promise.all(ids.map((id) => call("GET", `/api/runs/${id}`)));
    const names = figureRows(docs[0]).map((r) => [r[0], r[3]]);
    const body = names.map(([n, f], i) => `<tr><td>${n}</td>` + docs.map((d) => {
      const m = figureRows(d)[i][1], base = figureRows(docs[0])[i][1];
      return `<td class="n">${esc(f(m))}${d !== docs[0] && m != null && base ? ` <span class="dim">(${(m / base).toFixed(2)}×)</span>` : ""}</td>`;
    }).join("") + "</tr>").join("");
    const link = address(`/report/run/${ids.join(",")}`);
    $("r-compared").innerHTML = `<h3>Compared</h3><table class="grid" id="r-compare-table"><thead><tr><th></th>${ids.map((id) => `<th class="n">run ${id}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table>` +
      `<p><a href="${esc(link)}" target="_blank" rel="noopener">the same as iolab report run ${ids.join(" ")}</a></p>`;
  } catch (e) { $("r-error").textContent = e.message; }
}

// ------------------------------------------------------------------ wiring

function start() {
  $("wf").addEventListener("input", (ev) => { if (ev.target.matches("[data-field],[data-vol],[data-job]") && ev.target.tagName !== "SELECT") onField(ev.target); });
  $("wf").addEventListener("change", (ev) => { if (ev.target.tagName === "SELECT" && ev.target.matches("[data-field],[data-vol],[data-job]")) onField(ev.target); });
  $("w-kind").addEventListener("change", changeKind);
  $("w-region").addEventListener("change", () => { loadChoices().catch(() => {}); schedule(); });
  $("w-file").addEventListener("change", async (ev) => { const f = ev.target.files[0]; if (f) openScenario(await f.text(), f.name); });
  $("w-save").addEventListener("click", saveScenario);
  $("w-bench").hidden = !boot.allow_bench;
  $("w-run").addEventListener("click", runBench);
  $("w-report").addEventListener("click", () => reportOf("predict", JSON.stringify(scen), { name: scenName }, scenName.split(/[\\/]/).pop().replace(/\.\w+$/, "") + "-report.html"));

  $("pf").addEventListener("input", (ev) => { if (ev.target.matches("[data-req]")) $("p-text").value = requirementsText(); });
  $("pf").addEventListener("change", (ev) => { if (ev.target.matches("[data-req]")) $("p-text").value = requirementsText(); });
  $("p-file").addEventListener("change", async (ev) => { const f = ev.target.files[0]; if (f) $("p-text").value = await f.text(); });
  $("p-go").addEventListener("click", runPlan);
  $("p-report").addEventListener("click", () => reportOf("plan", $("p-text").value, { name: "requirements.yaml", region: $("p-region").value, top: $("p-top").value }, "plan-report.html"));
  $("p-text").value = requirementsText();

  $("r-filter").addEventListener("input", drawRuns);
  $("r-status").addEventListener("change", drawRuns);
  $("r-reload").addEventListener("click", loadRuns);
  $("r-compare").addEventListener("click", compare);
  $("r-table").addEventListener("click", (ev) => {
    const t = ev.target;
    if (t.dataset.pick) { const id = Number(t.dataset.pick); if (t.checked) selected.add(id); else selected.delete(id); t.closest("tr").classList.toggle("sel", t.checked); }
    else if (t.dataset.open) openRun(Number(t.dataset.open));
    else if (t.dataset.sweep) openSweep(Number(t.dataset.sweep));
  });

  showTab(location.hash.slice(1) || "whatif");
  fillForm();
  if (boot.scenario) openScenario(boot.scenario, boot.name); else update();
  loadChoices().catch((e) => status("catalog: " + e.message));
}
start();
