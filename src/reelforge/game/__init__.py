"""The game contract: the Game interface and its results (:mod:`.contract`), build files
(:mod:`.buildfile`), the kernel harness (:mod:`.harness`), the stratified estimation protocol
(:mod:`.estimation`), the PAR sheet's toolkit (:mod:`.parsheet`) and the design commands' input
types (:mod:`.options`). A game package implements it; nothing here names a game."""
