// secutil pages: progressive enhancement only. Every form works without this
// file; with it, the tools answer in place and keys can be copied.
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

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  // list renders name/value pairs as a definition list, skipping empty values.
  function list(pairs) {
    const dl = el("dl");
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      dl.appendChild(el("dt", p[0]));
      dl.appendChild(el("dd", Array.isArray(p[1]) ? p[1].join(", ") : p[1]));
    });
    return dl;
  }

  function show(box, node) {
    box.replaceChildren(node);
  }

  function showError(box, err) {
    show(box, el("div", err.message, "alert error"));
  }

  function formValues(form) {
    const out = {};
    new FormData(form).forEach(function (v, k) { out[k] = v; });
    return out;
  }

  // candidates renders hash identifier candidates: name, modes, confidence,
  // parameters and the hashcat command line.
  function candidates(list) {
    const ol = el("ol", null, "candidates");
    list.slice(0, 5).forEach(function (c) {
      const li = el("li");
      li.appendChild(el("strong", c.name));
      li.appendChild(el("span", " " + Math.round(c.confidence * 100) + "%", "muted"));
      const params = Object.keys(c.params || {}).map(function (k) { return k + "=" + c.params[k]; });
      li.appendChild(el("div", [c.hashcat_mode === null ? null : "hashcat " + c.hashcat_mode,
        c.john_format && "john " + c.john_format, c.category].filter(Boolean).join(" · "), "muted"));
      if (params.length) li.appendChild(el("div", params.join(", ")));
      if (c.hashcat) li.appendChild(el("code", c.hashcat));
      ol.appendChild(li);
    });
    return ol;
  }

  // Renderers turn each tool's answer into a readable block.
  const render = {
    common_pwd: function (d) {
      return d.is_common
        ? el("div", "This password is on the common-password list: do not use it.", "alert error")
        : el("div", "Not on the common-password list.", "alert notice");
    },
    data_breach: function (d) {
      if (!d.breached) return el("div", "Not found in the breach data (" + d.source + ").", "alert notice");
      const times = d.count > 0 ? " " + d.count.toLocaleString() + " times" : "";
      return el("div", "Found in breach data" + times + " (" + d.source + "): do not use it.", "alert error");
    },
    hash_generator: function (d) {
      const wrap = el("div");
      wrap.appendChild(list([["Algorithm", d.algorithm]]));
      wrap.appendChild(el("pre")).appendChild(el("code", d.hash));
      return wrap;
    },
    hash_identifier: function (d) {
      const wrap = el("div");
      (d.groups || [d]).forEach(function (g) {
        const head = (g.count ? g.count + " × " : "") + g.estimate + (g.note ? ": " + g.note : "");
        wrap.appendChild(el("h3", head));
        if (g.candidates.length) wrap.appendChild(candidates(g.candidates));
      });
      return wrap;
    },
    ip_info: function (d) {
      return list([
        ["IP", d.ip], ["Country", [d.country_flag, d.country, d.country_iso && "(" + d.country_iso + ")"].filter(Boolean).join(" ")],
        ["Region", d.region], ["City", d.city], ["Postal code", d.postal], ["Time zone", d.timezone],
        ["Coordinates", d.latitude != null && d.longitude != null ? d.latitude + ", " + d.longitude : null],
        ["ASN", d.asn], ["ISP", d.isp], ["Organisation", d.org], ["Calling code", d.calling_code],
        ["Currency", d.currency], ["Languages", d.languages], ["EU", d.eu == null ? null : (d.eu ? "yes" : "no")],
        ["Note", d.note], ["Source", d.source],
      ]);
    },
  };

  document.querySelectorAll("form[data-tool]").forEach(function (form) {
    const box = form.querySelector("[data-result]");
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      show(box, el("span", "Working…", "muted"));
      try {
        let body = formValues(form);
        // Several lines for the hash identifier are a batch.
        if (form.dataset.tool === "hash_identifier" && body.hash.trim().includes("\n")) body = { hashes: body.hash };
        const data = await postJSON(form.getAttribute("action"), body);
        show(box, render[form.dataset.tool](data));
      } catch (err) {
        showError(box, err);
      }
    });
  });

  // Live password strength: ask the server after a short pause in typing.
  const strength = document.querySelector("form[data-strength]");
  if (strength) {
    const input = strength.querySelector("input[name=password]");
    const bar = strength.querySelector(".score-bar");
    const box = strength.querySelector("[data-result]");
    let timer = null;
    let seq = 0;
    const check = async function () {
      const mine = ++seq;
      if (input.value === "") { bar.dataset.score = ""; box.replaceChildren(); return; }
      try {
        const d = await postJSON(strength.getAttribute("action"), { password: input.value });
        if (mine !== seq) return; // a newer keystroke's answer wins
        bar.dataset.score = String(d.score);
        const wrap = el("div");
        wrap.appendChild(el("p", "Score " + d.score + " of 4: " + d.label, "score-label"));
        wrap.appendChild(list([["Length", d.length], ["Character set", d.charset_size],
          ["Entropy (bits)", d.entropy], ["Offline crack time", d.estimated_crack_time]]));
        if (d.feedback && d.feedback.length) {
          const ul = el("ul");
          d.feedback.forEach(function (f) { ul.appendChild(el("li", f)); });
          wrap.appendChild(ul);
        }
        show(box, wrap);
      } catch (err) {
        if (mine === seq) { bar.dataset.score = ""; showError(box, err); }
      }
    };
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(check, 250); });
    strength.addEventListener("submit", function (ev) { ev.preventDefault(); clearTimeout(timer); check(); });
  }

  // Copy buttons copy the text of the element they name.
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    btn.classList.remove("hidden");
    btn.addEventListener("click", async function () {
      const text = document.getElementById(btn.dataset.copy).textContent;
      try {
        await navigator.clipboard.writeText(text);
        btn.textContent = "Copied";
      } catch (e) {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById(btn.dataset.copy));
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        btn.textContent = "Selected: press Ctrl+C";
      }
      setTimeout(function () { btn.textContent = "Copy"; }, 2000);
    });
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
})();
