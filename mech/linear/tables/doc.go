// Package tables reads data tables into the data vector x of the matrix
// mechanism (mech/linear): the count of every cell of a product domain, in
// row-major order (the first attribute slowest).
//
// Two kinds of table, each in CSV or Parquet:
//   - Records: one row per individual, one integer value in [0, Size) per
//     attribute; each row adds 1 to its cell.
//   - Histogram: one row per cell, the attribute values and a count column
//     (an integer in [0, 2^53]); the counts of rows naming the same cell are
//     summed. This is the output of a GROUP BY in a database engine:
//     SELECT a, b, count(*) AS count FROM t GROUP BY a, b.
//
// Count reads a file, or a directory of parts as Spark and BigQuery write
// them, in one streaming pass whatever its size: memory is the
// n-cell vector (8n bytes, checked against the budget before it is
// allocated) plus a buffer (1 MiB for CSV; one page per column for
// Parquet, which a Parquet writer keeps near 1 MiB). Nothing is lost or
// guessed: a value outside its attribute's domain, a missing, empty or null
// cell, a missing or duplicate column, a negative, fractional or
// non-finite count, a count above 2^53 (the largest carried exactly by a
// float64) or a cell whose summed count would pass it, a Parquet column of
// the wrong type, and a truncated or corrupt file are all refused with an
// error wrapping run.ErrBadInput that names the line or row and the column.
//
// ReadMarginal reads the same tables, with the same checks, into the
// columns of a linear.MarginalData for linear.AnswerGaussianMarginals:
// the rows themselves (4 bytes per attribute and row, 8 more for a
// histogram's count), never the cells, so that the domain may have any
// size.
//
// Files: csv.go (the byte-level CSV reader, no allocation per row),
// parquet.go (the Parquet reader, column by column within each row group),
// count.go (the options, the result, the cell counter and the dispatch by
// format), margcols.go (ReadMarginal's columns).
package tables
