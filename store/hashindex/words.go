package hashindex

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
)

// Words are stored in blocks of up to blockWords records, one row per block, so
// that a batch of a million words is a few thousand row inserts. A record is
//
//	[algorithm set: 1 byte][word length: uvarint][word]
//
// where the set says under which algorithms the word has index entries, so a
// re-import can tell what is missing without consulting every algorithm's runs.
const blockWords = 256

// wordRef locates a stored word: its block id (from 1) and its slot in the block, in the
// 4 bytes an index entry gives it.
type wordRef uint32

// maxBlocks is the number of block ids a wordRef can address: 2^24 blocks of 256 words,
// 4.29 billion words.
const maxBlocks = 1 << 24

func makeRef(block int64, slot int) wordRef { return wordRef(uint32(block)<<8 | uint32(slot)) }
func (r wordRef) block() int64              { return int64(r >> 8) }
func (r wordRef) slot() int                 { return int(r & 0xff) }

func appendWordRecord(block []byte, set algorithmSet, word []byte) []byte {
	block = append(block, byte(set))
	block = binary.AppendUvarint(block, uint64(len(word)))
	return append(block, word...)
}

// recordAt reads the record at offset pos of block: its word (a sub-slice of block) and
// the offset of the next record. ok is false when the block is damaged there.
func recordAt(block []byte, pos int) (word []byte, next int, ok bool) {
	if pos >= len(block) {
		return nil, 0, false
	}
	n, size := binary.Uvarint(block[pos+1:])
	start := pos + 1 + size
	if size <= 0 || n > uint64(len(block)-start) {
		return nil, 0, false
	}
	return block[start : start+int(n)], start + int(n), true
}

// wordRecord finds the record in slot: the offset of its algorithm-set byte, and its word
// (a sub-slice of block). ok is false when the block has no such slot or is damaged.
func wordRecord(block []byte, slot int) (setOffset int, word []byte, ok bool) {
	pos := 0
	for range slot {
		if _, pos, ok = recordAt(block, pos); !ok {
			return 0, nil, false
		}
	}
	word, _, ok = recordAt(block, pos)
	return pos, word, ok
}

// recordOffsets returns the offset of every record of block, by slot (into offsets[:0]),
// so that reading many of its words costs one pass.
func recordOffsets(block []byte, offsets []int) ([]int, error) {
	offsets = offsets[:0]
	for pos := 0; pos < len(block); {
		offsets = append(offsets, pos)
		var ok bool
		if _, pos, ok = recordAt(block, pos); !ok {
			return nil, fmt.Errorf("%w: a word block ends inside record %d", errDamaged, len(offsets)-1)
		}
	}
	return offsets, nil
}

var errDamaged = errors.New("hashindex: damaged index file (delete it and re-import)")

const readBlockSQL = "SELECT words FROM word_blocks WHERE id = ?"

// readBlock returns a copy of the word block (readBlockSQL prepared), or errDamaged when
// it does not exist: index entries only ever point at stored blocks.
func readBlock(ctx context.Context, stmt *sql.Stmt, id int64) ([]byte, error) {
	var block []byte
	err := stmt.QueryRowContext(ctx, id).Scan(&block)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errMissingBlock(id)
	}
	return block, err
}

// wordAt is wordRecord for ref's slot of its block, with a damaged block as an error.
func wordAt(block []byte, ref wordRef) (setOffset int, word []byte, err error) {
	setOffset, word, ok := wordRecord(block, ref.slot())
	if !ok {
		return 0, nil, fmt.Errorf("%w: word block %d has no slot %d", errDamaged, ref.block(), ref.slot())
	}
	return setOffset, word, nil
}

func errMissingBlock(id int64) error {
	return fmt.Errorf("%w: word block %d is missing", errDamaged, id)
}
