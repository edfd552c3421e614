package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"secutil/store"
	"secutil/tools/passhash"
	"secutil/tools/plural"
)

// The 6-digit codes mailed to verify a registration or reset a password:
// made, kept as keyed hashes, mailed within limits, and spent.

// codeTTL is how long a mailed code works.
const codeTTL = 15 * time.Minute

// sendCode stores and mails a fresh 6-digit code, asked for by client
// (the exchange's codeClient). Past the codes an address may get in an
// hour, from that client or from all, it sends nothing, and says nothing
// either: the answer of the route must not tell whether the address has
// an account. The owner hears of it instead (tellOwnerOfCodeLimit).
func (s *Server) sendCode(ctx context.Context, accountID int64, email, purpose, client string) error {
	code, err := newCode()
	if err != nil {
		return err
	}
	notify, err := s.Store.SetCodeFor(ctx, accountID, purpose, client, s.codeHash(accountID, purpose, code), codeTTL)
	if errors.Is(err, store.ErrTooManyCodes) {
		return s.codeRefused(ctx, notify, accountID, email, purpose)
	}
	if err != nil {
		return err
	}
	return s.mailCode(ctx, email, purpose, code, "")
}

// codeRefused logs that no code went out, the address having had its
// codes for the hour, and tells the owner when notify says so.
func (s *Server) codeRefused(ctx context.Context, notify bool, accountID int64, email, purpose string) error {
	s.Logger.Info("code not sent: the address had its codes for the hour", "purpose", purpose)
	return s.tellOwnerOfCodeLimit(ctx, notify, accountID, email)
}

// mailCode mails a code for purpose to email, with note, a paragraph of
// its own, when there is one.
func (s *Server) mailCode(ctx context.Context, email, purpose, code, note string) error {
	what := "verification"
	if purpose == store.PurposeReset {
		what = "password reset"
	}
	body := fmt.Sprintf("Your secutil %s code is %s. It expires in 15 minutes.", what, code)
	if note != "" {
		body += "\n\n" + note
	}
	return s.Mailer.Send(ctx, email, "secutil "+what+" code: "+code, body)
}

// tellOwnerOfCodeLimit lets an account's owner know, once per client and
// hour (notify, from the store), that a client used up its codes or code
// tries for the account: by mail, and in the log for the operator of a
// server without mail. The owner's own requests count apart, from a
// network the account logged in from, so recovery still works for them.
func (s *Server) tellOwnerOfCodeLimit(ctx context.Context, notify bool, accountID int64, email string) error {
	if !notify {
		return nil
	}
	s.Logger.Warn("a client used up its codes or code tries for an account; the owner's own requests still work",
		"account_id", accountID)
	if s.codesInLog {
		return nil
	}
	return s.Mailer.Send(ctx, email, "secutil: codes asked for your account",
		"Someone asked for codes for your secutil account, or tried wrong codes, more often than allowed,\n"+
			"and was stopped for an hour. If it was not you, your password is unchanged and nothing is needed;\n"+
			"your own request for a code still works from a network you have logged in from before.")
}

// codeClient is the client of the exchange as the code limits count it:
// a keyed hash of its address (an IPv4 address, an IPv6 /64), so that the
// database keeps which networks an account logged in from without their
// addresses.
func (s *Server) codeClient(ctx context.Context) string {
	mac := hmac.New(sha256.New, s.codeKey)
	mac.Write([]byte("client network\x00" + exchangeOf(ctx).clientKey))
	return hex.EncodeToString(mac.Sum(nil)[:16])
}

// rememberNetwork records the exchange's network as one the account logged
// in from: it keeps its own share of codes and code tries however many
// strangers elsewhere ask for the account's (store.RememberClient). A
// failure is logged; the login stands.
func (s *Server) rememberNetwork(ctx context.Context, accountID int64) {
	if err := s.Store.RememberClient(ctx, accountID, s.codeClient(ctx)); err != nil {
		s.Logger.Error("remembering the network of a login", "err", err)
	}
}

func newCode() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	// 2^64 mod 10^6 bias is below 1e-13: negligible.
	return fmt.Sprintf("%06d", binary.BigEndian.Uint64(b[:])%1_000_000), nil
}

// codeHash is what the database keeps of a code: an HMAC-SHA-256 under a
// key derived from the server key, so a copy of the database does not give
// back a live code (a plain hash of a 6-digit code is undone by trying the
// million). It binds the code to its account and purpose, so a code for one
// cannot be replayed for another.
func (s *Server) codeHash(accountID int64, purpose, code string) []byte {
	mac := hmac.New(sha256.New, s.codeKey)
	mac.Write([]byte(strconv.FormatInt(accountID, 10) + "\x00" + purpose + "\x00" + strings.TrimSpace(code)))
	return mac.Sum(nil)
}

// codeKeyFrom derives the key of codeHash from the server key, or makes a
// random one when the server has none (codes then die with the process).
func codeKeyFrom(serverKey []byte) []byte {
	if serverKey == nil {
		key := make([]byte, sha256.Size)
		rand.Read(key)
		return key
	}
	mac := hmac.New(sha256.New, serverKey)
	mac.Write([]byte("secutil verification and reset codes"))
	return mac.Sum(nil)
}

type verifyRequest struct {
	emailRequest
	Code string `json:"code"`
	// Password is the registration's password, asked again (/register/verify).
	Password string `json:"password"`
	// NewPassword and RevokeAPIKeys are for /forgot-password/verify.
	NewPassword   string    `json:"new_password"`
	RevokeAPIKeys *formBool `json:"revoke_api_keys"`
}

func (v *verifyRequest) check() error {
	if err := v.emailRequest.check(); err != nil {
		return err
	}
	v.Code = pastedCode(v.Code)
	return required("code", v.Code)
}

// pastedCode is a code as typed or pasted: "123 456" and "123-456" (a mail
// client's grouping) are 123456.
func pastedCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, code)
}

// consumeCode checks a code for email; every failure reads the same, but
// to a registrant who gave the pending account's password, and so
// registered it: they learn what was wrong with the code
// (wrongRegistrationCode). A registration's code comes with its password:
// when the password does not match the pending account's, the try counts
// as a wrong code, so nobody activates an account with a password they
// did not choose, nor guesses the code without the password; the answer
// then says that only the newest registration's code and password go
// together, which is why a registrant whose address was registered again
// since sees theirs fail.
func (s *Server) consumeCode(ctx context.Context, email, purpose, code, password string) (*store.Account, error) {
	invalid := badRequest("%s", store.ErrCodeInvalid.Error())
	if purpose == store.PurposeRegister {
		invalid = badRequest("the code or the password is wrong, or the code has expired: only the newest code mailed for this address works, "+
			"with the password of the registration that sent it; %s", s.newCodeHint())
	}
	a, err := s.Store.AccountByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		if purpose == store.PurposeRegister {
			passhash.VerifyNothing(password) // the same time as a known email
		}
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	hash := s.codeHash(a.ID, purpose, code)
	registrant := false
	if purpose == store.PurposeRegister {
		ok, err := passhash.Verify(password, a.PasswordHash)
		if err != nil {
			return nil, err
		}
		if registrant = ok && !a.Verified; !ok {
			hash = nil // matches no code, and counts as a wrong try
		}
	}
	notify, err := s.Store.ConsumeCodeFrom(ctx, a.ID, purpose, s.codeClient(ctx), hash)
	if notifyErr := s.tellOwnerOfCodeLimit(ctx, notify, a.ID, a.Email); notifyErr != nil {
		s.Logger.Error("telling the owner of a code limit", "err", notifyErr)
	}
	switch {
	case errors.Is(err, store.ErrCodeInvalid) && registrant:
		return nil, s.wrongRegistrationCode(err)
	case errors.Is(err, store.ErrCodeInvalid):
		return nil, invalid
	}
	return a, err
}

// wrongRegistrationCode says why a registrant's code did not work: wrong,
// with the tries left at it, so that a typo is typed again on the same
// form rather than sent to register again; or no code works any more.
func (s *Server) wrongRegistrationCode(err error) error {
	var wrong *store.WrongCodeError
	switch {
	case errors.As(err, &wrong) && wrong.TriesLeft > 0:
		return badRequest("wrong code: %s left", plural.Count(wrong.TriesLeft, "try", "tries"))
	case errors.As(err, &wrong):
		return badRequest("wrong code, and that was the last try at it: %s", s.newCodeHint())
	}
	return badRequest("this code no longer works: it expired, took its wrong tries, or a newer one replaced it; %s", s.newCodeHint())
}

// newCodeHint says how a registrant gets a new code: registering again,
// with the same invite link on a server that registers by invite (it
// works until the account is verified).
func (s *Server) newCodeHint() string {
	if s.registration.ByInvite() {
		return "register again with the same invite link for a new code: it works until your account is verified"
	}
	return "register again for a new code"
}
