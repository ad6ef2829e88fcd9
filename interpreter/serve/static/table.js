// A seat at a table: its view comes from the server (HTTP once, then a WebSocket push per change).
"use strict";
const Table = { token: null, payload: null, shownSeat: null, busy: false };

Table.show = function (payload) {
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
  chooser.replaceChildren(RS.el("div", { class: "muted", text: "Choose:" }),
    ...actions.map((a) => RS.el("button", { "data-action": String(a.id), onclick: () => Table.act(a.id), text: a.label })));
};

Table.act = async function (id) {
  if (Table.busy) return;
  Table.busy = true;
  try {
    Table.show(await RS.api("POST", "/api/t/" + Table.token + "/act", { action: id }));
  } catch (error) {
    Table.flash(error.message);
  } finally {
    Table.busy = false;
  }
};

Table.flash = function (message) {
  const status = document.getElementById("status");
  if (status) status.append(RS.el("div", { class: "error", text: message }));
};

Table.connect = function () {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws/" + Table.token);
  socket.onmessage = (message) => Table.show(JSON.parse(message.data));
  socket.onclose = (event) => {
    if (event.code === 4404) return Table.flash("This seat is not known (the match may have expired).");
    setTimeout(Table.connect, 1000);
  };
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
    document.getElementById("table").replaceChildren(RS.el("p", { class: "error", text: error.message }));
    return;
  }
  Table.connect();
});
