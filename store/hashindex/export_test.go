package hashindex

// SetBatchWords makes ix's imports commit every n words.
func SetBatchWords(ix *Index, n int) { ix.sizes.batchWords = n }

// SetTierBase makes ix's lowest merge tier hold the runs under n entries, so that every
// eighth batch starts a merge.
func SetTierBase(ix *Index, n int64) { ix.sizes.tierBase = n }
