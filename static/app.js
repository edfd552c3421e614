// secutil pages: progressive enhancement only. Every form works without this
// file; with it, the tools answer in place and outputs can be copied.
"use strict";

(function () {
  // postJSON sends body to a same-origin route with the session cookie and
  // returns the parsed answer, or throws an Error carrying the server's message.
  async function postJSON(path, body) {
    const res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body || {}),
    });
    const text = await res.text();
    let data = null;
    try { data = JSON.parse(text); } catch (e) { /* not JSON */ }
    if (!res.ok) {
      const msg = (data && data.error) ? data.error : ("request failed (HTTP " + res.status + ")");
      throw new Error(msg);
    }
    return data;
  }

  // postForm sends a form's fields as the browser would without this file
  // (multipart when the form has a file input, so its file goes too), and
  // returns the page the server answers: the tools page with the tool's
  // answer or error in its panel. The server renders every answer; this
  // file only moves it into the page already shown.
  async function postForm(url, fields, multipart) {
    const res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      // fetch writes a FormData's own multipart Content-Type, boundary included.
      headers: multipart ? { "Accept": "text/html" } : { "Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html" },
      body: multipart ? fields : new URLSearchParams(fields),
    });
    const text = await res.text();
    if (!(res.headers.get("Content-Type") || "").startsWith("text/html")) {
      let msg = "request failed (HTTP " + res.status + ")";
      try { msg = JSON.parse(text).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(msg);
    }
    return new DOMParser().parseFromString(text, "text/html");
  }

  function showError(box, err) {
    const p = document.createElement("p");
    p.className = "alert error";
    p.setAttribute("role", "alert");
    // As the page's sentence does: a capital first and a full stop last.
    const msg = err.message.charAt(0).toUpperCase() + err.message.slice(1);
    p.textContent = /[.?!]$/.test(msg) ? msg : msg + ".";
    box.replaceChildren(p);
  }

  // adopt replaces the result of the panel of form (and the usage line)
  // with the ones of the answered page.
  function adopt(form, page) {
    const panel = form.closest("section.tool");
    const fresh = page.getElementById(panel.id);
    if (fresh) {
      const box = fresh.querySelector("[data-result]");
      const old = panel.querySelector("[data-result]");
      old.querySelectorAll("a[data-csv]").forEach(function (a) { URL.revokeObjectURL(a.href); });
      old.replaceWith(box);
      enableCopy(box);
      labelCells(box);
      enableCSV(box);
    }
    const usage = page.getElementById("tools-usage");
    const shown = document.getElementById("tools-usage");
    if (usage && shown) shown.replaceWith(usage);
  }

  document.querySelectorAll("form[data-tool]").forEach(function (form) {
    form.addEventListener("submit", async function (ev) {
      const submitter = ev.submitter;
      if (submitter && submitter.hasAttribute("data-native")) return; // a download: let the browser have it
      ev.preventDefault();
      const box = form.closest("section.tool").querySelector("[data-result]");
      const url = (submitter && submitter.hasAttribute("formaction")) ? submitter.formAction : form.action;
      box.setAttribute("aria-busy", "true");
      try {
        adopt(form, await postForm(url, new FormData(form, submitter), form.enctype === "multipart/form-data"));
      } catch (err) {
        showError(box, err);
      } finally {
        form.closest("section.tool").querySelector("[data-result]").removeAttribute("aria-busy");
      }
    });
  });

  // The strength meter's preview: after a pause in typing, ask the free
  // preview route (not counted; the server limits it per minute). Only the
  // Check button makes a counted call.
  document.querySelectorAll("form[data-preview]").forEach(function (form) {
    const input = form.querySelector("input[name=password]");
    let timer = null;
    let seq = 0;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(async function () {
        const mine = ++seq;
        if (input.value === "") return;
        try {
          const page = await postForm(form.dataset.preview, new FormData(form));
          if (mine === seq) adopt(form, page); // a newer keystroke's answer wins
        } catch (err) {
          if (mine === seq) showError(form.closest("section.tool").querySelector("[data-result]"), err);
        }
      }, 300);
    });
  });

  // A tool's file input: a file dropped on its form goes into it, and a
  // file chosen either way is checked before it is sent (its size against
  // the tool's limit, its first bytes for text), with a message read out
  // by screen readers. The server checks both again.
  const textSample = 64 << 10;
  function sizeInWords(n) {
    if (n >= 1 << 20) return (Math.round(n / (1 << 20) * 10) / 10) + " MiB";
    if (n >= 1 << 10) return Math.round(n / (1 << 10)) + " KiB";
    return n + (n === 1 ? " byte" : " bytes");
  }
  async function fileProblem(file, max) {
    if (file.size > max) return file.name + " is " + sizeInWords(file.size) + ": this tool takes a file of at most " + sizeInWords(max) + ".";
    if (file.size === 0) return file.name + " is empty.";
    const head = new Uint8Array(await file.slice(0, textSample).arrayBuffer());
    let text = head.indexOf(0) < 0;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: file.size > textSample });
    } catch (e) {
      text = false;
    }
    if (!text) return file.name + " is not text (UTF-8): choose a text file, one item a line (a compressed file must be decompressed first).";
    return "";
  }
  document.querySelectorAll("form[data-tool] input[type=file]").forEach(function (input) {
    const form = input.form;
    const status = document.getElementById(input.getAttribute("aria-describedby"));
    const clear = form.querySelector("[data-clear-file='" + input.id + "']");
    const say = function (msg, bad) {
      status.textContent = msg;
      status.classList.toggle("bad", !!bad);
      input.setAttribute("aria-invalid", bad ? "true" : "false");
    };
    const check = async function () {
      const file = input.files[0];
      clear.classList.toggle("hidden", !file);
      if (!file) { say("", false); return; }
      const problem = await fileProblem(file, Number(input.dataset.maxBytes));
      if (problem) {
        input.value = "";
        clear.classList.add("hidden");
        say(problem, true);
        return;
      }
      say(file.name + " (" + sizeInWords(file.size) + ") is sent instead of the text typed.", false);
    };
    input.addEventListener("change", check);
    clear.addEventListener("click", function () {
      input.value = "";
      check();
      input.focus();
    });
    // Dropping a file on the form chooses it, as the picker would.
    form.querySelector("[data-drop-hint]").classList.remove("hidden");
    form.addEventListener("dragover", function (ev) {
      if (!ev.dataTransfer || !Array.from(ev.dataTransfer.types).includes("Files")) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = "copy";
      form.classList.add("dropping");
    });
    form.addEventListener("dragleave", function (ev) {
      if (!form.contains(ev.relatedTarget)) form.classList.remove("dropping");
    });
    form.addEventListener("drop", function (ev) {
      form.classList.remove("dropping");
      if (!ev.dataTransfer || ev.dataTransfer.files.length === 0) return;
      ev.preventDefault();
      if (ev.dataTransfer.files.length > 1) {
        say("Drop one file at a time.", true);
        return;
      }
      input.files = ev.dataTransfer.files;
      check();
    });
  });

  // A results table's "Download CSV" link saves the table as shown, made
  // here from its cells: no second call, nothing kept on the server. A
  // cell's data-csv, when it has one, is its value (a count without its
  // thousands separators); a cell a spreadsheet would run as a formula is
  // prefixed with a quote, as the server's CSV does.
  function csvCell(cell) {
    let text = (cell.dataset.csv !== undefined ? cell.dataset.csv : cell.textContent).replace(/\s+/g, " ").trim();
    if (/^[=+\-@\t\r]/.test(text)) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function enableCSV(root) {
    root.querySelectorAll("a[data-csv]").forEach(function (link) {
      const table = document.getElementById(link.dataset.csv);
      if (!table) return;
      const lines = Array.from(table.rows, function (row) { return Array.from(row.cells, csvCell).join(","); });
      link.href = URL.createObjectURL(new Blob([lines.join("\r\n") + "\r\n"], { type: "text/csv;charset=utf-8" }));
      link.classList.remove("hidden");
    });
  }
  enableCSV(document);

  // The breach check hides what it is given only when it is a password.
  document.querySelectorAll("select[data-secret-when]").forEach(function (select) {
    const input = select.form.querySelector("input[name=query]");
    const update = function () { input.type = select.value === select.dataset.secretWhen ? "password" : "text"; };
    select.addEventListener("change", update);
    update();
  });

  // Copy buttons copy the text of the element they name; without this
  // file they stay hidden and the text can be selected by hand.
  function enableCopy(root) {
    root.querySelectorAll("[data-copy]").forEach(function (btn) {
      btn.classList.remove("hidden");
    });
  }
  enableCopy(document);

  // Tables marked "cards" show one card a row on a phone (app.css): each
  // cell is labelled with the heading of its column, which stays written
  // once, in the table's head.
  function labelCells(root) {
    root.querySelectorAll("table.cards").forEach(function (table) {
      const headings = Array.from(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.from(row.cells).forEach(function (cell, i) {
          if (cell.colSpan === 1 && headings[i]) cell.dataset.label = headings[i];
          // A card leaves out a cell with nothing in it (no badge, no button).
          if (cell.textContent.trim() === "" && !cell.querySelector("input, select, button, a, img")) cell.classList.add("blank");
        });
      });
      table.classList.add("labelled");
    });
  }
  labelCells(document);
  document.addEventListener("click", async function (ev) {
    const btn = ev.target.closest("[data-copy]");
    if (!btn) return;
    const target = document.getElementById(btn.dataset.copy);
    try {
      await navigator.clipboard.writeText(target.textContent);
      btn.textContent = "Copied";
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(target);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      btn.textContent = "Selected: press Ctrl+C";
    }
    setTimeout(function () { btn.textContent = "Copy"; }, 2000);
  });

  // Dashboard: on a phone the chart of calls per day is wider than its box,
  // which scrolls sideways; start it with today in view, not the 1st.
  document.querySelectorAll(".chart-scroll").forEach(function (box) {
    const today = box.querySelector("#chart-today");
    if (!today || box.scrollWidth <= box.clientWidth) return;
    const at = today.getBoundingClientRect(), shown = box.getBoundingClientRect();
    box.scrollLeft += (at.left + at.width / 2) - (shown.left + shown.width / 2);
  });

  // Admin page: "Locate" opens a sealed IP of the audit log with
  // /boss/decrypt_geoinfo2 and shows where it is, beside the button.
  document.querySelectorAll("[data-locate]").forEach(function (btn) {
    const out = btn.parentNode.querySelector(".located");
    btn.classList.remove("hidden");
    btn.addEventListener("click", async function () {
      out.className = "located muted";
      out.textContent = "Locating…";
      try {
        const d = await postJSON("/boss/decrypt_geoinfo2", { sealed: btn.dataset.locate });
        out.className = "located found";
        out.textContent = (d.ip ? d.ip + ": " : "") + ([d.city, d.country].filter(Boolean).join(", ") || "unknown place");
        btn.remove();
      } catch (err) {
        out.className = "located bad";
        out.textContent = err.message;
      }
    });
  });

  // Account forms: "Show password" turns the password field it names into
  // plain text and back. Without this file the button stays hidden.
  document.querySelectorAll("[data-show-password]").forEach(function (btn) {
    const input = document.getElementById(btn.dataset.showPassword);
    if (!input) return;
    btn.classList.remove("hidden");
    btn.setAttribute("aria-pressed", "false");
    btn.addEventListener("click", function () {
      const show = input.type === "password";
      input.type = show ? "text" : "password";
      btn.textContent = show ? "Hide password" : "Show password";
      btn.setAttribute("aria-pressed", String(show));
      input.focus();
    });
  });
})();
