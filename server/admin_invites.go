package server

import (
	"context"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/apikey"
)

// Invite links, on a server that registers by invite: POST
// /boss/invites/create, list and revoke, and the admin page's forms for
// them.

// inviteTTL is how long an invite link works (it is spent when an account
// registered with it is verified).
const inviteTTL = 7 * 24 * time.Hour

type inviteResponse struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
	expires   time.Time
}

// flash hands a new invite link to the admin page in the flash cookie,
// never in a URL that would keep it: a reload of that page shows it no
// more and mints none.
func (r inviteResponse) flash() adminFlash {
	return adminFlash{InviteURL: r.URL, InviteExpires: r.expires.Unix()}
}

// createInvite makes a one-time registration link valid for inviteTTL.
// The link is shown only in this answer: the store keeps its token's hash.
func (s *Server) createInvite(ctx context.Context, _ noRequest) (inviteResponse, error) {
	if !s.registration.ByInvite() {
		return inviteResponse{}, errInvitesOff
	}
	token := apikey.NewToken()
	hash := apikey.Hash(token)
	by, actor := s.adminActor(ctx)
	expires, err := s.Store.CreateInvite(ctx, hash, by, inviteTTL)
	if err != nil {
		return inviteResponse{}, err
	}
	s.audit(ctx, store.AuditInviteCreated, by, "invite "+inviteID(hash)+", valid until "+expires.UTC().Format(account.AuditTime)+", by "+actor)
	return inviteResponse{URL: exchangeOf(ctx).origin + "/register?invite=" + token, ExpiresAt: expires.Format(time.RFC3339), expires: expires}, nil
}

// adminInvite is a live invite as the admin routes list it. Its id is the
// hex of the hash the store keeps: the link itself is never kept.
type adminInvite struct {
	ID        string `json:"id"`
	CreatedBy string `json:"created_by"` // "" for the admin token or a deleted account
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
	Pending   int    `json:"pending"` // accounts registered with it, not verified yet
	// For the admin page: its short id (inviteID), when it was made, to
	// the second (two made in one minute differ), and when it expires.
	ShortID string     `json:"-"`
	Created string     `json:"-"`
	Expires *time.Time `json:"-"`
}

// toTheSecond is how the admin page writes when an invite was made.
const toTheSecond = "2 Jan 2006 15:04:05 UTC"

// listInvites lists the live invites, the one expiring first first.
func (s *Server) listInvites(ctx context.Context, _ noRequest) (itemsResponse[adminInvite], error) {
	list, err := s.Store.Invites(ctx, maxListedItems)
	if err != nil {
		return itemsResponse[adminInvite]{}, err
	}
	out := make([]adminInvite, 0, len(list))
	for _, in := range list {
		out = append(out, adminInvite{ID: hex.EncodeToString(in.Hash), CreatedBy: in.CreatedBy,
			CreatedAt: in.CreatedAt.Format(time.RFC3339), ExpiresAt: in.ExpiresAt.Format(time.RFC3339),
			Pending: in.Pending, ShortID: inviteID(in.Hash), Created: in.CreatedAt.Format(toTheSecond), Expires: &in.ExpiresAt})
	}
	return itemsResponse[adminInvite]{Items: out}, nil
}

type inviteIDRequest struct {
	ID string `json:"id"`
}

func (q *inviteIDRequest) check() error {
	q.ID = strings.TrimSpace(q.ID)
	return required("id", q.ID)
}

// revokeInvite deletes a live invite: its link registers no one from now
// on, and accounts registered with it and not verified yet cannot be.
func (s *Server) revokeInvite(ctx context.Context, req inviteIDRequest) (statusResponse, error) {
	gone := newError(codeInviteNotFound, "no live invite has the id %q: it was used, revoked or expired", req.ID)
	hash, err := hex.DecodeString(req.ID)
	if err != nil || len(hash) == 0 || len(hash) > 64 {
		return statusResponse{}, gone
	}
	if err := s.Store.RevokeInvite(ctx, hash); errors.Is(err, store.ErrNotFound) {
		return statusResponse{}, gone
	} else if err != nil {
		return statusResponse{}, err
	}
	s.adminAudit(ctx, store.AuditInviteRevoked, "invite "+inviteID(hash))
	return statusResponse{Status: store.AuditInviteRevoked, Message: "The invite was revoked: its link registers no one."}, nil
}

// inviteID is how the admin page and the audit log name an invite: the
// first 12 hex digits of the hash the store keeps of its token.
func inviteID(hash []byte) string {
	return hex.EncodeToString(hash[:min(len(hash), 6)])
}

// ID is the new link's invite's id (inviteID), as its row and the audit
// log name it.
func (n *newInvite) ID() string {
	u, err := url.Parse(n.URL)
	if err != nil {
		return ""
	}
	return inviteID(apikey.Hash(u.Query().Get("invite")))
}

// inviteForm reads the revoke button of a live invite.
func inviteForm(form url.Values) (inviteIDRequest, error) {
	return inviteIDRequest{ID: formText(form, "id")}, nil
}
