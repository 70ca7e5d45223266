// Package record is tradedeck's recording file: every frame of the venue's
// streams and the REST replies a client needs to start, with their receive
// times, in independently compressed blocks (docs/record.md).
//
// A file is a header followed by blocks. Each block is one zstd frame with
// its own length and checksum, so a recorder killed mid-write leaves a file
// readable up to its last complete block, and a reader can name the byte
// offset where a damaged file stops making sense.
package record

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"time"
)

// Version is the format version written in every header.
const Version = 1

// File layout constants.
const (
	fileMagic  = "TDREC\x00" // 6 bytes, then version (uint16 LE), header length (uint32 LE), header JSON
	blockMagic = "TDBK"      // then raw length, compressed length, CRC-32C of the compressed bytes (uint32 LE each)

	fileHeadLen  = len(fileMagic) + 2 + 4
	blockHeadLen = len(blockMagic) + 4 + 4 + 4

	// Bounds a reader enforces before allocating: a corrupt length must
	// fail cleanly, never allocate gigabytes.
	maxHeaderLen = 1 << 20
	MaxBlockRaw  = 64 << 20 // uncompressed bytes of one block
	maxBlockComp = MaxBlockRaw + MaxBlockRaw/8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Kind says what a record holds.
type Kind uint8

// Record kinds.
const (
	// Market is one frame of the market stream, as received.
	Market Kind = 1
	// Private is one frame of the private stream, as received.
	Private Kind = 2
	// REST is one REST reply: Key is "METHOD /path?query", Data the body.
	REST Kind = 3
	// Event is a stream event: Key is the stream ("market", "private"),
	// Data a short text ("connected", "disconnected: ...").
	Event Kind = 4
)

func (k Kind) String() string {
	switch k {
	case Market:
		return "market"
	case Private:
		return "private"
	case REST:
		return "rest"
	case Event:
		return "event"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Record is one entry. Time is the local receive time in Unix
// nanoseconds. A Reader's records alias its block buffer: they are valid
// until the next call to Next (Clone keeps one).
type Record struct {
	Kind Kind
	Time int64
	Key  []byte
	Data []byte
}

// When is Time as a time.Time.
func (r Record) When() time.Time { return time.Unix(0, r.Time) }

// Clone returns a copy that owns its bytes.
func (r Record) Clone() Record {
	r.Key = append([]byte(nil), r.Key...)
	r.Data = append([]byte(nil), r.Data...)
	return r
}

// Header describes a recording; it is JSON in the file so fields can be
// added without a new version.
type Header struct {
	Format    int       `json:"format"`
	Created   time.Time `json:"created"`
	Venue     string    `json:"venue"` // SIM or LIVE
	BaseURL   string    `json:"base_url"`
	Symbols   []string  `json:"symbols"`
	Topics    []string  `json:"topics"`  // market topics subscribed
	Private   bool      `json:"private"` // private stream recorded
	Part      int       `json:"part"`    // 1, 2, ... across rotation
	Generator string    `json:"generator"`
}

// appendRecord encodes r into a block's raw bytes:
// kind (1 byte), time (8 bytes LE), key length (uvarint), key, data
// length (uvarint), data.
func appendRecord(dst []byte, r Record) []byte {
	dst = append(dst, byte(r.Kind))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.Time))
	dst = binary.AppendUvarint(dst, uint64(len(r.Key)))
	dst = append(dst, r.Key...)
	dst = binary.AppendUvarint(dst, uint64(len(r.Data)))
	return append(dst, r.Data...)
}

// parseRecord reads one record from the front of b, returning the rest.
func parseRecord(b []byte) (Record, []byte, error) {
	var r Record
	if len(b) < 9 {
		return r, nil, fmt.Errorf("record header cut short (%d bytes)", len(b))
	}
	r.Kind = Kind(b[0])
	if r.Kind < Market || r.Kind > Event {
		return r, nil, fmt.Errorf("unknown record kind %d", b[0])
	}
	r.Time = int64(binary.LittleEndian.Uint64(b[1:9]))
	b = b[9:]
	var err error
	if r.Key, b, err = lengthPrefixed(b, "key"); err != nil {
		return r, nil, err
	}
	if r.Data, b, err = lengthPrefixed(b, "data"); err != nil {
		return r, nil, err
	}
	return r, b, nil
}

func lengthPrefixed(b []byte, what string) (field, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, nil, fmt.Errorf("bad %s length", what)
	}
	b = b[k:]
	if n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("%s length %d runs past the block (%d bytes left)", what, n, len(b))
	}
	return b[:n:n], b[n:], nil
}

// encodeHeader is the file's leading bytes.
func encodeHeader(h Header) ([]byte, error) {
	h.Format = Version
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, fileHeadLen+len(js))
	out = append(out, fileMagic...)
	out = binary.LittleEndian.AppendUint16(out, Version)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	return append(out, js...), nil
}

// FormatError is a file that cannot be read past Offset.
type FormatError struct {
	Offset int64 // byte offset in the file where the problem starts
	Msg    string
	// Truncated: the file ends inside a block, as a killed recorder
	// leaves it; everything before Offset was read.
	Truncated bool
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("recording: offset %d: %s", e.Offset, e.Msg)
}

// RequestKey is how a REST reply is filed: "GET /path?query". The
// recorder and the replay server file requests the same way.
func RequestKey(method, path, rawQuery string) string {
	if rawQuery == "" {
		return method + " " + path
	}
	return method + " " + path + "?" + rawQuery
}
