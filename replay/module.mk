# replay/ - programs (filled in by its issue)
