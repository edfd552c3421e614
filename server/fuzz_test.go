package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"secutil/server"
	"secutil/store"
)

// FuzzAPIBodies sends arbitrary bodies to every API route with a valid key:
// whatever arrives, the answer is never a 5xx, and a refused call is never
// counted.
func FuzzAPIBodies(f *testing.F) {
	paths := server.APIPaths()
	for i := range paths {
		f.Add(uint8(i), []byte(`{"password":"hunter2","text":"aGk=","option":"decode","message":"m"}`))
		f.Add(uint8(i), []byte(`{"hashes":"5f4dcc3b5aa765d61d8327deb882cf99","algorithm":"md5","plaintext":"x","hash":"x","token":"a.b.c","ip_string":"8.8.8.8"}`))
		f.Add(uint8(i), []byte(`{"token":"a.b.c","key":"k","length":16,"format":"base64url","mode":"passphrase","words":4,"output":"hex","cost":4}`))
		f.Add(uint8(i), []byte(`[{}]`))
	}
	e := newEnv(f)
	key := e.key("fuzz@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(context.Background(), "fuzz@example.com")
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := "/api/v1" + paths[int(route)%len(paths)]
		if credentialRoutes[strings.TrimPrefix(path, "/api/v1")] {
			return // rotating the key under the fuzzer would lock it out
		}
		before, _ := e.store.Usage(context.Background(), a.ID)
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		after, _ := e.store.Usage(context.Background(), a.ID)
		if rec.Code != http.StatusOK && after != before {
			t.Fatalf("%s: refused with %d but counted", path, rec.Code)
		}
	})
}
