package lp

// addColumnInverseSym adds colW[o]·H_o^{-1}, compressed to the orbits of
// rows, to worker w's orbit sums (the symmetric mode).
func (s *ipm) addColumnInverseSym(o, w int) {
	n, z := s.n, s.zbuf[w]
	wt := s.sg.ColW[o]
	at := s.cols.inverse(o, w, z)
	s.sg.Compress(s.accO[w], z, n, at, wt)
	s.sg.CompressDiag(s.accD[w], z, n, at, wt)
}
