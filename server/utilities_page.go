package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"secutil/store"
	"secutil/tools/breach"
	"secutil/tools/geo"
	"secutil/tools/hashgen"
	"secutil/tools/hashid"
	"secutil/tools/jsonfmt"
	"secutil/tools/plural"
	"secutil/tools/strength"
)

// The utilities page (/tools, templates/tools.html) has a form for every
// utility, each in its panel, and works without JavaScript: a form posts to
// the utility's root-level route and gets the page back with the answer.

// utilityPageData is what templates/tools.html shows: every utility's
// form, and the panel just used with its input, answer or error.
type utilityPageData struct {
	Algorithms []string
	Usage      *usageSummary // nil when logged out
	// Missing names the data this server lacks ("ip", "breach_counts",
	// "ntlm"), each with what an administrator must do to add it.
	Missing map[string]string

	// FileBytes is the most a file may have, for each panel that takes
	// one (panelFiles).
	FileBytes map[string]int
	// LookupBatch is the most hashes one lookup takes (serve
	// -hash-lookup-batch).
	LookupBatch int

	Active string     // the panel just used
	Form   url.Values // its input, shown again (a file by its name only)
	Result any        // its answer, shaped for the page by present
	Error  string
}

// usageSummary is an account's metered items this month against its cap.
type usageSummary struct {
	Used  int
	Cap   *int
	AtCap string // what to do at the cap (capAdvice), "" below it
}

// Value is what the field of panel shows: the input just sent to it.
func (d utilityPageData) Value(panel, field string) string {
	if d.Active != panel {
		return ""
	}
	return d.Form.Get(field)
}

// Selected reports whether a choice of a panel's select is the one to show:
// the one just sent, or else fallback.
func (d utilityPageData) Selected(panel, field, value, fallback string) bool {
	if d.Active == panel && d.Form.Has(field) {
		return d.Form.Get(field) == value
	}
	return value == fallback
}

// Answer is the panel's result, nil unless it was just used.
func (d utilityPageData) Answer(panel string) any {
	if d.Active != panel {
		return nil
	}
	return d.Result
}

// Failure is the panel's error, "" unless it was just used and failed.
func (d utilityPageData) Failure(panel string) string {
	if d.Active != panel {
		return ""
	}
	return d.Error
}

// fileInput is what the file input of a panel shows: the most it takes,
// and the name of the file just sent to it.
type fileInput struct {
	Panel, Limit, Sent string
	Bytes              int
}

// File is the file input of panel.
func (d utilityPageData) File(panel string) fileInput {
	return fileInput{Panel: panel, Limit: sizeInWords(d.FileBytes[panel]), Sent: d.Value(panel, "file"), Bytes: d.FileBytes[panel]}
}

// handleUtilityPage serves the utilities page with no utility used yet.
func (s *Server) handleUtilityPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.renderUtilityPage(w, r, "", nil, nil, nil)
	})
}

// toolFormBytes bounds the body of a tools page form. Form encoding
// writes a byte of text as up to three (a quote is %22), so a form carries
// as much text as a JSON client's body (maxBodyBytes) holds; resendForm
// then sends it on as JSON, which escapes far less.
const toolFormBytes = 3 * maxBodyBytes

// fileTarget is how a panel that takes a file (the "file" field of a
// multipart form) sends it on: as the text of field, as if typed, or as
// an array of its lines when lines is set; an empty field is the one the
// panel's "kind" select names.
type fileTarget struct {
	field string
	lines bool
}

// panelFiles are the panels that take a file besides the text typed. A
// file replaces the text typed.
var panelFiles = map[string]fileTarget{
	"hashid": {field: "hashes"},
	"lookup": {field: "hashes"},
	"breach": {lines: true}, // /data_breach takes arrays of sha1 or ntlm
	"audit":  {field: "dump"},
}

// panelTextBytes is the most text a panel's tool takes, typed or in a
// file: what its API request takes (a body, the JSON tool's input, the
// audit's dump).
func (s *Server) panelTextBytes(panel string) int {
	switch panel {
	case "json":
		return jsonfmt.MaxInputBytes
	case "audit":
		return int(s.AuditDumpBytes)
	}
	return maxBodyBytes
}

// panelBodyBytes is the largest JSON body a panel's request may be sent
// on as.
func (s *Server) panelBodyBytes(panel string) int {
	if panel == "audit" {
		return int(auditBodyBytes(s.AuditDumpBytes))
	}
	return maxBodyBytes
}

// wantsToolPage reports whether r is a tools page form posted by a
// browser: URL-encoded as every page's form, or multipart when it has a
// file input.
func wantsToolPage(r *http.Request) bool {
	return wantsHTML(r) || mediaType(r.Header.Get("Content-Type")) == "multipart/form-data" && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// resendForm reads a form post of panel and puts it back as the JSON body
// of request the utility decodes, each of its fields' first value as the
// field's JSON type. Its text is measured as typed, not as the form
// encoded it: a field larger than the panel's tool takes is refused in
// those terms. Two panels ask differently from their request: the breach
// panel names its query's kind in a select ("kind" says which field of the
// /data_breach request "query" fills), and the hash identifier's several
// lines are a batch ("hashes"). A file sent to a panel of panelFiles fills
// its field (fileTarget); the form answered names the file ("file") but
// holds none of its text, which is not shown again.
func (s *Server) resendForm(w http.ResponseWriter, r *http.Request, panel string, request reflect.Type) (url.Values, error) {
	limit := s.panelTextBytes(panel)
	form, file, err := readToolForm(w, r, limit)
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	for name, values := range form {
		if !utf8.ValidString(name) || !utf8.ValidString(values[0]) {
			return nil, badRequest("form field %q is not valid UTF-8", name)
		}
		fields[name] = values[0]
	}
	if kind := form.Get("kind"); kind == "password" || kind == "sha1" || kind == "ntlm" || kind == "prefix" {
		fields = map[string]string{kind: form.Get("query")}
	}
	if hash := strings.TrimSpace(form.Get("hash")); strings.ContainsAny(hash, "\n") {
		fields = map[string]string{"hashes": hash}
	}
	var lines []string // a file's, sent on as an array
	target, takesFile := panelFiles[panel]
	if file != nil && takesFile {
		form.Set("file", file.name)
		if target.field == "" {
			if target.field = form.Get("kind"); target.field != "sha1" && target.field != "ntlm" {
				return nil, badRequest("a file is checked as SHA-1 or NTLM hashes, one a line: choose which under Check")
			}
		}
		// The file replaces what the form typed into its field.
		delete(fields, target.field)
		delete(fields, "hash")
		if target.lines {
			lines = nonBlankLines(file.text)
		} else {
			fields[target.field] = file.text
		}
	}
	for _, text := range fields {
		if len(text) > limit {
			return nil, newError(codeRequestTooLarge, "the text is %s; this tool takes at most %s", sizeInWords(len(text)), sizeInWords(limit))
		}
	}
	// Only the request's own fields go on, each as its JSON type
	// (formJSON): a browser also sends its buttons' names, which the
	// utility's decoder would refuse as unknown fields.
	known := requestFields(request)
	values := url.Values{}
	for name, value := range fields {
		if _, ok := field(known, name); ok {
			values.Set(name, value)
		}
	}
	raw, err := formJSON(values, reflect.New(request).Interface())
	if err == nil && lines != nil {
		raw, err = withArray(raw, target.field, lines)
	}
	if err != nil {
		return nil, err
	}
	body := bytes.NewBuffer(raw)
	if bodyLimit := s.panelBodyBytes(panel); body.Len() > bodyLimit {
		return nil, newError(codeRequestTooLarge, "the text, its quotes, backslashes and line breaks escaped, is larger than the %s a tool takes",
			sizeInWords(bodyLimit))
	}
	r.Body = io.NopCloser(body)
	r.ContentLength = int64(body.Len())
	r.Header.Set("Content-Type", "application/json")
	return form, nil
}

// uploadedFile is a file sent with a tools page form, held in memory.
type uploadedFile struct{ name, text string }

// readToolForm reads a tools page form, URL-encoded or multipart, within
// toolFormBytes; a multipart form may carry a file ("file") of at most
// fileLimit bytes. The parts are read into memory as they
// arrive, never spooled to disk as http.Request.ParseMultipartForm does
// with a large one: a file can be a credential dump.
func readToolForm(w http.ResponseWriter, r *http.Request, fileLimit int) (url.Values, *uploadedFile, error) {
	// tooLarge is err, or refusal when the body passed its bound.
	tooLarge := func(err error, refusal string) error {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return newError(codeRequestTooLarge, "%s", refusal)
		}
		return err
	}
	if mediaType(r.Header.Get("Content-Type")) != "multipart/form-data" {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, toolFormBytes))
		if err != nil {
			return nil, nil, tooLarge(err, "the text is larger than "+sizeInWords(maxBodyBytes)+", more than any tool takes")
		}
		form, err := url.ParseQuery(string(raw))
		if err != nil {
			return nil, nil, badRequest("malformed form body")
		}
		return form, nil, nil
	}
	// Multipart sends text as it is: a body of the file and as much text
	// again as a JSON client's holds.
	r.Body = http.MaxBytesReader(w, r.Body, int64(maxBodyBytes+fileLimit))
	refusal := "the form is larger than " + sizeInWords(maxBodyBytes+fileLimit) + ", more than this tool takes"
	parts, err := r.MultipartReader()
	if err != nil {
		return nil, nil, badRequest("malformed form body")
	}
	form := url.Values{}
	var file *uploadedFile
	for {
		part, err := parts.NextPart()
		if err == io.EOF {
			return form, file, nil
		}
		if err != nil {
			return nil, nil, tooLarge(badRequestOr(err), refusal)
		}
		name := part.FormName()
		if name == "file" {
			if part.FileName() == "" {
				continue // no file chosen
			}
			text, err := readFilePart(part, fileLimit)
			if err != nil {
				return nil, nil, tooLarge(err, refusal)
			}
			file = &uploadedFile{name: part.FileName(), text: text}
			continue
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, tooLarge(badRequestOr(err), refusal)
		}
		form.Add(name, string(value))
	}
}

// badRequestOr is err as the client's fault: a multipart body that cannot
// be read is malformed, unless the server refused it (its size, its pace).
func badRequestOr(err error) error {
	var known *apiError
	var tooBig *http.MaxBytesError
	if errors.As(err, &known) || errors.As(err, &tooBig) {
		return err
	}
	return badRequest("malformed form body")
}

// readFilePart reads a file of a tools page form: text of at most limit
// bytes, a byte order mark dropped. A file larger than that is refused as
// soon as it is, unread past its limit.
func readFilePart(part *multipart.Part, limit int) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
	switch {
	case err != nil:
		return "", badRequestOr(err)
	case len(raw) > limit:
		return "", newError(codeRequestTooLarge, "the file %q is larger than %s, the most this tool takes", part.FileName(), sizeInWords(limit))
	case len(raw) == 0:
		return "", badRequest("the file %q is empty", part.FileName())
	case bytes.IndexByte(raw, 0) >= 0 || !utf8.Valid(raw):
		return "", badRequest("the file %q is not text (UTF-8): choose a text file, one item a line (a compressed file must be decompressed first)", part.FileName())
	}
	return strings.TrimPrefix(string(raw), "\uFEFF"), nil
}

// nonBlankLines is text's lines with their spaces trimmed, blank ones left
// out.
func nonBlankLines(text string) []string {
	var lines []string
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// withArray sets the member name of the JSON object raw to items.
func withArray(raw []byte, name string, items []string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, err
	}
	array, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	members[name] = array
	return json.Marshal(members)
}

// sizeInWords is n bytes as people read a size: "957 KiB", "1 MiB".
func sizeInWords(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(math.Round(float64(n)/(1<<20)*10)/10, 'f', -1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.Itoa(int(math.Round(float64(n)/(1<<10)))) + " KiB"
	}
	return plural.Count(n, "byte", "bytes")
}

// previewRate bounds the strength meter's free preview for one account:
// about one answer a second of typing.
var previewRate = Rate{Burst: 60, Per: time.Minute}

// decodePreview reads a request of the strength meter's preview, which
// serves a logged-in session at most previewRate per account: the session
// and the account's limit come before the body.
func (s *Server) decodePreview() decoder[sessionRequest[passwordRequest]] {
	limits := newLimiter(previewRate)
	return func(w http.ResponseWriter, r *http.Request) (sessionRequest[passwordRequest], error) {
		a, err := s.sessionAccount(r)
		if err != nil {
			return sessionRequest[passwordRequest]{}, err
		}
		if ok, wait := limits.allow(strconv.FormatInt(a.ID, 10), s.Store.Now()); !ok {
			secs := ceilSeconds(wait)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			return sessionRequest[passwordRequest]{}, newError(codeRateLimited, "the free preview pauses for %s after %s a minute: press Check for a counted answer", plural.Count(secs, "second", "seconds"), plural.Count(previewRate.Burst, "answer", "answers"))
		}
		body, err := decode[passwordRequest](w, r)
		return sessionRequest[passwordRequest]{account: a, body: body}, err
	}
}

// strengthPreview is the strength meter's answer while someone types, not
// counted toward usage: a StrengthResult with the score and its label
// only, its other fields null and no feedback. The explicit "Check" (POST
// /password_check) is the metered call, with the feedback, the crack
// time and the breach count: a preview that answered them all would be an
// unmetered strength check, 60 a minute past any cap.
type strengthPreview struct {
	Score              int      `json:"score"`
	Label              string   `json:"label"`
	Feedback           []string `json:"feedback"`
	Length             *int     `json:"length"`
	Entropy            *float64 `json:"entropy"`
	CharsetSize        *int     `json:"charset_size"`
	EstimatedCrackTime *string  `json:"estimated_crack_time"`
	Breached           *int64   `json:"breached"`
}

// previewStrength estimates the password as /password_check does, and
// answers its score and label.
func (s *Server) previewStrength(_ context.Context, req sessionRequest[passwordRequest]) (strengthPreview, error) {
	res := estimateFor(req.body.Password, req.account.Email)
	return strengthPreview{Score: res.Score, Label: res.Label, Feedback: []string{}}, nil
}

// renderUtilityPage shows the utilities page; panel, when not empty, is
// the utility just used with its form, its result, or its error (and the
// error's status).
func (s *Server) renderUtilityPage(w http.ResponseWriter, r *http.Request, panel string, form url.Values, result any, failure error) {
	d := utilityPageData{Algorithms: hashgen.Algorithms(), Missing: s.missingData(r), Active: panel, Form: form, FileBytes: map[string]int{}, LookupBatch: s.HashLookupBatch}
	for p := range panelFiles {
		d.FileBytes[p] = s.panelTextBytes(p)
	}
	status := http.StatusOK
	if failure != nil {
		ae := s.publicError(r, failure)
		d.Error, status = ae.msg, ae.status()
	}
	v := newView(s, r, d)
	v.Path = "/tools"
	if failure == nil && result != nil {
		v.Data.Result = s.present(result, asked{form: form, path: r.URL.Path, account: v.Account})
	}
	if v.Account != nil {
		usage, err := s.usageOf(r.Context(), v.Account, s.Store.Now())
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		v.Data.Usage = &usage
	}
	render(s, w, r, status, "tools", v)
}

// missingData lists the data this server runs without, each with the
// sentence that tells an administrator which flag adds it.
func (s *Server) missingData(r *http.Request) map[string]string {
	missing := map[string]string{}
	if len(s.Geo.Databases()) == 0 {
		missing["ip"] = s.publicError(r, geo.ErrNoDatabase).msg
	}
	if !breach.HasCounts(s.Breach) {
		missing["breach_counts"] = "start secutil with -breach-file (a Pwned Passwords SHA-1 file) to get breach counts"
	}
	if s.BreachNTLM == nil {
		missing["ntlm"] = errNTLMNotConfigured.msg
	}
	return missing
}

// asked is what a panel was asked: its form, the route it was posted to,
// and by whom (nil: no one logged in).
type asked struct {
	form    url.Values
	path    string
	account *store.Account
}

// estimate rates the password the panel was sent as /password_check
// does, the asker's email counting as a word an attacker tries first.
func (q asked) estimate() strength.Result {
	var email string
	if q.account != nil {
		email = q.account.Email
	}
	return estimateFor(q.form.Get("password"), email)
}

// present shapes a utility's answer for the page: the JSON types of the
// API as they are, except where people read something the JSON leaves to
// the client (a JWT's expiry, a hashcat command, a breach count), or
// something beside it (how a password is guessed, beside its entropy; a
// warning about the password a text was encrypted with).
func (s *Server) present(result any, q asked) any {
	switch v := result.(type) {
	case entropyResponse:
		return entropyView{entropyResponse: v, Guessing: q.estimate()}
	case cryptoResponse:
		if q.path == "/secure_encrypt" {
			return newCryptoView(v, q.estimate())
		}
		return cryptoView{cryptoResponse: v}
	case strengthResponse:
		return newStrengthView(v)
	case strengthPreview:
		return strengthView{strengthResponse: strengthResponse{Score: v.Score, Label: v.Label}, Preview: true}
	case jwtResponse:
		return newJWTView(v, time.Now())
	case hashid.Result:
		return hashIDView{Count: 1, Groups: []hashIDGroup{newHashIDGroup(v.Estimate, v.Note, 1, v.Candidates)}}
	case hashIdentifierBatch:
		view := hashIDView{Count: v.Count}
		for _, g := range v.Groups {
			group := newHashIDGroup(g.Estimate, g.Note, g.Count, g.Candidates)
			group.Hashes = g.Hashes
			view.Groups = append(view.Groups, group)
			best := hashIDRow{Estimate: g.Estimate}
			if len(g.Candidates) > 0 && g.Estimate != hashid.NotHash {
				best.HashcatMode, best.JohnFormat = g.Candidates[0].HashcatMode, g.Candidates[0].JohnFormat
			}
			for _, h := range g.Hashes {
				best.Hash = h
				view.Rows = append(view.Rows, best)
			}
		}
		return view
	case geo.Info:
		return newIPView(v, s.hasCityData())
	case breachResponse:
		return breachView{Breached: v.Breached, Count: v.Count, Source: v.Source}
	case breachBatchResponse:
		view := breachView{Batch: v.Results, Source: v.Source, Total: len(v.Results)}
		for _, res := range v.Results {
			if res.Breached {
				view.Found++
			}
		}
		return view
	case breachRangeResponse:
		shown := v.Suffixes[:min(len(v.Suffixes), rangeShown)]
		return breachView{Range: true, Suffixes: shown, Total: len(v.Suffixes), Source: v.Source}
	}
	return result
}

// entropyView is a password's entropy, and beside it what the strength
// check estimates of the same password: the two measure different things,
// and disagree most about the passwords people choose ("aaaaaaaaaaaaaaaa":
// centuries by brute force, less than a second by guessing).
type entropyView struct {
	entropyResponse
	Guessing strength.Result
}

// weakEncryptionScore is the score below which the page warns that a
// text was encrypted with a password that is easy to guess: anyone who
// holds the text can try passwords offline, as fast as the key derivation
// lets them.
const weakEncryptionScore = 3

// cryptoView is an encryption's or a decryption's answer; an encryption
// with a weak password carries a warning.
type cryptoView struct {
	cryptoResponse
	Weak     bool
	Guessing strength.Result
}

func newCryptoView(res cryptoResponse, guessing strength.Result) cryptoView {
	return cryptoView{cryptoResponse: res, Weak: guessing.Score < weakEncryptionScore, Guessing: guessing}
}

// strengthView is a strength estimate with, when the server has a breach
// file, how often the password was seen in breaches; a preview's has only
// the score and its label.
type strengthView struct {
	strengthResponse
	BreachChecked bool
	BreachCount   int64
	Preview       bool
}

func newStrengthView(res strengthResponse) strengthView {
	v := strengthView{strengthResponse: res}
	if res.Breached != nil {
		v.BreachChecked, v.BreachCount = true, *res.Breached
	}
	return v
}

// rangeShown is how many entries of a range query the page lists.
const rangeShown = 20

// breachView is a breach check's answer: one password or hash, a range,
// or a batch of hashes (a file's).
type breachView struct {
	Range    bool
	Breached bool
	Count    int64
	Source   string
	Suffixes []breach.RangeEntry
	Total    int // the range's entries, or the batch's hashes
	Batch    []breachBatchResult
	Found    int // of the batch
}

// jwtView is a decoded token's three parts and the dates it claims.
type jwtView struct {
	Header, Payload, Signature string
	Expires, NotBefore         *time.Time
	Expired, NotYetValid       bool
	Warning                    string
}

func newJWTView(res jwtResponse, now time.Time) jwtView {
	var parts struct {
		Header, Payload json.RawMessage
		Signature       string
	}
	json.Unmarshal([]byte(res.Answer), &parts) // the decoder wrote it: it is valid
	v := jwtView{Header: indentJSON(parts.Header), Payload: indentJSON(parts.Payload), Signature: parts.Signature}
	if res.Error != nil {
		v.Warning = *res.Error
	}
	var claims struct{ Exp, Nbf any }
	json.Unmarshal(parts.Payload, &claims)
	if exp, ok := claims.Exp.(float64); ok {
		t := time.Unix(int64(exp), 0).UTC()
		v.Expires, v.Expired = &t, now.After(t)
	}
	if nbf, ok := claims.Nbf.(float64); ok {
		t := time.Unix(int64(nbf), 0).UTC()
		v.NotBefore, v.NotYetValid = &t, now.Before(t)
	}
	return v
}

func indentJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// hashIDView is the identifier's answer for one hash, or a batch's groups
// of hashes of one shape; each group ranks its candidates and has a ready
// hashcat command for the likeliest one hashcat knows.
type hashIDView struct {
	Count  int // hashes identified
	Groups []hashIDGroup
	Rows   []hashIDRow // a batch's hashes, one a row, group by group
}

// hashIDRow is a hash of a batch and its group's best candidate.
type hashIDRow struct {
	Hash, Estimate string
	HashcatMode    *int
	JohnFormat     string
}

type hashIDGroup struct {
	Estimate, Note string
	Count          int
	Hashes         []string // a batch's members
	Candidates     []hashid.Candidate
	More           int // candidates not shown
	Hashcat        string
}

// candidatesShown is how many candidates a group lists; the API has all.
const candidatesShown = 8

func newHashIDGroup(estimate, note string, count int, candidates []hashid.Candidate) hashIDGroup {
	g := hashIDGroup{Estimate: estimate, Note: note, Count: count, Candidates: candidates}
	// A string that is recognisably not a hash gets no command to crack it,
	// whatever formats it happens to fit.
	for _, c := range candidates {
		if estimate == hashid.NotHash {
			break
		}
		if c.Hashcat != "" {
			g.Hashcat = c.Hashcat
			break
		}
	}
	if len(candidates) > candidatesShown {
		g.Candidates, g.More = candidates[:candidatesShown], len(candidates)-candidatesShown
	}
	return g
}

// ipView is an IP lookup's answer: a table of the fields known, and in
// words the ones that are not, set apart from those this server cannot
// know for any address (no City database).
type ipView struct {
	geo.Info
	Rows []fieldRow
	// Unknown lists the fields no database knows for this address; empty
	// for an address that is not looked up (Note says why).
	Unknown []string
	// NoCityData lists the fields only a City database gives, when the
	// server has none.
	NoCityData []string
}

type fieldRow struct{ Name, Value string }

// infoLabels name GeoInfo2's fields for people; a field without a label
// shows its JSON name.
var infoLabels = map[string]string{
	"ip": "IP address", "city": "City", "region": "Region", "country": "Country",
	"country_iso": "Country code", "country_flag": "Flag", "postal": "Postal code",
	"timezone": "Time zone", "calling_code": "Calling code", "currency": "Currency",
	"isp": "ISP", "org": "Organisation", "latitude": "Latitude", "longitude": "Longitude",
	"eu": "EU member", "languages": "Languages", "asn": "ASN", "source": "Source", "note": "Note",
}

// cityFields are GeoInfo2's fields that only a City database answers
// (-geoip-city).
var cityFields = map[string]bool{"city": true, "region": true, "postal": true, "timezone": true, "latitude": true, "longitude": true}

// newIPView lays out info; hasCity tells whether the server has a City
// database.
func newIPView(info geo.Info, hasCity bool) ipView {
	view := ipView{Info: info}
	for _, f := range infoFields(info) {
		switch {
		case f.value != "":
			view.Rows = append(view.Rows, fieldRow{Name: f.label, Value: f.value})
		case info.Note != "":
			// Not looked up: the note says why, for every field at once.
		case cityFields[f.name] && !hasCity:
			view.NoCityData = append(view.NoCityData, f.label)
		case !f.omitEmpty:
			view.Unknown = append(view.Unknown, f.label)
		}
	}
	return view
}

// infoField is a field of GeoInfo2: its JSON name, its label, its value
// as text ("" for null) and whether JSON leaves it out when empty.
type infoField struct {
	name, label, value string
	omitEmpty          bool
}

// infoFields lists every field of info in the order of the type, so a
// field added to GeoInfo2 shows without a change here.
func infoFields(info geo.Info) []infoField {
	var fields []infoField
	v := reflect.ValueOf(info)
	for i := range v.NumField() {
		name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		label := infoLabels[name]
		if label == "" {
			label = name
		}
		fields = append(fields, infoField{name: name, label: label, value: fieldText(v.Field(i)), omitEmpty: strings.Contains(opts, "omitempty")})
	}
	return fields
}

// hasCityData reports whether the server has a City database, the one
// source of cityFields.
func (s *Server) hasCityData() bool {
	for _, db := range s.Geo.Databases() {
		if db.Role == geo.RoleCity {
			return true
		}
	}
	return false
}

// fieldText renders a GeoInfo2 value: "" for null, yes/no, numbers without
// float noise, lists joined.
func fieldText(f reflect.Value) string {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return ""
		}
		f = f.Elem()
	}
	switch f.Kind() {
	case reflect.Bool:
		if f.Bool() {
			return "yes"
		}
		return "no"
	case reflect.Float64:
		return decimal(f.Float())
	case reflect.Slice:
		items := make([]string, f.Len())
		for i := range items {
			items[i] = fieldText(f.Index(i))
		}
		return strings.Join(items, ", ")
	default:
		return fmt.Sprint(f.Interface())
	}
}

// decimal writes x with at most four decimals and no trailing zeros, so
// float noise (0.5599999999999999) never reaches a page.
func decimal(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64)
}

// writeLookupCSV sends a hash lookup's results as a CSV download. A cell
// that a spreadsheet would run as a formula is prefixed with a quote.
func writeLookupCSV(w http.ResponseWriter, out hashLookupOutput) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="hash-lookup.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"hash", "found", "type", "plaintext"})
	for _, res := range out.Results {
		row := []string{res.Hash, strconv.FormatBool(res.Found), "", ""}
		if res.Found {
			row[2], row[3] = *res.Type, spreadsheetSafe(*res.Plaintext)
		}
		cw.Write(row)
	}
	cw.Flush()
}

func spreadsheetSafe(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}

// usageOf is the account's usage this month against its cap at now. The
// utilities page and the dashboard show it.
func (s *Server) usageOf(ctx context.Context, a *store.Account, now time.Time) (usageSummary, error) {
	used, err := s.Store.Usage(ctx, a.ID)
	sum := usageSummary{Used: used, Cap: a.Cap(now)}
	if sum.Cap != nil && used >= *sum.Cap {
		sum.AtCap = capAdvice(a, now, s.Checkout != nil)
	}
	return sum, err
}
