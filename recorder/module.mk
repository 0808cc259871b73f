# recorder/ - programs (filled in by its issue)
