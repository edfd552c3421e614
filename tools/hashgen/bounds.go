package hashgen

import (
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// The bounds on the costs of the password hashes, for hashes made here
// and for hashes given to package hashverify alike, so that no call, and
// no hash a caller writes, costs more than about a second of one core and
// 256 MiB of memory. Measured on the project's 2-core machine:
// bcrypt cost 14 takes 1.1 s; argon2id m=256 MiB, t=4 takes 1.7 s; scrypt
// with N=2^18, r=8 (256 MiB) takes 1 s.
const (
	MinBcryptCost = bcrypt.MinCost // 4
	MaxBcryptCost = 14

	MaxArgon2MemoryKiB   = 256 * 1024
	MaxArgon2Time        = 10
	MaxArgon2Parallelism = 8
	// MaxArgon2Work bounds memory × passes (KiB × t): 256 MiB four times,
	// or 64 MiB ten times, not 256 MiB ten times.
	MaxArgon2Work = 1 << 20

	// scrypt's N is a power of two from 2 to 2^MaxScryptLogN.
	MaxScryptLogN = 20
	MaxScryptR    = 32
	MaxScryptP    = 16
	// MaxScryptMemoryBytes bounds 128·N·r, the memory one derivation holds.
	MaxScryptMemoryBytes = 256 << 20
	// MaxScryptWorkBytes bounds 128·N·r·p, the memory it walks through:
	// p runs one after another over the same memory.
	MaxScryptWorkBytes = 512 << 20
)

// Options are the costs of the password hashes. A zero field takes the
// default (BcryptCost, Argon2, ScryptLogN/ScryptR/ScryptP); a non-zero
// field must be within the bounds above, and must be one the algorithm
// takes.
type Options struct {
	BcryptCost int

	Argon2MemoryKiB   int
	Argon2Time        int
	Argon2Parallelism int

	ScryptN int // a power of two, not its logarithm
	ScryptR int
	ScryptP int
}

// optionSet is a set of Options fields, one bit each.
type optionSet uint8

const (
	optBcryptCost optionSet = 1 << iota
	optArgon2Memory
	optArgon2Time
	optArgon2Parallelism
	optScryptN
	optScryptR
	optScryptP

	usesBcrypt = optBcryptCost
	usesArgon2 = optArgon2Memory | optArgon2Time | optArgon2Parallelism
	usesScrypt = optScryptN | optScryptR | optScryptP
)

// optionNames names each field as the API spells its parameter.
var optionNames = [...]string{"cost", "memory", "time", "parallelism", "n", "r", "p"}

func (o Options) set() optionSet {
	var s optionSet
	for i, v := range [...]int{o.BcryptCost, o.Argon2MemoryKiB, o.Argon2Time, o.Argon2Parallelism, o.ScryptN, o.ScryptR, o.ScryptP} {
		if v != 0 {
			s |= 1 << i
		}
	}
	return s
}

// describe names the fields of s: `the parameters "n" and "r"`.
func (s optionSet) describe() string {
	var names []string
	for i, name := range optionNames {
		if s&(1<<i) != 0 {
			names = append(names, fmt.Sprintf("%q", name))
		}
	}
	if len(names) == 1 {
		return "the parameter " + names[0]
	}
	return "the parameters " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func outOfRange(what string, lo, hi, got int) error {
	return &InputError{fmt.Sprintf("%s must be from %d to %d; got %d", what, lo, hi, got)}
}

// CheckBcryptCost refuses a bcrypt cost outside MinBcryptCost..MaxBcryptCost.
func CheckBcryptCost(cost int) error {
	if cost < MinBcryptCost || cost > MaxBcryptCost {
		return outOfRange("bcrypt cost", MinBcryptCost, MaxBcryptCost, cost)
	}
	return nil
}

// CheckArgon2 refuses argon2 costs outside the bounds, or that argon2
// cannot run with (under 8 KiB of memory a lane).
func CheckArgon2(memoryKiB, time, parallelism int) error {
	switch {
	case parallelism < 1 || parallelism > MaxArgon2Parallelism:
		return outOfRange("argon2 parallelism", 1, MaxArgon2Parallelism, parallelism)
	case memoryKiB < 8*parallelism || memoryKiB > MaxArgon2MemoryKiB:
		return outOfRange(fmt.Sprintf("argon2 memory (KiB) with parallelism %d", parallelism), 8*parallelism, MaxArgon2MemoryKiB, memoryKiB)
	case time < 1 || time > MaxArgon2Time:
		return outOfRange("argon2 time", 1, MaxArgon2Time, time)
	case memoryKiB*time > MaxArgon2Work:
		return &InputError{fmt.Sprintf("argon2 memory × time must be at most %d KiB (1 GiB of passes, such as 256 MiB four times); m=%d, t=%d make %d",
			MaxArgon2Work, memoryKiB, time, memoryKiB*time)}
	}
	return nil
}

// CheckScrypt refuses scrypt costs outside the bounds: n must be a power
// of two from 2 to 2^MaxScryptLogN, r and p at least 1, and the memory
// 128·n·r and the work 128·n·r·p within MaxScryptMemoryBytes and
// MaxScryptWorkBytes.
func CheckScrypt(n, r, p int) error {
	switch {
	case n < 2 || n > 1<<MaxScryptLogN || n&(n-1) != 0:
		return &InputError{fmt.Sprintf("scrypt N must be a power of two from 2 to %d; got %d", 1<<MaxScryptLogN, n)}
	case r < 1 || r > MaxScryptR:
		return outOfRange("scrypt r", 1, MaxScryptR, r)
	case p < 1 || p > MaxScryptP:
		return outOfRange("scrypt p", 1, MaxScryptP, p)
	case 128*n*r > MaxScryptMemoryBytes:
		return &InputError{fmt.Sprintf("scrypt memory 128·N·r must be at most %d MiB; N=%d, r=%d need %d MiB",
			MaxScryptMemoryBytes>>20, n, r, 128*n*r>>20)}
	case 128*n*r*p > MaxScryptWorkBytes:
		return &InputError{fmt.Sprintf("scrypt work 128·N·r·p must be at most %d MiB; N=%d, r=%d, p=%d make %d MiB",
			MaxScryptWorkBytes>>20, n, r, p, 128*n*r*p>>20)}
	}
	return nil
}
