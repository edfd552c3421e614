// Command loadbare is the yardstick of the load comparison (bench_load_test.go):
// a plain net/http server doing the JSON work of POST /api/v1/base64 (the
// same body in, the same answer out) with no authentication, metering,
// middleware or logging. It serves on the address given as its argument and
// prints "listening on http://ADDR".
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
)

func main() {
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, http.HandlerFunc(base64Handler)))
}

func base64Handler(w http.ResponseWriter, r *http.Request) {
	var req struct{ Text, Option string }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"answer": base64.StdEncoding.EncodeToString([]byte(req.Text)), "error": nil})
}
