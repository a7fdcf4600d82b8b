"""What names mean, free of LibCST: the kind of a call (``calls``), where code runs (``roles``),
container types (``containers``).  Shared by the CST analysis and the project index, below both."""
