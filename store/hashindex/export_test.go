package hashindex

// SetBatchWords makes ix's imports commit every n words.
func SetBatchWords(ix *Index, n int) { ix.sizes.batchWords = n }
