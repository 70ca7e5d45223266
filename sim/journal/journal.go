// Package journal is the simulated venue's write-ahead log: an append-only
// file of records, each made durable (written and fsynced) before the venue
// answers the request that produced it, and folded into the state snapshot
// at the next checkpoint.
//
// Records carry a sequence number that never repeats; a snapshot names the
// last one it includes, so replaying skips what it already holds. Appends
// are grouped: while one fsync runs, the records appended meanwhile wait
// and go out together in the next, so concurrent orders share the cost.
//
// The log lives in segment files next to the state file (STATE.journal.N,
// N the first sequence number in it). A checkpoint starts a new segment and
// deletes the ones the snapshot holds whole. A record torn by a crash in
// the middle of its write fails its checksum and is dropped with what
// follows it in that segment: it was never acknowledged.
package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// header: payload length (4), checksum of sequence and payload (4), sequence (8).
const headerSize = 16

// maxRecord bounds one record; a larger length in a header is corruption.
const maxRecord = 64 << 20

var table = crc32.MakeTable(crc32.Castagnoli)

// Record is one entry read back.
type Record struct {
	Seq     int64
	Payload []byte
}

type segment struct {
	path string
	last int64 // last sequence number it may hold
}

// Journal appends records to the current segment. Safe for concurrent use.
type Journal struct {
	base string

	mu      sync.Mutex
	cond    *sync.Cond
	buf     []byte // framed records not yet written
	spare   []byte
	last    int64 // last sequence number appended
	durable int64 // last sequence number written and synced
	err     error // a failed write or sync: nothing is durable any more
	closed  bool

	wmu  sync.Mutex // held while writing or rotating segments
	f    *os.File
	size int64     // bytes in the current segment
	old  []segment // segments before the current one

	kick chan struct{}
	done chan struct{}
}

// segmentPath names the segment whose first record is seq.
func segmentPath(base string, seq int64) string {
	return fmt.Sprintf("%s.journal.%020d", base, seq)
}

// segments lists the segment files of base, oldest first.
func segments(base string) ([]string, error) {
	matches, err := filepath.Glob(base + ".journal.*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if _, err := strconv.ParseInt(strings.TrimPrefix(m, base+".journal."), 10, 64); err == nil {
			out = append(out, m)
		}
	}
	sort.Strings(out) // zero-padded: lexical order is sequence order
	return out, nil
}

// Open starts a journal for the state file base whose next record is
// nextSeq. Segments left by an earlier run are kept until the first
// checkpoint at or past nextSeq-1 (their records must be in a snapshot by then).
func Open(base string, nextSeq int64) (*Journal, error) {
	old, err := segments(base)
	if err != nil {
		return nil, err
	}
	j := &Journal{base: base, last: nextSeq - 1, durable: nextSeq - 1, kick: make(chan struct{}, 1), done: make(chan struct{})}
	j.cond = sync.NewCond(&j.mu)
	cur := segmentPath(base, nextSeq)
	for _, p := range old {
		if p != cur { // a segment of the last run with nothing intact in it is started over
			j.old = append(j.old, segment{path: p, last: nextSeq - 1})
		}
	}
	if j.f, err = createSegment(cur); err != nil {
		return nil, err
	}
	go j.writer()
	return j, nil
}

func createSegment(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncDir makes a file's creation or removal in dir durable: without it a
// crash can lose a segment whose records were each fsynced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// Append frames payload as the next record and returns its sequence
// number. It does not wait: Wait(seq) does.
func (j *Journal) Append(payload []byte) int64 {
	j.mu.Lock()
	j.last++
	seq := j.last
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint64(h[8:16], uint64(seq))
	crc := crc32.Update(crc32.Checksum(h[8:16], table), table, payload)
	binary.LittleEndian.PutUint32(h[4:8], crc)
	j.buf = append(append(j.buf, h[:]...), payload...)
	j.mu.Unlock()
	select {
	case j.kick <- struct{}{}:
	default:
	}
	return seq
}

// Last is the sequence number of the last record appended.
func (j *Journal) Last() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.last
}

// Wait blocks until record seq is written and synced, or fails with the
// write error that makes it impossible.
func (j *Journal) Wait(seq int64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.durable < seq && j.err == nil && !j.closed {
		j.cond.Wait()
	}
	if j.durable >= seq {
		return nil
	}
	if j.err != nil {
		return j.err
	}
	return errors.New("journal closed")
}

// writer writes and syncs what was appended, one batch per fsync.
func (j *Journal) writer() {
	for {
		select {
		case <-j.kick:
			j.flush()
		case <-j.done:
			j.flush()
			return
		}
	}
}

func (j *Journal) flush() {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	if len(j.buf) == 0 || j.err != nil {
		j.mu.Unlock()
		return
	}
	// two buffers take turns: appends fill one while the other is written
	buf, seq := j.buf, j.last
	j.buf, j.spare = j.spare[:0], nil
	j.mu.Unlock()
	_, err := j.f.Write(buf)
	if err == nil {
		err = j.f.Sync()
	}
	j.size += int64(len(buf))
	j.mu.Lock()
	if err != nil {
		j.err = fmt.Errorf("journal: %w", err)
	} else {
		j.durable = seq
	}
	j.spare = buf[:0]
	j.cond.Broadcast()
	j.mu.Unlock()
}

// Checkpoint tells the journal that a durable snapshot holds every record
// up to seq: a new segment begins and segments wholly covered are deleted.
func (j *Journal) Checkpoint(seq int64) error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	durable := j.durable
	j.mu.Unlock()
	if j.size > 0 {
		// records appended but not yet written go to the new segment, in order
		f, err := createSegment(segmentPath(j.base, durable+1))
		if err != nil {
			return err
		}
		j.f.Close()
		j.old = append(j.old, segment{path: j.f.Name(), last: durable})
		j.f, j.size = f, 0
	}
	kept := j.old[:0]
	for _, s := range j.old {
		if s.last <= seq {
			if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		kept = append(kept, s)
	}
	j.old = kept
	return syncDir(filepath.Dir(j.base))
}

// Close writes what is pending and closes the segment.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	j.mu.Unlock()
	close(j.done)
	j.flush()
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	err := j.err
	j.cond.Broadcast()
	j.mu.Unlock()
	return errors.Join(err, j.f.Close())
}

// Read returns every intact record of base's segments in order. A torn or
// corrupt record ends its segment: it and what follows are dropped and
// counted in dropped (bytes), never an error.
func Read(base string) (records []Record, dropped int64, err error) {
	paths, err := segments(base)
	if err != nil {
		return nil, 0, err
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, 0, err
		}
		recs, rest := parse(b)
		records = append(records, recs...)
		dropped += int64(rest)
	}
	return records, dropped, nil
}

// parse decodes the intact records at the start of b and returns how many
// bytes after them it could not read.
func parse(b []byte) ([]Record, int) {
	var out []Record
	for len(b) > 0 {
		if len(b) < headerSize {
			break
		}
		n := binary.LittleEndian.Uint32(b[0:4])
		if n > maxRecord || int(n) > len(b)-headerSize {
			break
		}
		payload := b[headerSize : headerSize+int(n)]
		crc := crc32.Update(crc32.Checksum(b[8:16], table), table, payload)
		if crc != binary.LittleEndian.Uint32(b[4:8]) {
			break
		}
		out = append(out, Record{Seq: int64(binary.LittleEndian.Uint64(b[8:16])), Payload: append([]byte(nil), payload...)})
		b = b[headerSize+int(n):]
	}
	return out, len(b)
}
