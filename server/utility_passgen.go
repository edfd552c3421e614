package server

import (
	"cmp"
	"context"
	"math"
	"strings"

	"secutil/tools/passgen"
)

// POST /generate_password: a random password of chosen characters, or a
// passphrase of words from EFF's large word list.

type passwordGenRequest struct {
	_    struct{} `doc:"Every field is optional, and so is the body. A password takes length and the character classes; a passphrase (mode passphrase) takes words, separator, case and digit. A field of the other mode is refused."`
	Mode string   `json:"mode" aka:"type,kind" enum:"password,passphrase" doc:"default password"`

	Length       int   `json:"length" aka:"size,chars,characters" maximum:"1024" doc:"password: characters, 4 to 1024; 0 or absent: 20"`
	Lower        *bool `json:"lower" type:"boolean" aka:"lowercase" doc:"password: lower-case letters (default true)"`
	Upper        *bool `json:"upper" type:"boolean" aka:"uppercase" doc:"password: upper-case letters (default true)"`
	Digits       *bool `json:"digits" type:"boolean" aka:"numbers" doc:"password: digits (default true)"`
	Symbols      *bool `json:"symbols" type:"boolean" aka:"special" doc:"password: ASCII punctuation (default true)"`
	NoLookAlikes bool  `json:"no_look_alikes" aka:"exclude_similar,exclude_ambiguous,no_similar" doc:"password: leave out characters that look alike: 0, O, 1, l, I and |"`

	Words     int     `json:"words" aka:"word_count,number_of_words" maximum:"64" doc:"passphrase: words, 3 to 64; 0 or absent: 6"`
	Separator *string `json:"separator" type:"string" aka:"delimiter,sep" doc:"passphrase: what joins the words, at most 16 bytes, no control characters; may be empty (default -)"`
	Case      string  `json:"case" aka:"capitalization,capitalisation" enum:"lower,title,upper,random" doc:"passphrase: lower (default), title (Each Word), upper, or random (each word lower or title: a bit more a word)"`
	Digit     bool    `json:"digit" aka:"number,add_digit" doc:"passphrase: a random digit after a random word"`
}

// The body may be left out: a password of the defaults.
func (passwordGenRequest) bodyOptional() {}

func (q *passwordGenRequest) check() error {
	switch strings.ToLower(strings.TrimSpace(q.Mode)) {
	case "", "password":
		if name, ok := firstGiven(optionGiven{"words", q.Words != 0}, optionGiven{"separator", q.Separator != nil},
			optionGiven{"case", q.Case != ""}, optionGiven{"digit", q.Digit}); ok {
			return badRequest("field %q is for a passphrase: send \"mode\": \"passphrase\" with it", name)
		}
	case "passphrase":
		if name, ok := firstGiven(optionGiven{"length", q.Length != 0}, optionGiven{"lower", q.Lower != nil}, optionGiven{"upper", q.Upper != nil},
			optionGiven{"digits", q.Digits != nil}, optionGiven{"symbols", q.Symbols != nil}, optionGiven{"no_look_alikes", q.NoLookAlikes}); ok {
			return badRequest("field %q is for a password, not a passphrase", name)
		}
	default:
		return badRequest("field \"mode\" must be password or passphrase, not %q", truncate(q.Mode, 40))
	}
	return nil
}

// optionGiven is whether a request gave the option of a name.
type optionGiven struct {
	name  string
	given bool
}

// firstGiven is the name of the first option given.
func firstGiven(options ...optionGiven) (string, bool) {
	for _, o := range options {
		if o.given {
			return o.name, true
		}
	}
	return "", false
}

type passwordGenResponse struct {
	Password    string  `json:"password" required:"true" doc:"the password or passphrase"`
	Mode        string  `json:"mode" required:"true" enum:"password,passphrase"`
	EntropyBits float64 `json:"entropy_bits" required:"true" doc:"log2 of the number of equally likely answers under these options, to two decimals"`
	WordList    string  `json:"word_list,omitempty" doc:"passphrase: the word list and the credit its licence asks for"`
}

// generatePassword draws a password or a passphrase. passgen refuses the
// options out of bounds, and no class chosen, in its own words.
func generatePassword(_ context.Context, req passwordGenRequest) (passwordGenResponse, error) {
	if strings.EqualFold(strings.TrimSpace(req.Mode), "passphrase") {
		res, err := passgen.Passphrase(passgen.PassphraseOptions{
			Words:     cmp.Or(req.Words, passgen.DefaultWords),
			Separator: valueOr(req.Separator, passgen.DefaultSeparator),
			Case:      req.Case,
			Digit:     req.Digit,
		})
		if err != nil {
			return passwordGenResponse{}, err
		}
		return passwordGenResponse{Password: res.Value, Mode: "passphrase", EntropyBits: twoDecimals(res.EntropyBits), WordList: passgen.WordListCredit}, nil
	}
	res, err := passgen.Password(passgen.PasswordOptions{
		Length:       cmp.Or(req.Length, passgen.DefaultLength),
		Lower:        valueOr(req.Lower, true),
		Upper:        valueOr(req.Upper, true),
		Digits:       valueOr(req.Digits, true),
		Symbols:      valueOr(req.Symbols, true),
		NoLookAlikes: req.NoLookAlikes,
	})
	if err != nil {
		return passwordGenResponse{}, err
	}
	return passwordGenResponse{Password: res.Value, Mode: "password", EntropyBits: twoDecimals(res.EntropyBits)}, nil
}

// valueOr is *p, or fallback when p is nil (a field left out).
func valueOr[T any](p *T, fallback T) T {
	if p == nil {
		return fallback
	}
	return *p
}

func twoDecimals(x float64) float64 { return math.Round(x*100) / 100 }
