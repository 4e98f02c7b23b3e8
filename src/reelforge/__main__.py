from reelforge.cli import main

main()
