package server_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// upload posts a tools page form as a browser does when the form has a
// file input: multipart, the file (fileName "" for none chosen) after the
// fields.
func (e *env) upload(path string, fields url.Values, fileName, content string, session *http.Cookie) response {
	e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for name, values := range fields {
		for _, v := range values {
			mw.WriteField(name, v)
		}
	}
	fw, err := mw.CreateFormFile("file", fileName)
	if err != nil {
		e.t.Fatal(err)
	}
	fw.Write([]byte(content))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.RemoteAddr = "192.0.2.1:1234"
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(session)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// TestToolFilesFillTheirPanels: a file sent with the form of the hash
// identifier, the hash lookup, the breach check or the audit is read as
// the tool's batch (a file replaces the text typed) and answered as a
// table, one row an item, with its CSV link; the panel names the file and
// shows none of its text again; the call counts its items (a hash
// looked up, an account audited), as the API does.
func TestToolFilesFillTheirPanels(t *testing.T) {
	t.Parallel()
	e := auditEnv(t)
	id := e.account("files@example.com", store.PlanPro)
	session := e.sessionCookie("files@example.com")
	const md5Password = "5f4dcc3b5aa765d61d8327deb882cf99"
	const bcrypt = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"

	for _, tc := range []struct {
		name, path, panel string
		fields            url.Values
		file, content     string
		want              []string
		notWant           []string
		items             int
	}{
		{"identify", "/hash_identifier", "tool-hashid", url.Values{"hash": {"ffffffffffffffffffffffffffffffffffffffff"}}, "hashes.txt",
			"\ufeff" + md5Password + "\r\n\r\n" + bcrypt + "\r\n",
			[]string{`id="hashid-table"`, "2 hashes, the likeliest format of each", "<td><code>" + md5Password + "</code></td><td>MD5</td><td class=\"nowrap\" data-csv=\"0\"><code>-m 0</code>",
				"<td><code>" + bcrypt + "</code></td><td>bcrypt", `data-csv="3200"`, `data-csv="hashid-table"`, "Sent: <code>hashes.txt</code>"},
			[]string{"SHA-1"}, 2}, // the text typed is not identified
		{"look up", "/hash_lookup", "tool-lookup", nil, "lookup.txt",
			ntHex(indexOnlyPassword) + "\nnothex\nCORP\\bob:1105:aad3b435b51404eeaad3b435b51404ee:" + ntHex("password") + ":::\n",
			[]string{`id="lookup-table"`, "<strong>1</strong> of 2 found", "1 token skipped", "<code>" + indexOnlyPassword + "</code>", "<code>" + ntHex("password") + "</code>",
				"skipped: not hexadecimal", `data-csv="lookup-table"`},
			[]string{"CORP\\bob</textarea>"}, 2}, // the skipped token is free
		{"breach, NTLM", "/data_breach", "tool-breach", url.Values{"kind": {"ntlm"}, "query": {"typed and ignored"}}, "ntlm.txt",
			ntHex("password") + "\n" + ntHex("a passphrase no one has used") + "\n",
			[]string{`id="breach-table"`, "<strong>1</strong> of 2 hashes found", "<strong class=\"bad\">yes</strong>", `<td data-csv="7000000">7`, `data-csv="breach-table"`},
			nil, 2},
		{"audit", "/password_audit", "tool-audit", nil, "ntds.txt", auditDump(),
			[]string{`id="audit-table"`, `id="audit-summary"`, `CORP\alice`, "LM hash. breached 7", "weak scheme md5crypt", `data-csv="audit-table"`, "Sent: <code>ntds.txt</code>"},
			[]string{indexOnlyPassword, "this line is no dump line</textarea>"}, auditAccounts},
		{"audit, passwords asked for", "/password_audit", "tool-audit", url.Values{"show_plaintext": {"true"}}, "ntds.txt", auditDump(),
			[]string{"<code>" + indexOnlyPassword + "</code>"}, nil, auditAccounts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.usage(id)
			res := e.upload(tc.path, tc.fields, tc.file, tc.content, session).want(http.StatusOK)
			panel := panelOf(t, res.body, tc.panel)
			for _, want := range tc.want {
				if !strings.Contains(panel, want) {
					t.Errorf("the panel lacks %q:\n%s", want, panel)
				}
			}
			for _, unwanted := range tc.notWant {
				if strings.Contains(panel, unwanted) {
					t.Errorf("the panel shows %q:\n%s", unwanted, panel)
				}
			}
			if strings.Contains(panel, `role="alert"`) {
				t.Errorf("the panel shows an error:\n%s", panel)
			}
			if got := e.usage(id); got != before+tc.items {
				t.Errorf("usage went from %d to %d, want %d items", before, got, tc.items)
			}
		})
	}

	t.Run("no file chosen: the text typed", func(t *testing.T) {
		panel := panelOf(t, e.upload("/hash_identifier", url.Values{"hash": {md5Password}}, "", "", session).want(http.StatusOK).body, "tool-hashid")
		if !strings.Contains(panel, `id="hashid-out-0">MD5<`) || strings.Contains(panel, "Sent:") {
			t.Fatalf("the panel:\n%s", panel)
		}
	})
}

// TestToolFileRefusals: a file too large for its tool (the API's limit:
// the audit's dump limit, a body for the others), empty, not text, or of
// hashes the breach check is not told the kind of, is refused in its
// panel with what to do, and counts nothing.
func TestToolFileRefusals(t *testing.T) {
	t.Parallel()
	e := auditEnv(t, func(d *server.Deps) { d.AuditDumpBytes = 4096 })
	id := e.account("refused@example.com", store.PlanPro)
	session := e.sessionCookie("refused@example.com")

	for _, tc := range []struct {
		name, path, panel string
		fields            url.Values
		file, content     string
		status            int
		want              string
	}{
		{"a dump past the audit's limit", "/password_audit", "tool-audit", nil, "big.txt", strings.Repeat(auditDump()+"\n", 20), http.StatusRequestEntityTooLarge,
			"The file &#34;big.txt&#34; is larger than 4 KiB, the most this tool takes."},
		{"hashes past a body", "/hash_lookup", "tool-lookup", nil, "huge.txt", strings.Repeat("5f4dcc3b5aa765d61d8327deb882cf99\n", 1<<20/33+1), http.StatusRequestEntityTooLarge,
			"The file &#34;huge.txt&#34; is larger than 1 MiB, the most this tool takes."},
		{"not text", "/hash_identifier", "tool-hashid", nil, "hashes.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00", http.StatusBadRequest,
			"The file &#34;hashes.gz&#34; is not text (UTF-8)"},
		{"not UTF-8", "/hash_identifier", "tool-hashid", nil, "latin1.txt", "caf\xe9\n", http.StatusBadRequest, "is not text (UTF-8)"},
		{"empty", "/password_audit", "tool-audit", nil, "empty.txt", "", http.StatusBadRequest, "The file &#34;empty.txt&#34; is empty."},
		{"a breach file of passwords", "/data_breach", "tool-breach", url.Values{"kind": {"password"}}, "words.txt", "letmein\n", http.StatusBadRequest,
			"A file is checked as SHA-1 or NTLM hashes, one a line: choose which under Check."},
		{"past the breach batch", "/data_breach", "tool-breach", url.Values{"kind": {"sha1"}}, "sha1.txt", strings.Repeat("b1b3773a05c0ed0176787a4f1574ff0075f7521e\n", 1001), http.StatusBadRequest,
			"At most 1000 hashes per request."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.usage(id)
			panel := panelOf(t, e.upload(tc.path, tc.fields, tc.file, tc.content, session).want(tc.status).body, tc.panel)
			if !strings.Contains(panel, `role="alert">`+tc.want) && !strings.Contains(panel, tc.want) {
				t.Errorf("the panel lacks %q:\n%s", tc.want, panel)
			}
			if !strings.Contains(panel, `role="alert"`) {
				t.Errorf("no error in the panel:\n%s", panel)
			}
			if got := e.usage(id); got != before {
				t.Errorf("usage went from %d to %d: a refusal counted", before, got)
			}
		})
	}
}
