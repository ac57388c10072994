from tactica.cli import main

main()
