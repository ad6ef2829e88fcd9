// Step through a match log, as any seat (or a spectator) saw it.
"use strict";
const Replay = { id: null, step: 0, total: 0 };

Replay.show = async function () {
  const seat = document.getElementById("seat").value;
  try {
    const payload = await RS.api("GET", "/api/replays/" + Replay.id + "?step=" + Replay.step + "&seat=" + seat);
    Replay.step = payload.step;
    document.getElementById("step").textContent = String(payload.step);
    const root = document.getElementById("table");
    Render.all(root, payload, () => {});
    root.setAttribute("data-step", String(payload.step));
  } catch (error) {
    document.getElementById("message").textContent = error.message;
  }
};

Replay.go = function (step) {
  Replay.step = Math.max(0, Math.min(step, Replay.total));
  Replay.show();
};

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("open").addEventListener("click", async () => {
    const message = document.getElementById("message");
    message.textContent = "";
    const file = document.getElementById("file").files[0];
    if (!file) { message.textContent = "choose a log file first"; return; }
    const request = { log: await file.text() };
    const match = document.getElementById("match").value.trim();
    if (match) request.match = Number(match);
    try {
      const data = await RS.api("POST", "/api/replays", request);
      Replay.id = data.replay;
      Replay.total = data.total;
      Replay.step = 0;
      document.getElementById("total").textContent = String(data.total);
      const seat = document.getElementById("seat");
      seat.replaceChildren(RS.el("option", { value: "-1", text: "spectator" }),
        ...data.seats.map((name, p) => RS.el("option", { value: String(p), text: name })));
      document.getElementById("controls").classList.remove("hidden");
      Replay.show();
    } catch (error) {
      message.textContent = error.message;
    }
  });
  document.getElementById("first").addEventListener("click", () => Replay.go(0));
  document.getElementById("back").addEventListener("click", () => Replay.go(Replay.step - 1));
  document.getElementById("forward").addEventListener("click", () => Replay.go(Replay.step + 1));
  document.getElementById("last").addEventListener("click", () => Replay.go(Replay.total));
  document.getElementById("seat").addEventListener("change", () => Replay.show());
});
