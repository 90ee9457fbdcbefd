package main

// extraCommands lists the commands beyond version; each is defined in its own
// file (tight.go, matrix.go, ...). Add a new command's constructor here.
func extraCommands() []command {
	return []command{matrixCommand(), answerCommand(), optimalCommand(), tightCommand(), thresholdCommand(), regularCommand(), compareCommand(), boundCommand(), auditCommand(), optimizeCommand(), reproduceCommand(), measureCommand(), sampleCommand(), plotCommand(), streamCommand()}
}
