# stub: only the path matters
