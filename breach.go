package main

import (
	"fmt"

	"secutil/tools/breach"
)

// breachSources answer /data_breach; the files, when given, also GET /range.
type breachSources struct {
	sha1, ntlm         breach.Source
	sha1File, ntlmFile *breach.File
}

// openBreachSources opens the Pwned Passwords files given; without a SHA-1
// file, the embedded common-password list answers /data_breach (with count
// 0: unknown) and GET /range has no SHA-1 answers.
func openBreachSources(sha1Path, ntlmPath string, common []string) (b breachSources, closeAll func(), err error) {
	closeAll = func() {
		for _, f := range []*breach.File{b.sha1File, b.ntlmFile} {
			if f != nil {
				f.Close()
			}
		}
	}
	if sha1Path == "" {
		b.sha1 = breach.NewListSource("embedded common-password list", common, breach.KindSHA1)
	} else if b.sha1File, err = breach.OpenFile(sha1Path, breach.KindSHA1); err != nil {
		return b, closeAll, fmt.Errorf("-breach-file: %w", err)
	} else {
		b.sha1 = breach.NewFileSource(b.sha1File)
	}
	if ntlmPath != "" {
		if b.ntlmFile, err = breach.OpenFile(ntlmPath, breach.KindNTLM); err != nil {
			closeAll()
			return b, closeAll, fmt.Errorf("-breach-file-ntlm: %w", err)
		}
		b.ntlm = breach.NewFileSource(b.ntlmFile)
	}
	return b, closeAll, nil
}
