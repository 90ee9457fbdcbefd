package tables

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/optdp/optdp/run"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The Parquet decoder allocates what a file's headers declare before it
// reads the bytes (a footer of up to 4 GiB, a page of up to 2 GiB, level
// buffers for up to 2^31 values), so a corrupt or hostile file could take
// gigabytes. The guards below read the footer's length and every page
// header of the columns read first, and refuse sizes no writer produces.
const (
	// maxParquetPage bounds a page's compressed and uncompressed size
	// (writers keep pages near 1 MiB; a dictionary page of a column of at
	// most 2^20 distinct integers is at most 8 MiB).
	maxParquetPage = 1 << 28
	// maxParquetPageValues bounds a page's number of values (writers
	// limit pages to 20,000 rows or so; 2^26 leaves room for constant
	// columns written in one page).
	maxParquetPageValues = 1 << 26
	// headerProbe is the first read of a page header; a header longer than
	// it (long statistics) is read again with up to maxHeader bytes.
	headerProbe = 1 << 14
	maxHeader   = 1 << 22
)

// checkFooter checks that the footer length in the last 8 bytes fits in
// the file, before the decoder allocates it.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("tables: %w: not a readable Parquet file: %d bytes, shorter than the magic numbers and footer length", run.ErrBadInput, size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("tables: reading the Parquet footer: %w", err)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("tables: %w: not a readable Parquet file (truncated?): its footer length %d exceeds the file's %d bytes", run.ErrBadInput, n, size)
	}
	return nil
}

// checkPages reads the page headers of row group g's chunks of the
// columns cols, and refuses a chunk outside the file, a page that spills
// out of its chunk, and page sizes or value counts over the bounds above.
func checkPages(r io.ReaderAt, size int64, f *parquet.File, g int, cols []parquetColumn) error {
	rgs := f.Metadata().RowGroups
	if g >= len(rgs) {
		return fmt.Errorf("tables: %w: corrupt Parquet file: row group %d is not in the metadata", run.ErrBadInput, g)
	}
	bad := func(name string, format string, a ...any) error {
		return fmt.Errorf("tables: %w: corrupt Parquet file: row group %d, column %q: %s", run.ErrBadInput, g, name, fmt.Sprintf(format, a...))
	}
	var proto thrift.CompactProtocol
	buf := make([]byte, headerProbe)
	for _, col := range cols {
		if col.index < 0 || col.index >= len(rgs[g].Columns) {
			return bad(col.name, "no chunk in the metadata")
		}
		md := rgs[g].Columns[col.index].MetaData
		start := md.DataPageOffset
		if d := md.DictionaryPageOffset; d > 0 && d < start {
			start = d
		}
		end := start + md.TotalCompressedSize
		if start < 4 || md.TotalCompressedSize < 0 || end > size || end < start {
			return bad(col.name, "its chunk [%d, %d) is outside the file's %d bytes", start, end, size)
		}
		for pos := start; pos < end; {
			want := min(int64(headerProbe), end-pos)
			var h format.PageHeader
			hlen, err := readHeader(r, pos, want, buf, &proto, &h)
			if errors.Is(err, io.ErrUnexpectedEOF) && end-pos > want {
				big := make([]byte, min(int64(maxHeader), end-pos))
				hlen, err = readHeader(r, pos, int64(len(big)), big, &proto, &h)
			}
			if err != nil {
				return bad(col.name, "the page header at byte %d: %v", pos, err)
			}
			values := int64(0)
			switch {
			case h.DataPageHeader.Valid:
				values = int64(h.DataPageHeader.V.NumValues)
			case h.DataPageHeaderV2.Valid:
				values = int64(h.DataPageHeaderV2.V.NumValues)
			case h.DictionaryPageHeader.Valid:
				values = int64(h.DictionaryPageHeader.V.NumValues)
			}
			next := pos + int64(hlen) + int64(h.CompressedPageSize)
			switch {
			case h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 || values < 0:
				return bad(col.name, "the page at byte %d has negative sizes", pos)
			case h.CompressedPageSize > maxParquetPage || h.UncompressedPageSize > maxParquetPage:
				return bad(col.name, "the page at byte %d declares %d bytes (%d uncompressed), over the limit of %d", pos, h.CompressedPageSize, h.UncompressedPageSize, maxParquetPage)
			case values > maxParquetPageValues:
				return bad(col.name, "the page at byte %d declares %d values, over the limit of %d", pos, values, maxParquetPageValues)
			case next > end:
				return bad(col.name, "the page at byte %d runs past its chunk's end at %d", pos, end)
			}
			pos = next
		}
	}
	return nil
}

// readHeader decodes the page header at pos from its first n bytes (read
// into buf) and returns its length.
func readHeader(r io.ReaderAt, pos, n int64, buf []byte, proto *thrift.CompactProtocol, h *format.PageHeader) (int, error) {
	b := buf[:n]
	if k, err := r.ReadAt(b, pos); k < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	br := proto.NewReaderFromBytes(b)
	if err := thrift.NewDecoder(br).Decode(h); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	return br.BytesRead(), nil
}
