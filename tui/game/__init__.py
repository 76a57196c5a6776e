"""The open game: the session that owns it, the messages it sends, the live watch, who plays."""
