// Package repro regenerates the tables, figures and worked examples of the
// papers in shared/papers that optdp implements: each Experiment recomputes
// a paper's numbers with the library (docs/MATH.md; §16 lists where the
// papers and optdp disagree), writes CSV data and
// PNG/SVG plots, and returns a Markdown section that puts the paper's claim
// next to optdp's value and, where they differ, the evidence for which is
// right. Run runs a list of experiments and writes REPORT.md; the command
// `optdp reproduce` is its front end.
//
// Every number in a report is computed in the run that wrote it; nothing is
// pasted from the papers except the claims themselves, which are quoted as
// claims.
package repro
