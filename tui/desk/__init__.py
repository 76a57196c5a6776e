"""The desk: the Textual app, its screens, widgets and commands, and the one compat module."""
