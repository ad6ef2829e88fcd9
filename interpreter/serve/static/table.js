// A seat at a table: its view comes from the server (HTTP once, then a WebSocket push per change).
// A table that ended, closed or expired closes the socket with a code this page turns into a
// message and a link home (and it stops reconnecting); a seat taken by another browser says so.
"use strict";
const Table = { token: null, payload: null, shownSeat: null, busy: false, retry: 1000, done: false };
const ENDED = { 4100: null, 4403: "This page may not open this table.", 4404: "This table is not known: it may have ended and expired.",
  4409: "Seat taken: this seat's link was opened in another browser first.", 4410: "This table was closed." };

Table.show = function (payload) {
  if (payload.error && payload.version === undefined) return Table.flash(payload.error);
  if (Table.payload && payload.version < Table.payload.version) return;
  Table.payload = payload;
  const root = document.getElementById("table");
  if (payload.hot_seat && payload.you !== Table.shownSeat && payload.actions.length) {
    document.getElementById("cover-text").textContent = "Pass the device to " + payload.layout.seats[payload.you];
    document.getElementById("cover").classList.remove("hidden");
    root.replaceChildren();
    root.setAttribute("data-version", String(payload.version));
    return;
  }
  const chooser = Render.all(root, payload, (actions) => Table.choose(actions, chooser));
  root.setAttribute("data-version", String(payload.version));
  root.setAttribute("data-actions", String(payload.actions.length));
  root.setAttribute("data-over", payload.over ? "1" : "0");
  if (payload.over && !payload.error) {
    const link = document.getElementById("loglink");
    link.href = "/api/t/" + Table.token + "/log";
    link.classList.remove("hidden");
    document.getElementById("replaylink").classList.remove("hidden");
    document.getElementById("after").classList.remove("hidden");
  }
};

Table.choose = function (actions, chooser) {
  if (actions.length === 1) return Table.act(actions[0].id);
  chooser.replaceChildren(RS.el("div", { class: "muted", text: "Which move?" }),
    ...actions.map((a) => RS.el("button", { "data-action": String(a.id), onclick: () => Table.act(a.id), text: a.label })));
};

Table.act = async function (id) {
  if (Table.busy) return;
  Table.busy = true;
  Table.flash(null);
  try {
    Table.show(await RS.api("POST", "/api/t/" + Table.token + "/act", { action: id }));
  } catch (error) {
    Table.flash(error.message);
    try { Table.show(await RS.api("GET", "/api/t/" + Table.token)); } catch (ignored) { /* the socket says why */ }
  } finally {
    Table.busy = false;
  }
};

Table.flash = function (message) {
  const box = document.getElementById("flash");
  box.textContent = message || "";
  box.classList.toggle("hidden", !message);
};

Table.end = function (message) {
  Table.done = true;
  const box = document.getElementById("ended");
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  box.replaceChildren(RS.el("span", { text: text + " " }), RS.el("a", { href: "/", text: "Start another table" }));
  box.classList.remove("hidden");
  document.getElementById("table").setAttribute("data-ended", "1");
};

Table.connect = function () {
  if (Table.done) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws/" + Table.token);
  socket.onopen = () => { Table.retry = 1000; };
  socket.onmessage = (message) => Table.show(JSON.parse(message.data));
  socket.onclose = (event) => {
    if (event.code in ENDED) {
      if (ENDED[event.code] !== null) Table.end(event.reason || ENDED[event.code]);
      else Table.done = true;
      return;
    }
    setTimeout(Table.connect, Table.retry);
    Table.retry = Math.min(30000, Table.retry * 2);
  };
};

Table.host = function () {
  // the creator's browser keeps the table's host link: it may stop the bots and close the table
  const host = localStorage.getItem("rs-host:" + Table.token);
  if (!host) return;
  const stop = RS.el("button", { id: "stop-bots", text: "Stop the bots" });
  const close = RS.el("button", { id: "close-table", text: "Close the table" });
  stop.addEventListener("click", async () => { try { await RS.api("POST", "/api/t/" + host + "/stop-bots", {}); } catch (e) { Table.flash(e.message); } });
  close.addEventListener("click", async () => {
    if (!confirm("Close this table for everyone?")) return;
    try { await RS.api("POST", "/api/t/" + host + "/close", {}); } catch (e) { Table.flash(e.message); }
  });
  document.getElementById("hostbar").replaceChildren(RS.el("span", { class: "muted", text: "You host this table: " }), stop, " ", close);
  document.getElementById("hostbar").classList.remove("hidden");
};

document.addEventListener("DOMContentLoaded", async () => {
  Table.token = decodeURIComponent(location.pathname.split("/")[2] || "");
  document.getElementById("cover-button").addEventListener("click", () => {
    document.getElementById("cover").classList.add("hidden");
    Table.shownSeat = Table.payload.you;
    Table.show(Table.payload);
  });
  try {
    Table.show(await RS.api("GET", "/api/t/" + Table.token));
  } catch (error) {
    document.getElementById("table").replaceChildren();
    Table.end(error.message);
    return;
  }
  Table.host();
  Table.connect();
});
