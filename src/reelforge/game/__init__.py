"""The game contract: the Game interface (:mod:`.contract`), what rounds and mathematics produce
(:mod:`.results`), a game's help (:mod:`.help`) and what its reports add (:mod:`.reporting`), build files
(:mod:`.buildfile`), the kernel harness (:mod:`.harness`), the stratified estimation protocol
(:mod:`.estimation`), the PAR sheet's toolkit (:mod:`.parsheet`) and the design commands' input
types (:mod:`.options`). A game package implements it; nothing here names a game."""
