package audit_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"runtime"
	"testing"

	"secutil/tools/audit"
	"secutil/tools/dump"
	"secutil/tools/hashgen"
)

// benchRecords makes a domain of n accounts as dumps show them: distinct
// passwords for most, a popular password shared by one in ten, a computer
// account in twenty with its default password, the empty LM everywhere.
func benchRecords(n int) []dump.Record {
	var emptyLMBytes [16]byte
	hex.Decode(emptyLMBytes[:], []byte(emptyLM))
	recs := make([]dump.Record, n)
	for i := range recs {
		user := fmt.Sprintf("user%06d", i)
		password := fmt.Sprintf("k%dq!%d", i*7919, i)
		switch {
		case i%10 == 0:
			password = "Winter2025!"
		case i%20 == 1:
			user = fmt.Sprintf("WS%05d$", i)
			password = fmt.Sprintf("ws%05d", i)
		}
		digest := hashgen.NTLM([]byte(password))
		recs[i] = dump.Record{Line: i + 1, Format: dump.Pwdump, Domain: "CORP", User: user, RID: uint32(1000 + i),
			Algorithm: dump.NTLM, Hash: digest, LM: emptyLMBytes, HasLM: true, Raw: hex.EncodeToString(digest), Status: "Enabled"}
	}
	return recs
}

// BenchmarkAudit audits 100,000 accounts in memory: Add for each, then
// Report with a breach lookup and the common-list lookup (its table built
// beforehand), as the command and the API run it without their I/O. It
// reports the time per account and the heap the audit keeps per account.
func BenchmarkAudit(b *testing.B) {
	const n = 100_000
	recs := benchRecords(n)
	words := make([]string, 30_000)
	for i := range words {
		words[i] = fmt.Sprintf("common%d", i)
	}
	common := audit.WordList(words)
	common(context.Background(), dump.NTLM, nil)
	breached := func(_ context.Context, digests [][]byte) ([]int64, error) { return make([]int64, len(digests)), nil }
	src := audit.Sources{Breached: map[dump.Algorithm]audit.CountLookup{dump.NTLM: breached}, Common: common}
	var kept uint64
	b.ReportAllocs()
	for b.Loop() {
		var before, after runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		a := audit.New(audit.Options{})
		for _, rec := range recs {
			if err := a.Add(rec); err != nil {
				b.Fatal(err)
			}
		}
		rep, err := a.Report(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = after.HeapAlloc - before.HeapAlloc
		if s := rep.Summary(); s.SharedWith != n/10 || s.DefaultComputerPassword != n/20 {
			b.Fatalf("summary %+v", s)
		}
		runtime.KeepAlive(rep)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/account")
	b.ReportMetric(float64(kept)/n, "heap-B/account")
}
